"""Cuts a growing text incrementally into pieces of bounded size, at Markdown block boundaries where it can."""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop_copilot.core.transcript.markdown_blocks import Line, MarkdownBlockScanner

TARGET_CHARS = 1200
"""A piece is closed at the first Markdown block boundary after this many characters."""
MAX_CHARS = 4000
"""... and forced closed at a line end (or inside an over-long line) after this many,"""
MAX_LINES = 120
"""... or after this many lines, so a piece never lays out taller than a few thousand pixels."""

FINGERPRINT_CHARS = 32
"""How many of the last characters fed are compared with the next text (see Chunker.feed)."""
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


@dataclass(frozen=True, slots=True)
class Piece:
    start: int
    end: int
    prefix: str = ""
    """Markdown put before the text when it is rendered: the fence or table header a forced cut left open."""


class Chunker:
    """Feeds on a text that only grows; `closed` are the finished pieces, the rest of the text is the open one.
    `feed` scans only the lines added since the previous call, so its cost does not grow with the text."""

    def __init__(self, markdown: bool = True) -> None:
        self.markdown = markdown
        self.closed: list[Piece] = []
        self.start = 0
        self.prefix = ""
        self._scanned = 0
        self._fed = 0
        self._fed_end = ""
        """Length and last characters of the text fed last: a later text must repeat them there, else it was
        replaced, not extended, and the cutting starts over. (A copy of a few characters, never the text itself.)"""
        self._lines = 0
        self._blocks = MarkdownBlockScanner()
        self._block_start: int | None = 0
        """Where the current Markdown block (paragraph, table, list) began; None between blocks."""

    def feed(self, text: str) -> list[Piece]:
        """Advance over `text` (the previous text plus more); returns `closed`."""
        if len(text) < self._fed or not text.startswith(self._fed_end, self._fed - len(self._fed_end)):
            self.__init__(self.markdown)  # the text was replaced, not extended: start over
        self._fed, self._fed_end = len(text), text[max(0, len(text) - FINGERPRINT_CHARS) :]
        while (newline := text.find("\n", self._scanned)) >= 0:
            line_start, self._scanned = self._scanned, newline + 1
            self._lines += 1
            boundary = self._scan_line(text[line_start:newline], line_start)
            size = self._scanned - self.start
            if (boundary and size >= TARGET_CHARS) or size >= MAX_CHARS or self._lines >= MAX_LINES:
                self._cut(text, self._scanned, forced=not boundary)
        while len(text) - self.start > MAX_CHARS:  # an over-long line: cut inside it
            limit = self.start + MAX_CHARS
            cut = text.rfind(" ", max(self.start + 1, self._scanned, limit - MAX_CHARS // 4), limit)
            self._cut(text, cut + 1 if cut >= 0 else limit, forced=True)
        return self.closed

    def pieces(self, text: str) -> list[Piece]:
        """The closed pieces and the open one (empty only when the whole text is)."""
        self.feed(text)
        if self.start < len(text) or not self.closed:
            return [*self.closed, Piece(self.start, len(text), self.prefix)]
        return list(self.closed)

    def _scan_line(self, line: str, line_start: int) -> bool:
        """Track fences and blocks; True when a block ends after this line (a piece may end here)."""
        if not self.markdown:
            return True
        kind = self._blocks.line(line)
        if kind.ends_block:
            self._block_start = None
        elif kind is Line.TEXT and self._block_start is None:
            self._block_start = line_start
        return kind.ends_block

    def _cut(self, text: str, at: int, forced: bool) -> None:
        self.closed.append(Piece(self.start, at, self.prefix))
        self.prefix = self._reopen(text, at) if forced and self.markdown else ""
        self.start, self._lines = at, 0

    def _reopen(self, text: str, at: int) -> str:
        """What the next piece must start with to render like the rest of the block it continues."""
        if self._blocks.fence is not None:
            return self._blocks.fence_line + "\n"
        if self._block_start is not None:
            header_end = text.find("\n", self._block_start)
            rule_end = text.find("\n", header_end + 1) if header_end >= 0 else -1
            header = text[self._block_start : header_end]
            if 0 <= rule_end < at and header.lstrip().startswith("|") and _TABLE_RULE.match(text[header_end + 1 : rule_end]):
                return text[self._block_start : rule_end + 1]
        return ""
