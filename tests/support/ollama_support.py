"""Builders for Ollama `/api/chat` NDJSON replies on the loopback server, and an independent reading of
recorded NDJSON lines (what a folded message must hold) for the corpus tests."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import CORPUS_DIR, ScriptedResponse, json_response

CHAT = "/api/chat"
MODEL = "llama3.2"
CREATED = "2025-08-20T13:48:24.316155Z"


def ndjson_response(lines: list[dict] | list[bytes], **kw: Any) -> ScriptedResponse:
    """A 200 `application/x-ndjson` response; dict lines are encoded one JSON object per line (one chunk each)."""
    chunks = [line if isinstance(line, bytes) else (json.dumps(line) + "\n").encode() for line in lines]
    return ScriptedResponse(headers={"content-type": "application/x-ndjson", **kw.pop("headers", {})}, chunks=chunks, **kw)


def ollama_error(status: int, message: str) -> ScriptedResponse:
    """An Ollama HTTP error body: `{"error": message}`."""
    return json_response({"error": message}, status=status)


def _line(message: dict[str, Any], *, model: str = MODEL) -> dict[str, Any]:
    return {"model": model, "created_at": CREATED, "message": {"role": "assistant", **message}, "done": False}


def done_line(*, done_reason: str = "stop", prompt_eval_count: int | None = 12, eval_count: int = 7, model: str = MODEL) -> dict[str, Any]:
    line: dict[str, Any] = {"model": model, "created_at": CREATED, "message": {"role": "assistant", "content": ""},
                            "done_reason": done_reason, "done": True, "total_duration": 1000, "eval_count": eval_count}
    if prompt_eval_count is not None:
        line["prompt_eval_count"] = prompt_eval_count
    return line


def text_lines(*pieces: str, thinking: tuple[str, ...] = (), model: str = MODEL) -> list[dict[str, Any]]:
    """Thinking lines, then content lines, without the final line."""
    return ([_line({"content": "", "thinking": t}, model=model) for t in thinking]
            + [_line({"content": p}, model=model) for p in pieces])


def tool_call_line(*calls: tuple[str, dict[str, Any] | None], model: str = MODEL) -> dict[str, Any]:
    """One line with whole tool calls (as current Ollama streams them before the final line)."""
    wire = [{"function": {"name": name, **({"arguments": args} if args is not None else {})}} for name, args in calls]
    return _line({"content": "", "tool_calls": wire}, model=model)


def text_reply(*pieces: str, done_reason: str = "stop", **kw: Any) -> ScriptedResponse:
    return ndjson_response([*text_lines(*pieces), done_line(done_reason=done_reason)], **kw)


def corpus_lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (CORPUS_DIR / name).read_bytes().splitlines() if line.strip()]


@dataclass
class Reading:
    """What the NDJSON lines say, read without the code under test."""

    model: str = ""
    text: str = ""
    thinking: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    stop_reason: str | None = None


def read_lines(lines: list[dict[str, Any]]) -> Reading:
    reading = Reading(model=lines[0]["model"] if lines else "")
    for line in lines:
        message = line.get("message") or {}
        reading.text += message.get("content") or ""
        reading.thinking += message.get("thinking") or ""
        for call in message.get("tool_calls") or []:
            reading.calls.append((call["function"]["name"], call["function"].get("arguments") or {}))
        if line.get("done"):
            reading.input_tokens = line.get("prompt_eval_count", 0)
            reading.output_tokens = line.get("eval_count", 0)
            raw = line.get("done_reason", "stop")
            reading.stop_reason = "max_tokens" if raw == "length" else "tool_use" if reading.calls else {"stop": "end_turn"}.get(raw, raw)
    return reading
