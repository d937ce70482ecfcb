"""Fault injection on the loopback server, one script per wire format: whole replies as frames (one SSE event or
NDJSON line each), and the faults a real network does to them: silence before the first byte, a stall between
frames, a busy answer with `retry-after`, a malformed or truncated frame, a frame cut inside a UTF-8 character,
a connection closed mid-event, tool arguments that are not JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.support import chat_completions_support as chat
from tests.support import gemini_support as gemini
from tests.support import ollama_support as ollama
from tests.support.loopback import ScriptedResponse, anthropic_error, anthropic_sse, anthropic_text_reply

PIECES = ("Alpha ", "Bravo ", "Charl ", "Delta ")
"""A reply in four deltas of equal length (the builders split text evenly, so each delta is one of these)."""
WIDE = "東京は晴れ、気温は二十一度です 🌤️ Ça va très bien."
"""A reply whose bytes are mostly multi-byte UTF-8 characters."""
FOREVER = 30.0
"""Seconds of silence that outlast every deadline a fault test sets (the test's own deadlines are ~1 s)."""


@dataclass(frozen=True)
class Frames:
    """A whole reply as frames, and which frames carry text (the i-th one carries PIECES[i])."""

    frames: list[bytes]
    text_at: list[int]


@dataclass(frozen=True)
class WireScript:
    """How one wire format writes replies and errors; `provider` is the provider id the session uses."""

    provider: str
    model: str
    path: str
    key_env: str | None
    url_suffix: str
    content_type: str
    text: Callable[[tuple[str, ...]], Frames]
    tool_call: Callable[[str, str, str], list[bytes]]
    """(call id, tool name, the arguments exactly as the wire carries them, maybe not JSON) -> frames."""
    error: Callable[[int, str, dict[str, str]], ScriptedResponse]

    def reply(self, frames: list[bytes], **kw: Any) -> ScriptedResponse:
        headers = {"content-type": self.content_type, **kw.pop("headers", {})}
        return ScriptedResponse(headers=headers, chunks=list(frames), **kw)

    def text_reply(self, *pieces: str, **kw: Any) -> ScriptedResponse:
        return self.reply(self.text(pieces).frames, **kw)

    def __str__(self) -> str:
        return self.provider


# --- Anthropic Messages ------------------------------------------------------------------


def _anthropic_text(pieces: tuple[str, ...]) -> Frames:
    frames = anthropic_sse(anthropic_text_reply("".join(pieces), pieces=len(pieces)))
    return Frames(frames, [2 + i for i in range(len(pieces))])  # message_start, content_block_start, the deltas


def _anthropic_tool(call_id: str, name: str, raw: str) -> list[bytes]:
    half = len(raw) // 2
    events = [
        {"type": "message_start", "message": {"id": "msg_fault", "type": "message", "role": "assistant", "model": "claude-test",
                                              "content": [], "stop_reason": None, "stop_sequence": None,
                                              "usage": {"input_tokens": 10, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": p}} for p in (raw[:half], raw[half:])),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]
    return anthropic_sse(events)


def _anthropic_error(status: int, message: str, headers: dict[str, str]) -> ScriptedResponse:
    kind = {429: "rate_limit_error", 529: "overloaded_error", 503: "api_error"}.get(status, "api_error")
    return anthropic_error(status, kind, message, headers=headers)


# --- Chat Completions ---------------------------------------------------------------------


def _chat_text(pieces: tuple[str, ...]) -> Frames:
    frames = chat.chat_sse(chat.chat_reply("".join(pieces), pieces=len(pieces)))
    return Frames(frames, [1 + i for i in range(len(pieces))])  # the role chunk, then the deltas


def _chat_tool(call_id: str, name: str, raw: str) -> list[bytes]:
    half = len(raw) // 2
    chunks = [chat.chat_chunk({"role": "assistant", "content": ""}),
              chat.chat_chunk({"tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
              *(chat.chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in (raw[:half], raw[half:])),
              chat.chat_chunk({}, finish_reason="tool_calls"), chat.chat_chunk(None, usage=chat.USAGE)]
    return chat.chat_sse(chunks)


def _chat_error(status: int, message: str, headers: dict[str, str]) -> ScriptedResponse:
    return chat.openai_error(status, message, type_="rate_limit_error" if status == 429 else "server_error", headers=headers)


# --- Gemini -------------------------------------------------------------------------------


def _gemini_frames(chunks: list[dict[str, Any]]) -> list[bytes]:
    return [f"data: {json.dumps(c)}\r\n\r\n".encode() for c in chunks]


def _gemini_text(pieces: tuple[str, ...]) -> Frames:
    return Frames(_gemini_frames(gemini.text_reply(*pieces)), list(range(len(pieces))))


def _gemini_tool(call_id: str, name: str, raw: str) -> list[bytes]:
    try:
        args: Any = json.loads(raw)
    except ValueError:
        args = raw  # the wire carries an object: text that is not one arrives as a string where the object goes
    call = {"functionCall": {"id": call_id, "name": name, "args": args}}
    return _gemini_frames([gemini.chunk(call, finish="STOP", usage=gemini.usage())])


def _gemini_error(status: int, message: str, headers: dict[str, str]) -> ScriptedResponse:
    name = {429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}.get(status, "INTERNAL")
    return gemini.gemini_error(status, message, name, headers=headers)


# --- Ollama -------------------------------------------------------------------------------


def _ndjson(lines: list[dict[str, Any]]) -> list[bytes]:
    return [(json.dumps(line) + "\n").encode() for line in lines]


def _ollama_text(pieces: tuple[str, ...]) -> Frames:
    return Frames(_ndjson([*ollama.text_lines(*pieces), ollama.done_line()]), list(range(len(pieces))))


def _ollama_tool(call_id: str, name: str, raw: str) -> list[bytes]:
    try:
        args: Any = json.loads(raw)
    except ValueError:
        args = raw  # some proxies send the arguments as a JSON string: here one that does not parse
    line = ollama.tool_call_line((name, args))
    line["message"]["tool_calls"][0]["id"] = call_id
    return _ndjson([line, ollama.done_line()])


def _ollama_error(status: int, message: str, headers: dict[str, str]) -> ScriptedResponse:
    response = ollama.ollama_error(status, message)
    response.headers.update(headers)
    return response


WIRES = [
    WireScript("anthropic", "claude-test", "/v1/messages", "ANTHROPIC_API_KEY", "", "text/event-stream",
               _anthropic_text, _anthropic_tool, _anthropic_error),
    WireScript("openai", "gpt-test", chat.CHAT, "OPENAI_API_KEY", "/v1", "text/event-stream", _chat_text, _chat_tool, _chat_error),
    WireScript("gemini", gemini.MODEL, gemini.STREAM, "GEMINI_API_KEY", "", "text/event-stream",
               _gemini_text, _gemini_tool, _gemini_error),
    WireScript("ollama", ollama.MODEL, ollama.CHAT, None, "", "application/x-ndjson", _ollama_text, _ollama_tool, _ollama_error),
]
WIRE_IDS = [wire.provider for wire in WIRES]


# --- the faults, on frames ----------------------------------------------------------------


def stall_after(wire: WireScript, delivered: int) -> ScriptedResponse:
    """The reply's first `delivered` text frames (and what precedes them), then silence with the connection open."""
    whole = wire.text(PIECES)
    return wire.reply(whole.frames[: whole.text_at[delivered - 1] + 1], stall=FOREVER)


def silent(wire: WireScript) -> ScriptedResponse:
    """No status line, no byte: the server accepted the connection and says nothing."""
    return wire.reply(wire.text(PIECES).frames, hold=FOREVER)


def cut_inside_frame(wire: WireScript, delivered: int, *, drop: bool) -> ScriptedResponse:
    """The first `delivered` text frames, then half of the next frame; the body then ends (`drop`: the socket is
    closed abruptly instead, as a server that dies mid-event)."""
    whole = wire.text(PIECES)
    upto = whole.text_at[delivered - 1] + 1
    half = whole.frames[upto][: len(whole.frames[upto]) // 2]
    return wire.reply([*whole.frames[:upto], half], drop=drop)


MALFORMED = {"text/event-stream": b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_de\n\n',
             "application/x-ndjson": b'{"model": "llama3.2", "message": {"role": "assistant", "content": "x"\n'}


def malformed_after(wire: WireScript, delivered: int) -> ScriptedResponse:
    """The first `delivered` text frames, then a whole frame whose JSON is broken, then the rest of the reply."""
    whole = wire.text(PIECES)
    upto = whole.text_at[delivered - 1] + 1
    return wire.reply([*whole.frames[:upto], MALFORMED[wire.content_type], *whole.frames[upto:]])


def bytes_cut_inside_characters(wire: WireScript) -> ScriptedResponse:
    """The WIDE reply with its body re-cut into network chunks that each end inside a multi-byte character."""
    body = b"".join(wire.text((WIDE[:10], WIDE[10:20], WIDE[20:30], WIDE[30:])).frames)
    cuts, start = [], 0
    for index in range(1, len(body)):
        if 0x80 <= body[index] < 0xC0 and index - start >= 5:  # a continuation byte: the cut falls inside a character
            cuts.append(body[start:index])
            start = index
    cuts.append(body[start:])
    assert all(len(piece.decode("utf-8", "ignore").encode()) < len(piece) for piece in cuts[:-1])
    return wire.reply(cuts)


def busy(wire: WireScript, status: int, retry_after: str) -> ScriptedResponse:
    return wire.error(status, "the service is busy, come back later", {"retry-after": retry_after})
