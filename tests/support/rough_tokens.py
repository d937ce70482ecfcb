"""How the small-window emulators count a request's tokens, roughly as the servers do: the characters of every text
the model reads (system prompt, tool declarations, messages, tool calls and results) over four, plus a few tokens a
chat template adds around each message."""

from __future__ import annotations

import json
from typing import Any

CHARS_PER_TOKEN = 4
PER_MESSAGE = 4
"""Tokens a chat template writes around each message (role markers, separators)."""
PROMPT_FIELDS = {
    "anthropic": ("system", "tools", "messages"),
    "chat_completions": ("tools", "messages"),
    "gemini": ("systemInstruction", "tools", "contents"),
    "ollama": ("tools", "messages"),
}
"""The request fields each wire's prompt is made of."""
STRUCTURE = frozenset({"role", "type", "id", "tool_call_id", "tool_use_id", "cache_control", "media_type", "mimeType",
                       "thoughtSignature", "signature"})
"""Keys whose values are the request's structure (role markers, ids, signatures), not text the model reads."""


def characters(value: Any) -> int:
    """The characters of every string in a JSON value (the keys and STRUCTURE left out; numbers as their JSON text)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        if set(value) == {"type", "source"} or value.get("type") == "image":  # images are not read as characters
            return 0
        return sum(characters(v) for k, v in value.items() if k not in STRUCTURE)
    if isinstance(value, list):
        return sum(characters(v) for v in value)
    if value is None or isinstance(value, bool):
        return 0
    return len(json.dumps(value))


def request_tokens(wire: str, body: dict[str, Any]) -> int:
    """The input tokens of a request `body` of `wire` (see PROMPT_FIELDS), counted roughly."""
    chars = sum(characters(body.get(name)) for name in PROMPT_FIELDS[wire])
    turns = body.get("contents" if wire == "gemini" else "messages") or []
    return -(-chars // CHARS_PER_TOKEN) + PER_MESSAGE * len(turns)
