"""Markdown cut along its structure: sections under their heading path, then blocks; fenced code kept whole."""

from __future__ import annotations

import re

from desktop_copilot.core.knowledge.extract_text import split_lines
from desktop_copilot.core.knowledge.extract_units import CONTINUE, HARD, SOFT, Block, HeadingPath, Passage, line_units, pack

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")


def markdown_blocks(texts: list[str]) -> list[Block]:
    """Headings (each a block of its own that leads the next), front matter, fenced code, and blank-line separated
    blocks, each under its heading path. Level 1–2 headings start HARD, deeper ones SOFT."""
    blocks: list[Block] = []
    headings = HeadingPath()
    start = -1
    fence = ""
    body = 0
    if texts and texts[0].rstrip() == "---":  # YAML front matter
        body = next((n for n in range(1, len(texts)) if texts[n].rstrip() in ("---", "...")), len(texts) - 1) + 1
        blocks.append(Block(0, body, CONTINUE))
    for k in range(body, len(texts)):
        line = texts[k]
        if fence:
            if line.lstrip(" ").startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
            continue
        if not line or line.isspace():
            if start >= 0:
                blocks.append(Block(start, k, CONTINUE, headings.path))
                start = -1
            continue
        first = line.lstrip(" ")[:1]
        if first == "#" and (match := _ATX.match(line)):
            if start >= 0:
                blocks.append(Block(start, k, CONTINUE, headings.path))
                start = -1
            level = len(match[1])
            path = headings.enter(level, (match[2] or "").strip())
            blocks.append(Block(k, k + 1, HARD if level <= 2 else SOFT, path, lead=True))
            continue
        if first in ("`", "~") and (match := _FENCE.match(line)) and not (match[1][0] == "`" and "`" in line[match.end():]):
            if start >= 0:
                blocks.append(Block(start, k, CONTINUE, headings.path))
            start = k
            fence = match[1]
            continue
        if first in ("=", "-") and start >= 0 and _SETEXT.match(line) and _is_paragraph(texts[start]):
            level = 1 if first == "=" else 2
            path = headings.enter(level, " ".join(t.strip() for t in texts[start:k]))
            blocks.append(Block(start, k + 1, HARD if level <= 2 else SOFT, path, lead=True))
            start = -1
            continue
        if start < 0:
            start = k
    if start >= 0:
        blocks.append(Block(start, len(texts), CONTINUE, headings.path))
    return blocks


def _is_paragraph(line: str) -> bool:
    """Whether a block that starts with this line can be a setext heading's text (not a list, quote, table or code)."""
    stripped = line.lstrip(" ")
    return len(line) - len(stripped) < 4 and not stripped.startswith(("- ", "* ", "+ ", ">", "|", "```", "~~~", "<")) \
        and not (stripped[:1].isdigit() and stripped.split(" ", 1)[0].rstrip(".)").isdigit())


def markdown_passages(text: str, max_chars: int) -> list[Passage]:
    units = line_units(split_lines(text), max_chars)
    return pack(units, markdown_blocks(units.text), max_chars)
