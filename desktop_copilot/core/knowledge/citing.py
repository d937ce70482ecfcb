"""The knowledge passages a reply cites: the numbered passages its search_knowledge calls returned, kept to those whose
numbers its text cites ("[2]", "[1][3]", "[1, 4]"); all it found when the text cites none of them. A reply is every
assistant message between two of the user's (the loop writes one message per round of tool calls)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop_copilot.core.conversation.models import Message, TextBlock, ToolCallBlock

SEARCH_TOOL = "search_knowledge"
PASSAGE_PART = "knowledge_passage"
_MARKER = re.compile(r"\[(\d{1,3}(?:\s*[,，、]\s*\d{1,3})*)\]")


@dataclass(frozen=True, slots=True)
class CitedPassage:
    number: int
    source: str
    path: str
    """Inside its source, with forward slashes."""
    file: str
    """The file on disk when it was found (shown before "Open in default app")."""
    location: str
    text: str
    heading: str = ""
    kind: str = ""
    ordinal: int = 0

    @classmethod
    def from_part(cls, part: dict[str, Any]) -> CitedPassage | None:
        try:
            return cls(int(part["number"]), str(part.get("source") or ""), str(part.get("path") or ""),
                       str(part.get("file") or ""), str(part.get("location") or ""), str(part.get("text") or ""),
                       str(part.get("heading") or ""), str(part.get("kind") or ""), int(part.get("ordinal") or 0))
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True, slots=True)
class ReplySources:
    passages: list[CitedPassage]
    cited: bool
    """True: the text cites these numbers; False: it cites none, and these are all the passages found."""


def found_passages(reply: Sequence[Message]) -> dict[int, CitedPassage]:
    """Every numbered passage the reply's knowledge searches returned, by number (the first of a number wins)."""
    found: dict[int, CitedPassage] = {}
    for block in (block for message in reply for block in message.blocks):
        if isinstance(block, ToolCallBlock) and block.name == SEARCH_TOOL and not block.is_error:
            for part in block.result_parts:
                if isinstance(part, dict) and part.get("type") == PASSAGE_PART:
                    passage = CitedPassage.from_part(part)
                    if passage is not None:
                        found.setdefault(passage.number, passage)
    return found


def cited_numbers(text: str) -> list[int]:
    """The numbers `text` cites, in order of first mention."""
    numbers: dict[int, None] = {}
    for match in _MARKER.finditer(text):
        for piece in re.split(r"\s*[,，、]\s*", match.group(1)):
            numbers.setdefault(int(piece), None)
    return list(numbers)


def searched(reply: Sequence[Message]) -> bool:
    """Whether the reply called search_knowledge at all (a cheap test before `reply_sources`)."""
    return any(isinstance(block, ToolCallBlock) and block.name == SEARCH_TOOL for message in reply for block in message.blocks)


def reply_sources(reply: Sequence[Message]) -> ReplySources | None:
    """The sources to show under a reply (its messages in order); None when it searched no knowledge or found nothing."""
    found = found_passages(reply)
    if not found:
        return None
    text = "\n".join(block.text for message in reply for block in message.blocks if isinstance(block, TextBlock))
    cited = [found[n] for n in sorted(cited_numbers(text)) if n in found]
    if cited:
        return ReplySources(cited, True)
    return ReplySources([found[n] for n in sorted(found)], False)


def last_text(reply: Sequence[Message]) -> tuple[str, int] | None:
    """(message id, block index) of the reply's last text block: the sources go under it."""
    for message in reversed(reply):
        for index in range(len(message.blocks) - 1, -1, -1):
            if isinstance(message.blocks[index], TextBlock):
                return message.id, index
    return None
