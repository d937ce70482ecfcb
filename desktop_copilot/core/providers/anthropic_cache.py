"""Anthropic prompt caching: where a request's `cache_control` breakpoints go, so each tool round and each turn reads
the prefix the request before it wrote.

The API's rules (docs.anthropic.com, build-with-claude/prompt-caching; the SDK's `*BlockParam` types): a breakpoint
caches the prefix up to and including its block, in the order tools → system → messages; at most 4 in a request (a
fifth is a 400); tool definitions, system text blocks and user-turn blocks (text, image, document, tool_result) may
carry one, thinking and redacted_thinking blocks may not, nor an empty text block; a prefix under the model's minimum
(1,024 tokens on Sonnet, up to 4,096 on others) is simply not cached, and each breakpoint looks back at most 20 blocks
for an earlier entry. Reads cost 0.1x the input price, writes 1.25x (5 minutes)."""

from __future__ import annotations

import json
from typing import Any

from desktop_copilot.core.context.tokens import estimate_tokens

EPHEMERAL = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
MIN_CACHEABLE_TOKENS = 1_024
"""The least prefix Sonnet 4.x and Opus 4.1 cache (others want up to 4,096): a breakpoint on a shorter prefix could not
be read, so none is put; one under a model's higher minimum does no harm (it is simply not cached)."""
ATTACHMENT_TOKENS = 1_500
"""An image or a PDF page as the API bills it, about (for the size of a prefix only)."""
_UNMARKABLE = frozenset({"thinking", "redacted_thinking"})


def place_breakpoints(params: dict[str, Any], *, earlier_tokens: int = 0, earlier_breakpoints: int = 0) -> None:
    """Put `cache_control` on the last tool, on the system prompt (made a list of one text block), on the last block of
    the latest user turn (the round's tool results, or the user's message) and of the user turn before it (read back
    when the latest round added more than 20 blocks): at most four, each where its prefix is long enough to be cached
    and never on a block that may not carry one (the last one that may, in its turn). `earlier_tokens` and
    `earlier_breakpoints`: the size and breakpoints of turns sent before `params["messages"]` (a request whose first
    turns are kept as JSON, core/providers/anthropic_body.py); the two latest user turns are among `params["messages"]`."""
    budget = MAX_BREAKPOINTS - _present(params) - earlier_breakpoints
    size = PrefixSize()
    chosen: list[dict[str, Any]] = []
    tools = params.get("tools") or []
    for tool in tools:
        size.add(tool.get("name", "") + tool.get("description", "") + json.dumps(tool.get("input_schema", {})))
    if tools and size.enough:
        chosen.append(tools[-1])
    system = params.get("system")
    system_block = {"type": "text", "text": system} if isinstance(system, str) and system.strip() else None
    if system_block is not None:
        size.add(system_block["text"])
        if size.enough:
            chosen.append(system_block)
    size.add_tokens(earlier_tokens)
    messages = params.get("messages") or []
    marked_turns = [i for i, turn in enumerate(messages) if turn["role"] == "user"][-2:]
    for index, turn in enumerate(messages[: marked_turns[-1] + 1] if marked_turns else []):
        for block in turn["content"]:
            size.add_block(block)
        if index in marked_turns and size.enough and (last := _markable(turn["content"])) is not None:
            chosen.append(last)
    for block in chosen[-budget:] if budget > 0 else []:  # over budget, the latest breakpoints count most
        block["cache_control"] = dict(EPHEMERAL)
    if system_block is not None and "cache_control" in system_block:
        params["system"] = [system_block]  # a string cannot carry a breakpoint


def breakpoints(params: dict[str, Any]) -> int:
    """How many `cache_control` breakpoints a request carries (for tests and the benchmark)."""
    return _present(params)


def _markable(content: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last block of a turn that may carry a breakpoint."""
    for block in reversed(content):
        kind = block.get("type")
        if kind in _UNMARKABLE or (kind == "text" and not str(block.get("text", "")).strip()):
            continue
        return block
    return None


def carries_breakpoint(block: Any) -> bool:
    return isinstance(block, dict) and "cache_control" in block


def _present(params: dict[str, Any]) -> int:
    system = params.get("system")
    blocks = [*(params.get("tools") or []), *(system if isinstance(system, list) else [])]
    blocks += [block for turn in params.get("messages") or [] for block in turn["content"]]
    return sum(1 for block in blocks if carries_breakpoint(block))


class PrefixSize:
    """The estimated tokens of a request's prefix, counted only until it is long enough to be cached."""

    def __init__(self, tokens: int = 0) -> None:
        self.tokens = tokens

    @property
    def enough(self) -> bool:
        return self.tokens >= MIN_CACHEABLE_TOKENS

    def add_tokens(self, tokens: int) -> None:
        if not self.enough:
            self.tokens += tokens

    def add(self, text: str) -> None:
        if not self.enough:
            self.tokens += estimate_tokens(text, "anthropic")

    def add_block(self, block: Any) -> None:
        if self.enough or not isinstance(block, dict):
            return
        kind = block.get("type")
        if kind in ("image", "document"):
            self.tokens += ATTACHMENT_TOKENS
        elif kind == "text":
            self.add(str(block.get("text", "")))
        elif kind == "thinking":
            self.add(str(block.get("thinking", "")))
        elif kind == "tool_result":
            content = block.get("content")
            if isinstance(content, list):
                for part in content:
                    self.add_block(part)
            else:
                self.add(str(content or ""))
        else:  # tool_use, redacted thinking, server blocks: their JSON, without base64 data
            self.add(json.dumps({k: v for k, v in block.items() if k not in ("source", "data")}, ensure_ascii=False, default=str))
