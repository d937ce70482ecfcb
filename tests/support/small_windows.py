"""Loopback servers for every wire with a small context window, counting each request's tokens roughly as the servers
do (tests/support/rough_tokens.py) and answering one that does not fit as the vendor does:

- Anthropic, 400 `invalid_request_error`: "prompt is too long: N tokens > M maximum", and when the prompt fits but not
  with `max_tokens`: "input length and `max_tokens` exceed context limit: N + K > M, decrease input length or
  `max_tokens` and try again";
- OpenAI (Chat Completions), 400 `invalid_request_error`, `param: "messages"`, `code: "context_length_exceeded"`:
  "This model's maximum context length is M tokens. However, your messages resulted in N tokens. Please reduce the
  length of the messages.";
- Gemini, 400 `INVALID_ARGUMENT`: "The input token count (N) exceeds the maximum number of tokens allowed (M)." (and its
  turn rules, tests/support/gemini_support.py);
- Ollama: no error. It keeps the system messages and the latest message and drops the oldest others until the prompt
  fits `options.num_ctx` (server/prompt.go `chatPrompt`), then its runner cuts what is still too long from the start,
  after the first 4 tokens ("truncating input prompt" … keep=4), and answers. Without `num_ctx` it uses its default
  (2,048 until v0.6.7, 4,096 since; VRAM-based since v0.15.5). What it kept is recorded in `Seen.kept`.
- LM Studio, llama.cpp and vLLM: `LocalServer(kind, window=…)` (tests/support/local_servers/dialects.py).

Replies come from a function of what the request holds (`respond(seen) -> Say | Fail`), so a long conversation is
scripted by rule rather than reply by reply; every reply reports the counted prompt tokens as its usage.

    with SmallWindow("anthropic", 12_000, respond=script) as server:
        ...  # ANTHROPIC_BASE_URL=server.url
        assert max(seen.tokens for seen in server.seen) <= 12_000
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.support import chat_completions_support as chat
from tests.support import gemini_support as gemini
from tests.support import ollama_support as ollama
from tests.support.local_servers import LocalServer, Reply, ToolCall
from tests.support.loopback import (
    LoopbackServer,
    OnLoopback,
    RecordedRequest,
    ScriptedResponse,
    anthropic_error,
    anthropic_sse,
    anthropic_text_reply,
    anthropic_tool_reply,
    json_response,
)
from tests.support.rough_tokens import CHARS_PER_TOKEN, request_tokens

Wire = Literal["anthropic", "openai", "gemini", "ollama"]
STALL = 30.0
"""Seconds a stalled reply stays silent: longer than any deadline a test sets (the server's stop ends it)."""
NUM_KEEP = 4
"""Tokens Ollama's runner keeps at the start of a prompt it cuts (the `num_keep` default)."""
OLLAMA_DEFAULT_NUM_CTX = 2048


@dataclass(frozen=True)
class Say:
    """A reply: text, then tool calls as (id, name, arguments)."""

    text: str = ""
    calls: tuple[tuple[str, str, dict[str, Any]], ...] = ()


@dataclass(frozen=True)
class Fail:
    """A reply that fails: "error" (a 500 with `retry-after: 0`, so retries come at once and fail too) or "stall" (the
    reply begins, then nothing more arrives)."""

    how: Literal["error", "stall"]


Answer = Say | Fail


@dataclass
class Kept:
    """What Ollama kept of a prompt: the context it ran with, the messages it dropped and the tokens it cut."""

    num_ctx: int
    sent_num_ctx: int | None
    prompt_tokens: int
    kept_tokens: int
    dropped_messages: int
    cut_tokens: int
    system_cut: bool
    """The system prompt (with the tools' description) lost tokens."""

    @property
    def whole(self) -> bool:
        return self.dropped_messages == 0 and self.cut_tokens == 0


@dataclass
class Seen:
    """A request as the emulator read it: its counted tokens, what it holds in order, and how it was answered."""

    wire: str
    body: dict[str, Any]
    tokens: int
    system: str
    tools: list[str]
    turns: list[tuple[str, str]]
    """(kind, text): kind is "user", "assistant", "tool_call" or "tool_result", in the order the request has them."""
    max_tokens: int | None = None
    answered: str = ""
    """"reply", "overflow", "error", "stall" or "refused" (a turn rule broken)."""
    kept: Kept | None = None

    @property
    def last_kind(self) -> str:
        return self.turns[-1][0] if self.turns else ""

    @property
    def last_user_text(self) -> str:
        return next((text for kind, text in reversed(self.turns) if kind == "user"), "")

    def text(self) -> str:
        return "\n".join([self.system, *(text for _, text in self.turns)])


Respond = Callable[[Seen], Answer]


# --- reading requests -----------------------------------------------------------------------------------


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_texts(part) for part in content)
    if isinstance(content, dict):
        if isinstance(content.get("text"), str):
            return content["text"]
        if isinstance(content.get("content"), str | list):
            return _texts(content["content"])
        source = content.get("source")
        if isinstance(source, dict) and isinstance(source.get("data"), str) and source.get("type") == "text":
            return source["data"]
    return ""


def _read_anthropic(body: dict) -> tuple[str, list[str], list[tuple[str, str]]]:
    turns: list[tuple[str, str]] = []
    for message in body.get("messages", []):
        blocks = message["content"] if isinstance(message["content"], list) else [{"type": "text", "text": message["content"]}]
        for block in blocks:
            kind = block.get("type")
            if kind == "tool_result":
                turns.append(("tool_result", _texts(block.get("content"))))
            elif kind == "tool_use":
                turns.append(("tool_call", f"{block['name']} {json.dumps(block.get('input'))}"))
            elif kind in ("text", "document"):
                turns.append(("user" if message["role"] == "user" else "assistant", _texts(block)))
    return _texts(body.get("system")), [t["name"] for t in body.get("tools", []) if "name" in t], turns


def _read_chat(body: dict) -> tuple[str, list[str], list[tuple[str, str]]]:
    system, turns = [], []
    for message in body.get("messages", []):
        role, text = message["role"], _texts(message.get("content"))
        if role in ("system", "developer"):
            system.append(text)
        elif role == "tool":
            turns.append(("tool_result", text))
        elif role == "assistant":
            if text:
                turns.append(("assistant", text))
            for call in message.get("tool_calls") or []:
                function = call["function"]
                arguments = function.get("arguments")
                turns.append(("tool_call", f"{function['name']} {arguments if isinstance(arguments, str) else json.dumps(arguments)}"))
        else:
            turns.append(("user", text))
    return "\n".join(system), [t["function"]["name"] for t in body.get("tools") or []], turns


def _read_gemini(body: dict) -> tuple[str, list[str], list[tuple[str, str]]]:
    turns = []
    for content in body.get("contents", []):
        for part in content.get("parts", []):
            if "functionResponse" in part:
                turns.append(("tool_result", json.dumps(part["functionResponse"].get("response"), ensure_ascii=False)))
            elif "functionCall" in part:
                turns.append(("tool_call", f"{part['functionCall']['name']} {json.dumps(part['functionCall'].get('args'))}"))
            elif "text" in part and not part.get("thought"):
                turns.append(("user" if content["role"] == "user" else "assistant", part["text"]))
    tools = [d["name"] for t in body.get("tools", []) for d in t.get("functionDeclarations", [])]
    return _texts((body.get("systemInstruction") or {}).get("parts", [])), tools, turns


READERS = {"anthropic": _read_anthropic, "openai": _read_chat, "gemini": _read_gemini, "ollama": _read_chat}
COUNTED_AS = {"anthropic": "anthropic", "openai": "chat_completions", "gemini": "gemini", "ollama": "ollama"}


def read_request(wire: str, body: dict[str, Any]) -> Seen:
    system, tools, turns = READERS[wire](body)
    if wire == "gemini":
        asked = (body.get("generationConfig") or {}).get("maxOutputTokens")
    elif wire == "ollama":
        asked = (body.get("options") or {}).get("num_predict")
    else:
        asked = body.get("max_completion_tokens") or body.get("max_tokens")
    return Seen(wire, body, request_tokens(COUNTED_AS[wire], body), system, tools, turns,
                asked if isinstance(asked, int) else None)


# --- the vendors' overflow errors -----------------------------------------------------------------------


def anthropic_overflow(tokens: int, window: int, max_tokens: int | None) -> ScriptedResponse | None:
    if tokens > window:
        return anthropic_error(400, "invalid_request_error", f"prompt is too long: {tokens} tokens > {window} maximum")
    if max_tokens is not None and tokens + max_tokens > window:
        return anthropic_error(400, "invalid_request_error", f"input length and `max_tokens` exceed context limit: {tokens} + "
                               f"{max_tokens} > {window}, decrease input length or `max_tokens` and try again")
    return None


def openai_overflow(tokens: int, window: int, max_tokens: int | None) -> ScriptedResponse | None:
    if tokens <= window:
        return None
    return json_response({"error": {"message": f"This model's maximum context length is {window} tokens. However, your messages "
                                               f"resulted in {tokens} tokens. Please reduce the length of the messages.",
                                    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}, 400)


def gemini_overflow(tokens: int, window: int, max_tokens: int | None) -> ScriptedResponse | None:
    if tokens <= window:
        return None
    return gemini.gemini_error(400, f"The input token count ({tokens}) exceeds the maximum number of tokens allowed ({window}).",
                               "INVALID_ARGUMENT")


OVERFLOWS = {"anthropic": anthropic_overflow, "openai": openai_overflow, "gemini": gemini_overflow}


# --- replies -------------------------------------------------------------------------------------------


def _anthropic_reply(say: Say, tokens: int, model: str) -> list[bytes]:
    if say.calls:
        events = anthropic_tool_reply(list(say.calls), text=say.text or None, model=model)
    else:
        events = anthropic_text_reply(say.text, pieces=2, model=model, output_tokens=max(1, len(say.text) // CHARS_PER_TOKEN))
    events[0]["message"]["usage"]["input_tokens"] = tokens
    return anthropic_sse(events)


def _openai_reply(say: Say, tokens: int, model: str) -> list[bytes]:
    usage = {"prompt_tokens": tokens, "completion_tokens": max(1, len(say.text) // CHARS_PER_TOKEN),
             "total_tokens": tokens + max(1, len(say.text) // CHARS_PER_TOKEN)}
    return chat.chat_sse(chat.chat_reply(say.text or None, calls=list(say.calls), usage=usage, model=model))


def _gemini_reply(say: Say, tokens: int, model: str) -> list[bytes]:
    parts = ([{"text": say.text}] if say.text else []) + [
        {"functionCall": {"name": name, "args": arguments}, **({"thoughtSignature": "c2lnbmF0dXJl"} if i == 0 else {})}
        for i, (_, name, arguments) in enumerate(say.calls)]
    usage = gemini.usage(prompt=tokens, candidates=max(1, len(say.text) // CHARS_PER_TOKEN))
    chunks = [gemini.chunk(*parts, finish="STOP", usage=usage, model=model)]
    return [f"data: {json.dumps(c)}\r\n\r\n".encode() for c in chunks]


def _ollama_reply(say: Say, tokens: int, model: str) -> list[bytes]:
    lines = ollama.text_lines(say.text, model=model) if say.text else []
    if say.calls:
        lines.append(ollama.tool_call_line(*((name, arguments) for _, name, arguments in say.calls), model=model))
    lines.append(ollama.done_line(prompt_eval_count=tokens, eval_count=max(1, len(say.text) // CHARS_PER_TOKEN), model=model))
    return [(json.dumps(line) + "\n").encode() for line in lines]


RENDER = {"anthropic": _anthropic_reply, "openai": _openai_reply, "gemini": _gemini_reply, "ollama": _ollama_reply}
CONTENT_TYPES = {"anthropic": "text/event-stream", "openai": "text/event-stream", "gemini": "text/event-stream",
                 "ollama": "application/x-ndjson"}


def _failure(wire: str, fail: Fail, model: str) -> ScriptedResponse:
    if fail.how == "stall":
        frames = RENDER[wire](Say("The summary of the earlier turns begins here and then"), 10, model)
        head = frames[:3] if wire == "anthropic" else frames[:2] if wire == "openai" else []
        if wire == "gemini":  # a first chunk of text without a finish reason
            head = [f"data: {json.dumps(gemini.chunk({'text': 'The summary begins'}, model=model))}\r\n\r\n".encode()]
        if wire == "ollama":
            head = [(json.dumps(ollama.text_lines("The summary begins", model=model)[0]) + "\n").encode()]
        return ScriptedResponse(headers={"content-type": CONTENT_TYPES[wire]}, chunks=head, stall=STALL)
    retry = {"retry-after": "0"}
    if wire == "anthropic":
        return anthropic_error(500, "api_error", "Internal server error", headers=retry)
    if wire == "openai":
        return chat.openai_error(500, "The server had an error while processing your request. Sorry about that!",
                                 type_="server_error", headers=retry)
    if wire == "gemini":
        return gemini.gemini_error(500, "An internal error has occurred. Please retry or report in "
                                        "https://developers.generativeai.google/guide/troubleshooting", "INTERNAL", headers=retry)
    response = ollama.ollama_error(500, "llama runner process has terminated: exit status 2")
    response.headers.update(retry)
    return response


# --- Ollama's truncation ---------------------------------------------------------------------------------


def ollama_truncation(body: dict[str, Any], default_num_ctx: int) -> Kept:
    """What Ollama keeps of a chat request: system messages (with the tools' description) and the latest message
    always, then the newest others that fit `num_ctx`; then the runner's cut from the start of what is still too
    long. Tokens as rough_tokens counts them."""
    sent = (body.get("options") or {}).get("num_ctx")
    num_ctx = sent if isinstance(sent, int) and sent > 0 else default_num_ctx
    messages = body.get("messages") or []
    system_tokens = request_tokens("ollama", {"tools": body.get("tools"),
                                              "messages": [m for m in messages if m.get("role") == "system"]})
    others = [m for m in messages if m.get("role") != "system"]
    sizes = [request_tokens("ollama", {"messages": [m]}) for m in others]
    prompt = system_tokens + sum(sizes)
    first = 0
    if prompt > num_ctx and others:
        first = len(others) - 1  # the latest always stays
        while first > 0 and system_tokens + sum(sizes[first - 1:]) <= num_ctx:
            first -= 1
    kept = system_tokens + sum(sizes[first:])
    cut = max(0, kept - num_ctx)
    return Kept(num_ctx=num_ctx, sent_num_ctx=sent if isinstance(sent, int) else None, prompt_tokens=prompt,
                kept_tokens=kept - cut, dropped_messages=first, cut_tokens=cut, system_cut=cut > 0 and system_tokens > NUM_KEEP)


def ollama_show(model: str, context_length: int) -> ScriptedResponse:
    return json_response({"parameters": "", "details": {"family": "llama", "parameter_size": "3.2B", "quantization_level": "Q4_K_M"},
                          "model_info": {"general.architecture": "llama", "llama.context_length": context_length},
                          "capabilities": ["completion", "tools"]})


# --- the server ----------------------------------------------------------------------------------------


@dataclass
class SmallWindow(OnLoopback):
    """A loopback server speaking `wire` for a model with a context window of `window` tokens (for Ollama, the model's
    trained context that `/api/show` reports; what it runs with is `num_ctx`)."""

    wire: Wire
    window: int
    respond: Respond
    model: str = ""
    default_num_ctx: int = OLLAMA_DEFAULT_NUM_CTX
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.model = self.model or {"anthropic": "claude-small", "openai": "gpt-small", "gemini": "gemini-small",
                                    "ollama": ollama.MODEL}[self.wire]
        self._lock = threading.Lock()
        self._loopback = LoopbackServer(default=self._serve)

    @property
    def chat_path(self) -> str:
        return {"anthropic": "/v1/messages", "openai": "/v1/chat/completions", "ollama": ollama.CHAT,
                "gemini": f"/v1beta/models/{self.model}:streamGenerateContent"}[self.wire]

    def _serve(self, request: RecordedRequest) -> ScriptedResponse:
        if self.wire == "ollama" and request.path == "/api/show":
            return ollama_show(self.model, self.window)
        if self.wire == "ollama" and request.path == "/api/tags":
            return json_response({"models": [{"name": self.model, "model": self.model, "details": {"family": "llama"}}]})
        if request.path != self.chat_path or request.method != "POST":
            return json_response({"error": f"small-window emulator: nothing at {request.method} {request.path}"}, 404)
        seen = read_request(self.wire, request.json())
        with self._lock:
            self.seen.append(seen)
        if self.wire == "gemini" and (refusal := gemini.gemini_rules_refusal(seen.body)) is not None:
            seen.answered = "refused"
            return refusal
        tokens = seen.tokens
        if self.wire == "ollama":
            seen.kept = ollama_truncation(seen.body, self.default_num_ctx)
            tokens = seen.kept.kept_tokens
        elif (overflow := OVERFLOWS[self.wire](seen.tokens, self.window, seen.max_tokens)) is not None:
            seen.answered = "overflow"
            return overflow
        answer = self.respond(seen)
        if isinstance(answer, Fail):
            seen.answered = answer.how
            return _failure(self.wire, answer, self.model)
        seen.answered = "reply"
        return ScriptedResponse(headers={"content-type": CONTENT_TYPES[self.wire]}, chunks=RENDER[self.wire](answer, tokens, self.model))


def small_local_server(kind: str, window: int, respond: Respond, seen: list[Seen], **kw: Any) -> LocalServer:
    """An emulated LM Studio, llama-server or vLLM loaded with a context of `window` tokens, answering by `respond`
    (a Fail is not offered by these emulators); each request it answers is appended to `seen`."""

    def reply(body: dict[str, Any]) -> Reply:
        view = read_request("openai", body)
        seen.append(view)
        answer = respond(view)
        if isinstance(answer, Fail):
            raise TypeError("the local server emulators script no failures")
        view.answered = "reply"
        return Reply([answer.text] if answer.text else [], calls=[ToolCall(name, arguments, call_id) for call_id, name, arguments in answer.calls])

    return LocalServer(kind, window=window, respond=reply, **kw)
