"""Passages and the packing of a file's units (lines) and structural blocks into passages of at most max_chars."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import NamedTuple

CONTINUE, SOFT, HARD = 0, 1, 2
"""How strongly a block starts something new: CONTINUE merges freely with the passage before it, SOFT (a new
definition, a minor heading) only into a passage still shorter than the minimum, HARD (a level-1/2 heading) never."""

MIN_CHARS = 300
"""Small blocks are merged until a passage reaches this size (when the structure allows)."""

_SENTENCE_ENDS = (".", "!", "?", ":", ";", "}", "。", "！", "？", "：", "；", "…", '."', ".)", "。」", "。”")
_CJK_BREAKS = "。！？；，、：」』）”"
_BLANK_RUNS = re.compile(r"\n{3,}")


@dataclass(frozen=True, slots=True)
class Passage:
    """One piece of a file as the model reads it, with where it sits in the file.

    For text, Markdown, code and HTML, start_line/end_line are 1-based source lines (inclusive). For DOCX they are
    1-based *paragraph* numbers: every paragraph of the document body counts, in order, including empty ones and
    those in table cells. For PDF they are None and `page` is the 1-based page."""

    text: str
    start_line: int | None
    end_line: int | None
    page: int | None = None
    heading: str = ""
    """The nearest heading path ("Install › Linux") or definition ("Parser.feed") the passage sits under."""


class UnreadableFile(Exception):
    """A file that cannot be indexed; str(exc) is the reason in words the user reads ("encrypted PDF", "binary file")."""


@dataclass(slots=True)
class Units:
    """A file as a list of units (lines, or the lines of paragraphs), each with the source lines it comes from.
    A blank unit separates paragraphs; a unit's location may be None (a PDF line, a separator)."""

    text: list[str] = field(default_factory=list)
    first: list[int | None] = field(default_factory=list)
    last: list[int | None] = field(default_factory=list)

    def add(self, text: str, first: int | None, last: int | None) -> None:
        self.text.append(text)
        self.first.append(first)
        self.last.append(last)


@dataclass(slots=True)
class Block:
    """A structural piece of a file: the units [i, j), how strongly it starts something new, and its heading."""

    i: int
    j: int
    brk: int = CONTINUE
    heading: str = ""
    lead: bool = False
    """A heading (or a class's head): it goes with the block after it when that one continues it or sits under it."""


class HeadingPath:
    """The headings above the current point of a document, as a path: "Install › Linux"."""

    SEPARATOR = " › "

    def __init__(self) -> None:
        self.levels: list[tuple[int, str]] = []
        self.path = ""

    def enter(self, level: int, title: str) -> str:
        """A heading of this level (1 the highest) begins; the new path."""
        while self.levels and self.levels[-1][0] >= level:
            self.levels.pop()
        if title:
            self.levels.append((level, title))
        self.path = self.SEPARATOR.join(t for _, t in self.levels)
        return self.path


def split_long_line(line: str, max_chars: int) -> list[str]:
    """A line longer than max_chars in pieces at word boundaries (CJK: after punctuation; else a hard cut)."""
    pieces = []
    start, end = 0, len(line)
    half = max_chars // 2
    while end - start > max_chars:
        limit = start + max_chars
        cut = line.rfind(" ", start + half, limit + 1)
        if cut < 0:
            cut = max(line.rfind(c, start + half, limit) for c in _CJK_BREAKS) + 1
            if cut <= 0:
                cut = limit
        if piece := line[start:cut].strip():
            pieces.append(piece)
        start = cut
        while start < end and line[start].isspace():
            start += 1
    if piece := line[start:end].strip():
        pieces.append(piece)
    return pieces


def line_units(lines: list[str], max_chars: int) -> Units:
    """Units for a line-numbered file: one per line, a line longer than max_chars cut into several on the same line."""
    if all(len(line) <= max_chars for line in lines):
        numbers: list[int | None] = list(range(1, len(lines) + 1))
        return Units(lines, numbers, numbers)
    units = Units()
    for number, line in enumerate(lines, 1):
        for piece in (split_long_line(line, max_chars) if len(line) > max_chars else (line,)):
            units.add(piece, number, number)
    return units


class Paragraph(NamedTuple):
    """A paragraph of a file read as paragraphs (HTML, DOCX): its text and the source lines (or paragraph numbers)."""

    text: str
    first: int | None
    last: int | None
    brk: int = CONTINUE
    heading: str = ""
    lead: bool = False
    tight: bool = False
    """Joined to the paragraph before it by a newline, not a blank line (list items, table rows)."""


def paragraph_units(paragraphs: list[Paragraph], max_chars: int) -> tuple[Units, list[Block]]:
    """Units and blocks for a file read as paragraphs; paragraphs are separated by a blank unit unless tight."""
    units, blocks = Units(), []
    for text, first, last, brk, heading, lead, tight in paragraphs:
        if units.text and not tight:
            units.add("", None, None)
        start = len(units.text)
        for line in text.split("\n"):
            for piece in (split_long_line(line, max_chars) if len(line) > max_chars else (line,)):
                units.add(piece, first, last)
        blocks.append(Block(start, len(units.text), brk, heading, lead))
    return units, blocks


def pack(units: Units, blocks: list[Block], max_chars: int, *, page: int | None = None) -> list[Passage]:
    """Passages of at most max_chars: heading lines glued to what follows, oversize blocks split (at blank lines, then
    after sentences, then between lines), small neighbours merged up to max_chars within the rules of `brk`."""
    texts = units.text
    blank = [not t or t.isspace() for t in texts]
    off = [k + n for k, n in enumerate(accumulate(map(len, texts), initial=0))]
    min_chars = min(MIN_CHARS, max_chars // 4)
    passages: list[Passage] = []
    ci = cj = -1
    heading = ""
    for piece in _fit(_glue_leads(blocks), texts, blank, off, max_chars):
        if ci >= 0 and piece.brk < HARD and off[piece.j] - off[ci] - 1 <= max_chars \
                and (piece.brk == CONTINUE or off[cj] - off[ci] - 1 < min_chars):
            cj = piece.j
            heading = heading or piece.heading
            continue
        if ci >= 0:
            passages.append(_passage(units, ci, cj, heading, page))
        ci, cj, heading = piece.i, piece.j, piece.heading
    if ci >= 0:
        passages.append(_passage(units, ci, cj, heading, page))
    return passages


def _glue_leads(blocks: list[Block]) -> list[Block]:
    """A heading joined to what follows it: its first paragraph, or a heading nested in it (and so on)."""
    glued: list[Block] = []
    for block in blocks:
        last = glued[-1] if glued else None
        if last is not None and last.lead and (block.brk == CONTINUE and not block.lead or _nested(block.heading, last.heading)):
            glued[-1] = Block(last.i, block.j, last.brk, block.heading, block.lead)
        else:
            glued.append(block)
    return glued


def _nested(heading: str, parent: str) -> bool:
    """Whether a heading is under another: "Install › Linux" under "Install", "Parser.feed" under "Parser"."""
    return heading.startswith(parent) and heading[len(parent):].startswith((HeadingPath.SEPARATOR, "."))


def _fit(blocks: list[Block], texts: list[str], blank: list[bool], off: list[int], max_chars: int):
    """Each block trimmed of blank units at its edges and cut into pieces of at most max_chars."""
    for block in blocks:
        i, j, brk = block.i, block.j, block.brk
        while True:
            while i < j and blank[i]:
                i += 1
            while j > i and blank[j - 1]:
                j -= 1
            if i >= j:
                break
            if off[j] - off[i] - 1 <= max_chars:
                yield Block(i, j, brk, block.heading, block.lead)
                break
            cut = end = _cut(texts, blank, off, i, j, max_chars)
            while blank[end - 1]:
                end -= 1
            yield Block(i, end, brk, block.heading)
            i, brk = cut, CONTINUE


def _cut(texts: list[str], blank: list[bool], off: list[int], i: int, j: int, max_chars: int) -> int:
    """Where to end a piece that starts at unit i: the furthest unit that fits, moved back to a blank unit or a
    sentence's end when one is in the second half of the piece."""
    k = max(bisect_right(off, off[i] + max_chars + 1, i + 1, j + 1) - 1, i + 1)
    floor = off[i] + max_chars // 2
    c = k
    while c > i + 1 and off[c] >= floor:
        if blank[c]:
            return c
        c -= 1
    c = k
    while c > i + 1 and off[c] >= floor:
        if texts[c - 1].rstrip().endswith(_SENTENCE_ENDS):
            return c
        c -= 1
    return k


def _passage(units: Units, i: int, j: int, heading: str, page: int | None) -> Passage:
    text = "\n".join(units.text[i:j])
    if "\n\n\n" in text:
        text = _BLANK_RUNS.sub("\n\n", text)
    first, last = units.first[i], units.last[j - 1]
    if first is None:
        first = next((f for f in units.first[i:j] if f is not None), None)
    if last is None:
        last = next((n for n in reversed(units.last[i:j]) if n is not None), None)
    return Passage(text, first, last, page, heading)
