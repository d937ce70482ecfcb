"""How each local server writes Chat Completions: the chunk envelope and its ids, the opening delta, native tool-call
deltas, the closing chunks and usage, its error bodies and how it refuses `tools`. The facts and their sources are in
docs/local_servers.md; the model lists and probe endpoints are in listings.py."""

from __future__ import annotations

import json
import random
import string
from typing import Any

from tests.support.local_servers.script import LocalModel, Reply
from tests.support.loopback import ScriptedResponse

CREATED = 1767225600
"""Every `created` field: a fixed instant keeps replies byte-for-byte reproducible."""

Json = dict[str, Any]


def compact_json(obj: Any) -> bytes:
    """JSON as the servers write it: no spaces after separators, UTF-8 left unescaped."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def json_body(obj: Any, status: int = 200, content_type: str = "application/json") -> ScriptedResponse:
    return ScriptedResponse(status=status, headers={"content-type": content_type}, chunks=[compact_json(obj)])


class Dialect:
    """The OpenAI-shaped behaviour every server shares; subclasses override where a server differs."""

    kind = ""
    reasoning_fields: tuple[str, ...] = ("reasoning_content",)
    sse_content_type = "text/event-stream"

    def __init__(self, models: list[LocalModel], rng: random.Random) -> None:
        self.models = models
        self.rng = rng

    def _random(self, alphabet: str, length: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(length))

    # --- ids and envelope ---------------------------------------------------------------

    def completion_id(self) -> str:
        return "chatcmpl-" + self._random(string.ascii_lowercase + string.digits, 21)

    def tool_call_id(self) -> str:
        return "call_" + self._random(string.ascii_letters + string.digits, 24)

    def envelope(self, cid: str, model: str, choices: list[Json], obj: str = "chat.completion.chunk") -> Json:
        return {"id": cid, "object": obj, "created": CREATED, "model": model, "choices": choices}

    def choice(self, delta: Json, finish: str | None = None) -> Json:
        return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}

    def response_model(self, body: Json) -> str:
        """The `model` the server writes on its replies: the requested one."""
        return str(body.get("model") or self.models[0].id)

    # --- the stream ---------------------------------------------------------------------

    def opening(self, deltas: list[Json]) -> list[Json]:
        """The deltas with the server's announcement of the assistant role."""
        return [{"role": "assistant", "content": ""}, *deltas]

    def call_deltas(self, index: int, call_id: str, name: str, fragments: list[str]) -> list[Json]:
        """One native tool call: a header delta with id, type and name, then one delta per arguments fragment."""
        head = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        rest = [{"index": index, "function": {"arguments": piece}} for piece in fragments]
        return [{"tool_calls": [call]} for call in (head, *rest)]

    def include_usage(self, body: Json) -> bool:
        return bool((body.get("stream_options") or {}).get("include_usage"))

    def closing(self, cid: str, model: str, reply: Reply, with_usage: bool) -> list[Json]:
        """The chunk carrying the finish reason, then (when asked) the usage chunk with empty `choices`."""
        chunks = [self.envelope(cid, model, [self.choice({}, reply.finish)])]
        if with_usage:
            chunks.append({**self.envelope(cid, model, []), "usage": reply.usage()})
        return chunks

    # --- refusals -----------------------------------------------------------------------

    def error(self, status: int, message: str, type_: str, param: str | None = None) -> ScriptedResponse:
        return json_body({"error": {"message": message, "type": type_, "param": param, "code": status}}, status)

    def refuse_tools(self, body: Json) -> ScriptedResponse | None:
        """The answer of a server not set up for native tools to a request carrying them (None: it accepts it)."""
        return None

    def reject_model(self, body: Json) -> ScriptedResponse | None:
        """The answer to a request naming a model the server does not serve (None: it serves the request)."""
        return None

    def overflow(self, tokens: int, window: int, max_tokens: int | None) -> ScriptedResponse | None:
        """The server's answer to a request of `tokens` input tokens (asking for `max_tokens` more) when it was started
        with a context of `window` tokens: its own error body when the request does not fit (None: it does)."""
        return None


class LlamaCpp(Dialect):
    """llama-server (tools/server): keys in nlohmann order, `system_fingerprint` = build, `timings` on the last chunk,
    the reply's `model` is the loaded model whatever the request named."""

    kind = "llamacpp"
    BUILD = "b7000-1a2b3c4d"

    def completion_id(self) -> str:
        return "chatcmpl-" + self._random(string.ascii_letters + string.digits, 32)

    def tool_call_id(self) -> str:
        return self._random(string.ascii_letters + string.digits, 32)

    def envelope(self, cid: str, model: str, choices: list[Json], obj: str = "chat.completion.chunk") -> Json:
        return {"choices": choices, "created": CREATED, "id": cid, "model": model, "system_fingerprint": self.BUILD, "object": obj}

    def choice(self, delta: Json, finish: str | None = None) -> Json:
        return {"finish_reason": finish, "index": 0, "delta": delta}

    def response_model(self, body: Json) -> str:
        return self.models[0].id

    def opening(self, deltas: list[Json]) -> list[Json]:
        return [{"role": "assistant", "content": None}, *deltas]

    def call_deltas(self, index: int, call_id: str, name: str, fragments: list[str]) -> list[Json]:
        """The header carries the first arguments fragment with the name; later deltas carry only arguments."""
        first, *rest = fragments or [""]
        head = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": first}}
        return [{"tool_calls": [call]} for call in (head, *({"index": index, "function": {"arguments": p}} for p in rest))]

    def closing(self, cid: str, model: str, reply: Reply, with_usage: bool) -> list[Json]:
        chunks = [self.envelope(cid, model, [self.choice({}, reply.finish)])]
        if with_usage:
            usage = reply.usage()
            chunks.append({**self.envelope(cid, model, []), "usage": {
                "completion_tokens": usage["completion_tokens"], "prompt_tokens": usage["prompt_tokens"], "total_tokens": usage["total_tokens"]}})
        chunks[-1]["timings"] = self.timings(reply)
        return chunks

    @staticmethod
    def timings(reply: Reply) -> Json:
        return {"cache_n": 0, "prompt_n": reply.prompt_tokens, "prompt_ms": 12.5, "prompt_per_token_ms": 12.5 / reply.prompt_tokens,
                "prompt_per_second": 1000 * reply.prompt_tokens / 12.5, "predicted_n": reply.output_tokens, "predicted_ms": 40.0,
                "predicted_per_token_ms": 40.0 / max(1, reply.output_tokens), "predicted_per_second": 1000 * reply.output_tokens / 40.0}

    def error(self, status: int, message: str, type_: str, param: str | None = None) -> ScriptedResponse:
        return json_body({"error": {"code": status, "message": message, "type": type_}}, status, "application/json; charset=utf-8")

    def overflow(self, tokens: int, window: int, max_tokens: int | None) -> ScriptedResponse | None:
        """A prompt longer than the slot's context: 400 `exceed_context_size_error` with the counts (since PR #16486,
        Oct 2025, also when streaming; the words of tools/server/server-context.cpp as of 2026, earlier "the request
        exceeds the available context size, try increasing it"). Only the prompt is checked: generation stops at the
        context's end."""
        if tokens <= window:
            return None
        return json_body({"error": {"code": 400, "message": f"request ({tokens} tokens) exceeds the available context size ({window} tokens), "
                                    "try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": tokens, "n_ctx": window}},
                         400, "application/json; charset=utf-8")

    def refuse_tools(self, body: Json) -> ScriptedResponse | None:
        """Started with --no-jinja: oaicompat_chat_params_parse throws std::runtime_error, which ex_wrapper turns into
        a 500 server_error."""
        tools = body.get("tools")
        if isinstance(tools, list) and tools:
            return self.error(500, "tools param requires --jinja flag", "server_error")
        choice = body.get("tool_choice", "auto")
        if isinstance(choice, str) and choice != "auto":
            return self.error(500, "tool_choice param requires --jinja flag", "server_error")
        return None


class Vllm(Dialect):
    """vLLM's OpenAI server: uuid ids, `stop_reason` beside the finish reason, usage whenever `stream_options` is given
    (its `include_usage` defaults to true), a 404 for a model it does not serve."""

    kind = "vllm"
    reasoning_fields = ("reasoning",)
    sse_content_type = "text/event-stream; charset=utf-8"

    def __init__(self, models: list[LocalModel], rng: random.Random, *, flat_errors: bool = False) -> None:
        super().__init__(models, rng)
        self.flat_errors = flat_errors

    def completion_id(self) -> str:
        return "chatcmpl-" + self._random("0123456789abcdef", 32)

    def tool_call_id(self) -> str:
        return "chatcmpl-tool-" + self._random("0123456789abcdef", 32)

    def call_deltas(self, index: int, call_id: str, name: str, fragments: list[str]) -> list[Json]:
        """The hermes-style parsers send the name without `arguments`, then the arguments in pieces."""
        head = {"id": call_id, "type": "function", "index": index, "function": {"name": name}}
        return [{"tool_calls": [call]} for call in (head, *({"index": index, "function": {"arguments": p}} for p in fragments))]

    def include_usage(self, body: Json) -> bool:
        options = body.get("stream_options")
        return isinstance(options, dict) and options.get("include_usage", True) is not False

    def closing(self, cid: str, model: str, reply: Reply, with_usage: bool) -> list[Json]:
        chunks = super().closing(cid, model, reply, with_usage)
        chunks[0]["choices"][0]["stop_reason"] = None
        return chunks

    def error(self, status: int, message: str, type_: str, param: str | None = None) -> ScriptedResponse:
        """ErrorResponse: nested under `error` since v0.10.1 (PR #22099), flat with `object: "error"` before."""
        if self.flat_errors:
            return json_body({"object": "error", "message": message, "type": type_, "param": None, "code": status}, status)
        return super().error(status, message, type_, param)

    def overflow(self, tokens: int, window: int, max_tokens: int | None) -> ScriptedResponse | None:
        """A prompt longer than --max-model-len (the renderer's check, with the parameter note of recent versions), or
        a prompt and `max_tokens` that do not fit together (serving_engine's check since v0.10): 400 BadRequestError
        (vllm-project/vllm #33418, #33425, #20409)."""
        if tokens > window:
            return self.error(400, f"This model's maximum context length is {window} tokens. However, your request has {tokens} input "
                              f"tokens. Please reduce the length of the input messages. (parameter=input_tokens, value={tokens})",
                              "BadRequestError", "input_tokens")
        if max_tokens is not None and tokens + max_tokens > window:
            return self.error(400, f"'max_tokens' or 'max_completion_tokens' is too large: {max_tokens}. This model's maximum context "
                              f"length is {window} tokens and your request has {tokens} input tokens ({max_tokens} > {window} - {tokens}).",
                              "BadRequestError")
        return None

    def refuse_tools(self, body: Json) -> ScriptedResponse | None:
        """Without --enable-auto-tool-choice and --tool-call-parser: `tools` without `tool_choice` defaults to "auto"
        (protocol validator), which serving_chat refuses with a 400 BadRequestError."""
        if not body.get("tools"):
            return None
        choice = body.get("tool_choice", "auto")
        if choice == "auto":
            return self.error(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', "BadRequestError")
        if choice == "required":
            return self.error(400, 'tool_choice="required" requires --tool-call-parser to be set', "BadRequestError")
        return None

    def reject_model(self, body: Json) -> ScriptedResponse | None:
        if body.get("model") in {m.id for m in self.models}:
            return None
        return self.error(404, f"The model `{body.get('model')}` does not exist.", "NotFoundError", "model")


LMSTUDIO_TEMPLATE_ERROR = (
    'Error rendering prompt with jinja template: "Cannot call something that is not a function: got UndefinedValue".\n\n'
    "This is usually an issue with the model's prompt template. If you are using a popular model, you can try to search the model "
    "under lmstudio-community, which will have fixed prompt templates. If you cannot find one, you are welcome to post this issue to "
    "our discord or issue tracker on GitHub. Alternatively, if you know how to write jinja templates, you can override the prompt "
    "template in My Models > model settings > Prompt Template.")
"""LM Studio's 400 when a model's template cannot render the request's `tools` (lmstudio-bug-tracker #2012)."""


class LmStudio(Dialect):
    """LM Studio's OpenAI-compatible server: `system_fingerprint` = the model, numeric tool-call ids, errors as a plain
    string under `error`."""

    kind = "lmstudio"

    def tool_call_id(self) -> str:
        return str(self.rng.randint(100_000_000, 999_999_999))

    def envelope(self, cid: str, model: str, choices: list[Json], obj: str = "chat.completion.chunk") -> Json:
        return {"id": cid, "object": obj, "created": CREATED, "model": model, "system_fingerprint": model, "choices": choices}

    def opening(self, deltas: list[Json]) -> list[Json]:
        """The role rides on the first delta instead of a delta of its own."""
        first, *rest = deltas or [{"content": ""}]
        return [{"role": "assistant", **first}, *rest]

    def error(self, status: int, message: str, type_: str = "", param: str | None = None) -> ScriptedResponse:
        return json_body({"error": message}, status, "application/json; charset=utf-8")

    def refuse_tools(self, body: Json) -> ScriptedResponse | None:
        return self.error(400, LMSTUDIO_TEMPLATE_ERROR) if body.get("tools") else None

    def overflow(self, tokens: int, window: int, max_tokens: int | None) -> ScriptedResponse | None:
        """A prompt the loaded context cannot hold: 400 with LM Studio's words (lmstudio-bug-tracker #237, #546; builds
        of 2026 also say "The number of tokens to keep from the initial prompt is greater than the context length").
        LM Studio's "truncate middle" policy cuts a long chat quietly while its start fits; this emulator stands for
        the case it reports, the whole prompt being what it keeps."""
        if tokens <= window:
            return None
        return self.error(400, f"Trying to keep the first {tokens} tokens when context the overflows. However, the model is loaded "
                          f"with context length of only {window} tokens, which is not enough. Try to load the model with a larger "
                          "context length, or provide a shorter input")


DIALECTS: dict[str, type[Dialect]] = {d.kind: d for d in (LlamaCpp, Vllm, LmStudio)}
