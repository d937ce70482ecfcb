"""What the Messages API accepts as history, checked the way the API would (for tests)."""

from __future__ import annotations

from typing import Any


def history_problems(messages: list[dict[str, Any]]) -> list[str]:
    """Every rule of the Messages API this history breaks (empty when it would be accepted)."""
    problems: list[str] = []
    if not messages or messages[0]["role"] != "user":
        problems.append("the first message must be from the user")
    if messages and messages[-1]["role"] != "user":
        problems.append("the last message must be from the user (current models refuse an assistant prefill)")
    for i, message in enumerate(messages):
        content = message["content"]
        if i and messages[i - 1]["role"] == message["role"]:
            problems.append(f"messages {i - 1} and {i} are both {message['role']}")
        if not content:
            problems.append(f"message {i} is empty")
        for block in content:
            if block["type"] == "text" and not block["text"].strip():
                problems.append(f"message {i} has an empty or whitespace-only text block")
            if block["type"] == "thinking" and not block.get("signature"):
                problems.append(f"message {i} has a thinking block without a signature")
        uses = [b["id"] for b in content if b["type"] == "tool_use"]
        if message["role"] == "assistant" and uses:
            following = messages[i + 1]["content"] if i + 1 < len(messages) else []
            results = [b["tool_use_id"] for b in following if b["type"] == "tool_result"]
            if sorted(results) != sorted(uses):
                problems.append(f"tool_use {uses} in message {i} not answered by tool_result {results}")
            leading = [b["type"] for b in following[: len(results)]]
            if any(kind != "tool_result" for kind in leading):
                problems.append(f"message {i + 1} must start with its tool_result blocks")
    return problems
