"""`LocalServer`: an emulated LM Studio, llama-server or vLLM on a loopback port, serving scripted replies as that
server streams them, its model lists and probe endpoint, and its refusal of `tools` when configured without them."""

from __future__ import annotations

import random
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Literal

from tests.support.local_servers.dialects import DIALECTS, Dialect, Json, compact_json, json_body
from tests.support.local_servers.listings import Route, llamacpp_routes, llamacpp_unknown, lmstudio_routes, lmstudio_unknown, vllm_routes, vllm_unknown
from tests.support.local_servers.script import LocalModel, Reply, ToolCall
from tests.support.loopback import LoopbackServer, OnLoopback, RecordedRequest, ScriptedResponse
from tests.support.rough_tokens import request_tokens

Kind = Literal["lmstudio", "llamacpp", "vllm"]
ToolsMode = Literal["native", "refuse"]
ReasoningMode = Literal["field", "tags", "none"]

CHAT_PATHS = {"lmstudio": ("/v1/chat/completions", "/api/v0/chat/completions"),
              "llamacpp": ("/v1/chat/completions", "/chat/completions"),
              "vllm": ("/v1/chat/completions",)}
DEFAULT_MODEL = {"lmstudio": "qwen/qwen3-8b", "llamacpp": "Qwen3-8B-Q4_K_M.gguf", "vllm": "Qwen/Qwen3-8B"}


class LocalServer(OnLoopback):
    """An emulated local model server. `tools="refuse"` is llama-server without --jinja, vLLM without
    --enable-auto-tool-choice / --tool-call-parser, or an LM Studio model whose template cannot render tools.
    `reasoning="field"` puts thinking in the server's reasoning field(s) (`reasoning_fields` overrides which: vLLM
    wrote `reasoning_content` until PR #27752 (Oct 2025), both until PR #33402 (Jan 2026), `reasoning` since); `"tags"` streams it inside
    `<think>…</think>` in `content`; `"none"` is a server that separates nothing and a model that does not think.
    Every request is recorded in `.requests`, refused ones included; a refusal does not use up a scripted reply.
    `window`: the context the model was loaded with, in tokens counted roughly (tests/support/rough_tokens.py); a
    request over it gets the server's own overflow error, and replies report the counted prompt tokens. `respond`:
    answers a request (its JSON body) when no reply is scripted."""

    def __init__(self, kind: Kind, models: Sequence[LocalModel | str] = (), *, tools: ToolsMode = "native",
                 reasoning: ReasoningMode = "field", reasoning_fields: Sequence[str] | None = None, jit: bool = True,
                 flat_errors: bool = False, seed: int = 0, window: int | None = None,
                 respond: Callable[[Json], Reply] | None = None) -> None:
        if kind not in DIALECTS:
            raise ValueError(f"unknown local server kind {kind!r}")
        self.kind = kind
        self.models = [m if isinstance(m, LocalModel) else LocalModel(m) for m in (models or [DEFAULT_MODEL[kind]])]
        self.tools = tools
        self.reasoning = reasoning
        dialect_kw = {"flat_errors": flat_errors} if kind == "vllm" else {}
        self.dialect: Dialect = DIALECTS[kind](self.models, random.Random(seed), **dialect_kw)
        self.reasoning_fields = tuple(reasoning_fields or self.dialect.reasoning_fields)
        self.window = window
        self.respond = respond
        self.loading = False
        """llama-server only: answer 503 "Loading model" on every path, /health included, as while the model loads."""
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._routes, self._unknown = self._build_routes(jit)
        self._loopback = LoopbackServer(default=self._serve)

    # --- lifecycle (start, stop, `with`, `url` without /v1: OnLoopback) ------------------------

    @property
    def base_url(self) -> str:
        """What the app is configured with: the URL with /v1."""
        return self._loopback.url + "/v1"

    # --- scripting and recording --------------------------------------------------------

    def reply(self, content: Sequence[str] = (), *, reasoning: Sequence[str] = (), calls: Sequence[ToolCall] = (),
              finish_reason: str | None = None, prompt_tokens: int = 12, completion_tokens: int | None = None,
              delay: float = 0.0) -> Reply:
        """Queue the answer to the next chat request (see `Reply`)."""
        scripted = Reply(content, reasoning, calls, finish_reason, prompt_tokens, completion_tokens, delay)
        if scripted.reasoning and self.reasoning == "none":
            raise ValueError('reasoning="none" is a server whose model does not think: script no reasoning pieces')
        with self._lock:
            self._replies.append(scripted)
        return scripted

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, in order (`.json()` for the body, `.headers` looked up case-insensitively)."""
        return self._loopback.requests_to("")

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path in CHAT_PATHS[self.kind]]

    @property
    def pending(self) -> int:
        """Scripted replies not served yet."""
        with self._lock:
            return len(self._replies)

    # --- serving ------------------------------------------------------------------------

    def _build_routes(self, jit: bool) -> tuple[dict[tuple[str, str], Route], Route]:
        """The server's (method, path) routes, and its answer to any other request."""
        if self.kind == "lmstudio":
            routes, unknown = lmstudio_routes(self.models, jit), lmstudio_unknown
        elif self.kind == "llamacpp":
            routes, unknown = llamacpp_routes(self.models[0]), llamacpp_unknown(self.dialect)
        else:
            routes, unknown = vllm_routes(self.models), vllm_unknown
        routes.update({("POST", path): self._chat for path in CHAT_PATHS[self.kind]})
        return routes, unknown

    def _serve(self, request: RecordedRequest) -> ScriptedResponse:
        if self.loading and self.kind == "llamacpp":
            return self.dialect.error(503, "Loading model", "unavailable_error")
        return self._routes.get((request.method, request.path), self._unknown)(request)

    def _chat(self, request: RecordedRequest) -> ScriptedResponse:
        try:
            body = request.json()
        except ValueError:
            return self.dialect.error(400, "request body is not JSON", "invalid_request_error")
        refusal = self.dialect.reject_model(body) or (self.dialect.refuse_tools(body) if self.tools == "refuse" else None)
        if refusal is not None:
            return refusal
        tokens = request_tokens("chat_completions", body)
        if self.window is not None:
            asked = body.get("max_completion_tokens") or body.get("max_tokens")
            overflow = self.dialect.overflow(tokens, self.window, asked if isinstance(asked, int) else None)
            if overflow is not None:
                return overflow
        with self._lock:
            scripted = self._replies.popleft() if self._replies else None
        if scripted is None and self.respond is not None:
            scripted = self.respond(body)
        if scripted is None:
            return self.dialect.error(500, f"{self.kind} emulator: no reply was scripted for this request", "server_error")
        if self.window is not None:
            scripted = replace(scripted, prompt_tokens=tokens)
        if body.get("stream"):
            return self._stream(body, scripted)
        return json_body(self._completion(body, scripted))

    def _deltas(self, scripted: Reply) -> list[Json]:
        """The reply's deltas in the order the model writes them: thinking, text, tool calls."""
        deltas: list[Json] = []
        if self.reasoning == "field":
            deltas += [{field: piece for field in self.reasoning_fields} for piece in scripted.reasoning]
        elif scripted.reasoning:
            deltas += [{"content": piece} for piece in ("<think>", *scripted.reasoning, "</think>")]
        deltas += [{"content": piece} for piece in scripted.content]
        for index, call in enumerate(scripted.calls):
            deltas += self.dialect.call_deltas(index, call.id or self.dialect.tool_call_id(), call.name, call.fragments())
        return self.dialect.opening(deltas)

    def _stream(self, body: Json, scripted: Reply) -> ScriptedResponse:
        cid, model = self.dialect.completion_id(), self.dialect.response_model(body)
        chunks = [self.dialect.envelope(cid, model, [self.dialect.choice(delta)]) for delta in self._deltas(scripted)]
        chunks += self.dialect.closing(cid, model, scripted, self.dialect.include_usage(body))
        frames = [b"data: " + compact_json(chunk) + b"\n\n" for chunk in chunks] + [b"data: [DONE]\n\n"]
        return ScriptedResponse(headers={"content-type": self.dialect.sse_content_type, "cache-control": "no-cache"},
                                chunks=frames, delay=scripted.delay)

    def _completion(self, body: Json, scripted: Reply) -> Json:
        """A non-streamed `chat.completion`: the same deltas folded into one message."""
        message: dict[str, Any] = {"role": "assistant", "content": None}
        calls: list[Json] = []
        for delta in self._deltas(scripted):
            for key, value in delta.items():
                if key == "tool_calls":
                    self._fold_call(calls, value[0])
                elif key != "role" and value is not None:
                    message[key] = (message.get(key) or "") + value
        if calls:
            message["tool_calls"] = calls
        choice = {**self.dialect.choice({}, scripted.finish), "message": message}
        del choice["delta"]
        return {**self.dialect.envelope(self.dialect.completion_id(), self.dialect.response_model(body), [choice], "chat.completion"),
                "usage": scripted.usage()}

    @staticmethod
    def _fold_call(calls: list[Json], delta: Json) -> None:
        if delta["index"] == len(calls):
            calls.append({"id": delta["id"], "type": "function", "function": {"name": delta["function"]["name"], "arguments": ""}})
        calls[delta["index"]]["function"]["arguments"] += delta["function"].get("arguments", "")

