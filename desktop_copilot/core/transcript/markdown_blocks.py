"""One incremental scanner of Markdown block structure, line by line, with CommonMark's fence rules: what
the row chunker and the streaming renderer both use to find where a block ends."""

from __future__ import annotations

import re
from enum import Enum

_OPENING = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


class Line(Enum):
    BLANK = "blank"
    TEXT = "text"
    FENCE_OPEN = "fence_open"
    CODE = "code"
    FENCE_CLOSE = "fence_close"

    @property
    def ends_block(self) -> bool:
        """A chunk may end after this line: a blank line, or the fence closing a code block."""
        return self in (Line.BLANK, Line.FENCE_CLOSE)


class MarkdownBlockScanner:
    """Fed one complete line at a time (without its newline). CommonMark fences: an opening fence is three
    or more backticks or tildes indented by at most three spaces (a backtick fence's info string has no
    backtick); the closing fence uses the same character, is at least as long, is indented by at most
    three spaces and has nothing after it but spaces. A code block left open runs to the end of the text."""

    def __init__(self) -> None:
        self.fence: str | None = None
        """The opening fence's run of backticks or tildes while inside a fenced code block."""
        self.fence_line = ""
        """The line that opened the current fenced code block."""

    def line(self, line: str) -> Line:
        if self.fence is not None:
            if self._closes(line):
                self.fence = None
                return Line.FENCE_CLOSE
            return Line.CODE
        match = _OPENING.match(line)
        if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            self.fence, self.fence_line = match.group(1), line
            return Line.FENCE_OPEN
        return Line.TEXT if line.strip() else Line.BLANK

    def _closes(self, line: str) -> bool:
        indent = len(line) - len(line.lstrip(" "))
        if indent > 3:
            return False
        body = line.strip(" \t")
        run = len(body) - len(body.lstrip(self.fence[0]))
        return run >= len(self.fence) and body == self.fence[0] * run
