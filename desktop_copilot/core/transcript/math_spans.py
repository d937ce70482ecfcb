"""Finds the LaTeX formulas in Markdown text: `$…$` and `\\(…\\)` inline, `$$…$$` and `\\[…\\]` display; never inside
code spans or fenced code; a formula whose closing delimiter has not arrived yet stays text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop_copilot.core.transcript.markdown_blocks import Line, MarkdownBlockScanner

MAX_FORMULA_CHARS = 2000
"""A longer "formula" is left as text: rendering it would cost more than it shows."""

_QUOTE_PREFIX = re.compile(r"[ \t]*(?:>[ \t]?)+")
_SIGNIFICANT = re.compile(r"[\\`$]")
_CLOSERS = {"$$": "$$", "\\[": "\\]", "\\(": "\\)"}


@dataclass(frozen=True, slots=True)
class MathSpan:
    start: int
    end: int
    """`text[start:end]` is the formula with its delimiters, as written."""
    latex: str
    """What lies between the delimiters (with blockquote markers of continuation lines taken out)."""
    display: bool
    """`$$…$$` and `\\[…\\]`: a formula on its own line, centred; `$…$` and `\\(…\\)` flow with the text."""


def find_math_spans(text: str) -> list[MathSpan]:
    """The formulas of `text`, in order and not overlapping. Formulas never cross a blank line or a code fence
    (paragraphs are scanned one at a time); inline ones stay on one line.

    `$` follows Pandoc's rule, so prices stay text: the opening `$` has no space after it, the first unescaped `$`
    after it closes, and that one has no space before it and no digit after it ("$5 and $10" is no formula).
    A formula has no backtick in it (so "$5 and `$x$`" is a price and a code span)."""
    spans: list[MathSpan] = []
    if "$" not in text and "\\(" not in text and "\\[" not in text:
        return spans
    for start, end in _paragraphs(text):
        _scan(text, start, end, spans)
    return spans


def _paragraphs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of text lines: what lies between blank lines and outside fenced code."""
    runs: list[tuple[int, int]] = []
    blocks = MarkdownBlockScanner()
    run_start: int | None = None
    position = 0
    while position <= len(text):
        newline = text.find("\n", position)
        line_end = len(text) if newline < 0 else newline
        kind = blocks.line(text[position:line_end])
        if kind is Line.TEXT:
            run_start = position if run_start is None else run_start
        elif run_start is not None:
            runs.append((run_start, position))
            run_start = None
        if newline < 0:
            break
        position = newline + 1
    if run_start is not None:
        runs.append((run_start, len(text)))
    return runs


def _scan(text: str, position: int, end: int, spans: list[MathSpan]) -> None:
    while (found := _SIGNIFICANT.search(text, position, end)) is not None:
        position = found.start()
        char = text[position]
        if char == "\\":
            pair = text[position : position + 2]
            if pair in ("\\(", "\\[") and (span := _delimited(text, position, end, pair, _CLOSERS[pair])):
                spans.append(span)
                position = span.end
            else:
                position += 2  # an escaped character, `\\` included, is never a delimiter
        elif char == "`":
            position = _after_code_span(text, position, end)
        elif char == "$":
            if text.startswith("$$", position):
                span = _delimited(text, position, end, "$$", "$$")
                if span is None:
                    position += 2
                    continue
            else:
                span = _dollar(text, position, end)
                if span is None:
                    position += 1
                    continue
            spans.append(span)
            position = span.end


def _after_code_span(text: str, position: int, end: int) -> int:
    """Past the code span that opens here, or past the backtick run when nothing closes it (then it is literal).
    CommonMark: a run of n backticks is closed by the next run of exactly n."""
    run_end = position
    while run_end < end and text[run_end] == "`":
        run_end += 1
    run = run_end - position
    search = run_end
    while (found := text.find("`", search, end)) >= 0:
        close_end = found
        while close_end < end and text[close_end] == "`":
            close_end += 1
        if close_end - found == run:
            return close_end
        search = close_end
    return run_end


def _closing(text: str, position: int, end: int, closer: str) -> int:
    """Where `closer` next appears unescaped from `position`, or -1: inside a formula a backslash takes the next
    character with it, so `\\$` does not close `$…$` and `\\\\)` does not close `\\(…\\)`."""
    while position < end:
        if text.startswith(closer, position) and position + len(closer) <= end:
            return position
        position += 2 if text[position] == "\\" else 1
    return -1


def _delimited(text: str, position: int, end: int, opener: str, closer: str) -> MathSpan | None:
    display = opener != "\\("
    inner_start = position + len(opener)
    limit = end if display else _line_end(text, position, end)
    close = _closing(text, inner_start, limit, closer)
    if close < 0:
        return None
    inner = text[inner_start:close]
    if not inner.strip() or len(inner) > MAX_FORMULA_CHARS or "`" in inner:
        return None
    return MathSpan(position, close + len(closer), _without_quote_markers(text, position, inner), display)


def _dollar(text: str, position: int, end: int) -> MathSpan | None:
    inner_start = position + 1
    if inner_start >= end or text[inner_start].isspace():
        return None
    close = _closing(text, inner_start, _line_end(text, position, end), "$")
    if close < 0 or text[close - 1].isspace() or (close + 1 < end and text[close + 1].isdigit()):
        return None
    inner = text[inner_start:close]
    if len(inner) > MAX_FORMULA_CHARS or "`" in inner:
        return None
    return MathSpan(position, close + 1, inner, False)


def _line_end(text: str, position: int, end: int) -> int:
    newline = text.find("\n", position, end)
    return end if newline < 0 else newline


def _without_quote_markers(text: str, position: int, inner: str) -> str:
    """A display formula inside a blockquote: its continuation lines lose their `>` markers."""
    if "\n" not in inner:
        return inner
    line_start = text.rfind("\n", 0, position) + 1
    if not _QUOTE_PREFIX.match(text, line_start) or ">" not in text[line_start:position]:
        return inner
    first, *rest = inner.split("\n")
    return "\n".join([first, *(_QUOTE_PREFIX.sub("", line, count=1) if line.lstrip().startswith(">") else line for line in rest)])
