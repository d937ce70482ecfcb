"""The shared Markdown block scanner follows CommonMark's fence rules, and the chunker and the streaming
renderer's splitter agree with it (and with markdown-it) on where code blocks end."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from desktop_copilot.core.transcript.chunking import Chunker
from desktop_copilot.core.transcript.markdown_blocks import Line, MarkdownBlockScanner


def kinds(text: str) -> list[Line]:
    scanner = MarkdownBlockScanner()
    return [scanner.line(line) for line in text.split("\n")]


@pytest.mark.parametrize("text, expected", [
    ("```\ncode\n```", [Line.FENCE_OPEN, Line.CODE, Line.FENCE_CLOSE]),
    ("   ~~~ py\nx\n   ~~~", [Line.FENCE_OPEN, Line.CODE, Line.FENCE_CLOSE]),  # three spaces: still a fence
    ("    ```\nx", [Line.TEXT, Line.TEXT]),  # four spaces: indented code, not a fence
    ("```` md\n```\nstill code\n````", [Line.FENCE_OPEN, Line.CODE, Line.CODE, Line.FENCE_CLOSE]),  # shorter does not close
    ("~~~\n```\n~~~", [Line.FENCE_OPEN, Line.CODE, Line.FENCE_CLOSE]),  # the other character does not close
    ("```\n``` not a close\n```  ", [Line.FENCE_OPEN, Line.CODE, Line.FENCE_CLOSE]),  # only spaces may follow
    ("``` a`b\nx", [Line.TEXT, Line.TEXT]),  # a backtick fence's info string has no backtick
    ("```\n    ```", [Line.FENCE_OPEN, Line.CODE]),  # a closing fence indented four spaces is code
    ("text\n\nmore", [Line.TEXT, Line.BLANK, Line.TEXT]),
])
def test_fence_rules(text, expected):
    assert kinds(text) == expected


def _code_contents(text: str) -> list[str]:
    return [t.content for t in MarkdownIt("commonmark").parse(text) if t.type == "fence"]


@pytest.mark.parametrize("text", [
    "```` md\n```\ninner\n```\n````\nafter\n",
    "   ```\nindented three\n   ```\n\nafter\n",
    "~~~\n```\n~~~\n\ntext\n",
])
def test_chunk_cuts_never_fall_inside_what_markdown_it_reads_as_code(text):
    filler = "A paragraph that is long enough to make the chunker want to cut soon. " * 20 + "\n\n"
    whole = filler + text + filler
    pieces = Chunker().pieces(whole)
    rendered = [_code_contents(pieces_text) for pieces_text in (p.prefix + whole[p.start:p.end] for p in pieces)]
    assert sum(rendered, []) == _code_contents(whole)
