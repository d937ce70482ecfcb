"""Builders for Gemini `streamGenerateContent?alt=sse` replies on the loopback server, and an independent reading
of recorded Gemini chunks (what a folded message must hold) for the corpus tests."""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import CORPUS_DIR, ScriptedResponse, corpus_chunks, json_response, sse_response

MODEL = "gemini-test"
STREAM = f"/v1beta/models/{MODEL}:streamGenerateContent"
MODELS = "/v1beta/models"
RESPONSE_ID = "resp_loopback_0001"


def gemini_sse(chunks: list[dict[str, Any]], **kw: Any) -> ScriptedResponse:
    """A 200 event stream with one `data:` event per chunk, separated by CRLF CRLF as Gemini does."""
    return sse_response([f"data: {json.dumps(c)}\r\n\r\n".encode() for c in chunks], **kw)


def chunk(*parts: dict[str, Any], finish: str | None = None, usage: dict[str, int] | None = None,
          model: str = MODEL, response_id: str = RESPONSE_ID, **candidate: Any) -> dict[str, Any]:
    """One `GenerateContentResponse` chunk with `parts` in its first candidate."""
    body: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0, **candidate}
    if finish:
        body["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [body], "modelVersion": model, "responseId": response_id}
    if usage is not None:
        out["usageMetadata"] = usage
    return out


def usage(prompt: int = 10, candidates: int = 5, thoughts: int | None = None, cached: int | None = None) -> dict[str, int]:
    meta = {"promptTokenCount": prompt, "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates + (thoughts or 0)}
    if thoughts is not None:
        meta["thoughtsTokenCount"] = thoughts
    if cached is not None:
        meta["cachedContentTokenCount"] = cached
    return meta


def text_reply(*pieces: str, finish: str = "STOP", **kw: Any) -> list[dict[str, Any]]:
    """Text in `pieces` (one chunk each), the last chunk with the finish reason and usage."""
    chunks = [chunk({"text": p}) for p in pieces]
    chunks[-1] = chunk({"text": pieces[-1]}, finish=finish, usage=usage(), **kw)
    return chunks


def gemini_error(status: int, message: str, status_name: str, *, details: list[dict] | None = None,
                 headers: dict[str, str] | None = None) -> ScriptedResponse:
    """A Google API error body: {"error": {"code", "message", "status", "details"}}."""
    error: dict[str, Any] = {"code": status, "message": message, "status": status_name}
    if details is not None:
        error["details"] = details
    return json_response({"error": error}, status=status, headers=headers)


ALTERNATION = "Please ensure that multiturn requests alternate between user and model."
CALL_TURN = "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
RESPONSE_COUNT = ("Please ensure that the number of function response parts is equal to the number of function call "
                  "parts of the function call turn.")
"""The API's 400 INVALID_ARGUMENT words for a history it refuses (google-gemini/gemini-cli #26486, #6418;
microsoft/vscode #299295; discuss.ai.google.dev on the function call turn)."""


def gemini_rules_refusal(body: dict[str, Any]) -> ScriptedResponse | None:
    """Gemini's 400 for a request whose `contents` break its turn rules (two contents of one role in a row, a
    function call turn not after a user turn, function responses that do not answer the calls before them); None
    when the API takes them."""
    contents = body.get("contents") or []
    for index, content in enumerate(contents):
        previous = contents[index - 1] if index else None
        if previous is not None and previous.get("role") == content.get("role"):
            return gemini_error(400, ALTERNATION, "INVALID_ARGUMENT")
        parts = content.get("parts") or []
        calls = [p for p in parts if "functionCall" in p]
        if calls and (previous is None or previous.get("role") != "user"):
            return gemini_error(400, CALL_TURN, "INVALID_ARGUMENT")
        responses = [p for p in parts if "functionResponse" in p]
        asked = [p for p in (previous or {}).get("parts", []) if "functionCall" in p] if previous else []
        if (responses or asked) and len(responses) != len(asked):
            return gemini_error(400, RESPONSE_COUNT, "INVALID_ARGUMENT")
    return None


def serve_by_the_rules(loopback, path: str = STREAM) -> deque[ScriptedResponse]:
    """Makes `loopback` answer `path` as Gemini does: a request whose contents break the API's turn rules gets its
    400 (and uses up no reply); any other is answered from the returned queue (a 500 when it is empty)."""
    replies: deque[ScriptedResponse] = deque()

    def answer(request) -> ScriptedResponse:
        refusal = gemini_rules_refusal(request.json())
        if refusal is not None:
            return refusal
        if not replies:
            return gemini_error(500, "loopback: no reply was scripted for this request", "INTERNAL")
        return replies.popleft()

    loopback.set_handler(path, answer)
    return replies


def corpus_response(name: str, *, split_every: int | None = None) -> ScriptedResponse:
    return sse_response(corpus_chunks(name, split_every=split_every))


# --- the oracle: a straightforward reading of the recorded chunks -----------------------------


def recorded_chunks(name: str) -> list[dict[str, Any]]:
    """The JSON of every `data:` event (or `.jsonl` line) of corpus file `name`."""
    raw = (CORPUS_DIR / name).read_text()
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in raw.splitlines() if line.strip()]
    return [json.loads(line[5:]) for line in re.split(r"\r\n|\n", raw) if line.startswith("data:")]


@dataclass
class ReadCall:
    name: str
    args: dict[str, Any]
    signature: str = ""
    id: str = ""


@dataclass
class Reading:
    text: str = ""
    thinking: str = ""
    calls: list[ReadCall] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    finish: str = ""
    model: str = ""
    response_id: str = ""


def read_reply(chunks: list[dict[str, Any]]) -> Reading:
    """What the chunks say, read part by part: text and thought text concatenated, each function call with its
    arguments (streamed `$.key` string pieces appended until an empty functionCall ends the call), the last usage
    with counts and the last finish reason."""
    reading = Reading()
    streaming: ReadCall | None = None
    for data in chunks:
        reading.model = data.get("modelVersion", reading.model)
        reading.response_id = data.get("responseId", reading.response_id)
        candidate = (data.get("candidates") or [{}])[0]
        for part in candidate.get("content", {}).get("parts", []):
            if "functionCall" in part:
                call = part["functionCall"]
                if "name" in call:
                    read = ReadCall(call["name"], dict(call.get("args") or {}), part.get("thoughtSignature", ""), call.get("id", ""))
                    reading.calls.append(read)
                    streaming = read if call.get("willContinue") else None
                elif streaming is not None:
                    for piece in call.get("partialArgs", []):
                        key = piece["jsonPath"].removeprefix("$.")
                        streaming.args[key] = streaming.args.get(key, "") + piece["stringValue"]
                    if not call:
                        streaming = None
            elif part.get("thought"):
                reading.thinking += part.get("text", "")
            else:
                reading.text += part.get("text", "")
        if "promptTokenCount" in data.get("usageMetadata", {}):
            reading.usage = data["usageMetadata"]
        reading.finish = candidate.get("finishReason", reading.finish)
    return reading
