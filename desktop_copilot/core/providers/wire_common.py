"""What every wire adapter shares: the text sent back for a tool call, ids for calls a wire sends without
one, and a call's JSON arguments."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from desktop_copilot.core.conversation.models import ToolCallBlock

UNFINISHED_TOOL_RESULT = "The tool call did not complete (the reply was interrupted or stopped)."
EMPTY_TOOL_RESULT = "(the tool returned no output)"


MODEL_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
MODEL_IMAGE_BYTES = 3_750_000
"""Base64 characters of one image sent back with a tool result at most (Anthropic's limit is 5 MB decoded)."""


def tool_result_of(call: ToolCallBlock) -> tuple[str, bool]:
    """(text, is_error) sent back for `call`: what the model may see (`model_result`, cut to the size cap)
    else the whole result; a call that never finished gets an error result."""
    text = call.model_result if call.model_result is not None else call.result
    if call.result is not None and call.status.finished:
        return text or EMPTY_TOOL_RESULT, call.is_error
    return text or UNFINISHED_TOOL_RESULT, True


def result_images(call: ToolCallBlock) -> list[dict[str, str]]:
    """The images a finished call returned that a model can take ({"media_type", "data"}, base64)."""
    if not call.status.finished or call.is_error:
        return []
    return [
        {"media_type": part["media_type"], "data": part["data"]}
        for part in call.result_parts
        if part.get("type") == "image" and part.get("media_type") in MODEL_IMAGE_TYPES
        and isinstance(part.get("data"), str) and len(part["data"]) <= MODEL_IMAGE_BYTES
    ]


def stable_call_id(position: int, name: str, arguments: dict[str, Any], salt: str = "") -> str:
    """A call id for wires that give none: "call_" + 24 hex digits hashed from the call's position in the
    reply, its name and arguments (and `salt`, e.g. the reply's id or timestamp, so equal calls in different
    replies differ). The same bytes replayed give the same ids."""
    key = json.dumps([salt, position, name, arguments], sort_keys=True, ensure_ascii=False, default=str)
    return "call_" + hashlib.sha256(key.encode()).hexdigest()[:24]


def parse_arguments(text: str) -> dict[str, Any]:
    """The JSON object in `text`, or `{}` when it is blank, not JSON or not an object."""
    try:
        value = json.loads(text) if text.strip() else {}
    except (json.JSONDecodeError, RecursionError):  # nested too deeply for Python: not arguments either
        return {}
    return value if isinstance(value, dict) else {}
