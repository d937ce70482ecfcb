"""Where Markdown code is in streamed text (fenced blocks and inline spans), and the scan that finds the next tag
outside it: markup a model shows as code is text, not thinking or a tool call."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

FENCE_OPEN = "fence_open"
FENCE_CLOSE = "fence_close"
WAIT = "wait"
"""The text from `start` on cannot be decided yet (a tag or a run of backticks may go on in the next delta)."""
END = "end"
"""Everything up to the end of the text is decided and holds no tag."""

_MARK = re.compile(r"[<`]")
_BACKTICKS = re.compile(r"`+")


@dataclass(slots=True)
class CodeSpans:
    """The code around the scanned position: the backticks of an open fence and of an open inline span (0: none),
    and whether the line holds nothing but spaces so far. An inline span ends at a line break (a lone backtick in
    prose must not hide the rest of a reply); a fence is three or more backticks that begin a line, closed by a
    line that begins with at least as many."""

    fence: int = 0
    inline: int = 0
    line_start: bool = True

    @property
    def in_code(self) -> bool:
        return bool(self.fence or self.inline)

    def plain(self, text: str) -> None:
        """Text without backticks went by."""
        line_break = text.rfind("\n")
        if line_break >= 0:
            self.inline = 0
            rest = text[line_break + 1:]
            self.line_start = not rest or rest.isspace()
        elif self.line_start and text and not text.isspace():
            self.line_start = False

    def backticks(self, run: int) -> str:
        """A run of `run` backticks went by: FENCE_OPEN or FENCE_CLOSE when it opened or closed a fence, else ""."""
        change = ""
        if self.fence:
            if self.line_start and run >= self.fence:
                self.fence, change = 0, FENCE_CLOSE
        elif self.inline:
            if run == self.inline:
                self.inline = 0
        elif self.line_start and run >= 3:
            self.fence, change = run, FENCE_OPEN
        else:
            self.inline = run
        self.line_start = False
        return change


@dataclass(frozen=True, slots=True)
class Mark:
    what: str
    """One of the tags looked for, FENCE_OPEN, FENCE_CLOSE, WAIT or END."""
    start: int
    end: int


def partial_tag_length(text: str, tags: Sequence[str]) -> int:
    """How many characters at the end of `text` could begin one of `tags` (each starts with "<" and holds no other)."""
    at = text.rfind("<", max(0, len(text) - max(map(len, tags)) + 1))
    if at < 0:
        return 0
    tail = text[at:]
    return len(tail) if any(len(tail) < len(tag) and tag.startswith(tail) for tag in tags) else 0


def next_mark(text: str, start: int, code: CodeSpans, tags: Sequence[str], *, final: bool) -> Mark:
    """Scan `text` from `start`, keeping `code` up to date, to the first of `tags` outside code, a fence that opens
    or closes, or the end. Unless `final` (no more text will come), a possible tag or backtick run that touches the
    end stops the scan with WAIT at its start; `code` then stands at that start."""
    position, size = start, len(text)
    while True:
        found = _MARK.search(text, position)
        at = found.start() if found is not None else size
        if at > position:
            code.plain(text[position:at])
        if found is None:
            return Mark(END, size, size)
        if text[at] == "`":
            run_end = _BACKTICKS.match(text, at).end()  # type: ignore[union-attr]
            if run_end == size and not final:
                return Mark(WAIT, at, size)
            change = code.backticks(run_end - at)
            if change:
                return Mark(change, at, run_end)
            position = run_end
            continue
        if not code.in_code and tags:
            for tag in tags:
                if text.startswith(tag, at):
                    code.line_start = False
                    return Mark(tag, at, at + len(tag))
            if not final and partial_tag_length(text, tags) == size - at:
                return Mark(WAIT, at, size)
        code.plain("<")
        position = at + 1
