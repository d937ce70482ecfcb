"""Chunker and segments: pieces cover a text exactly, stay small, cut at Markdown block boundaries (or
re-open the fence/table a forced cut leaves open), come out the same fed at once or delta by delta; and
diff_rows maps a re-segmented message onto the fewest row changes."""

from __future__ import annotations

import random

from desktop_copilot.core.conversation.models import Message, MessageStatus, TextBlock, ThinkingBlock, ToolCallBlock
from desktop_copilot.core.transcript.chunking import MAX_CHARS, MAX_LINES, TARGET_CHARS, Chunker, Piece
from desktop_copilot.qt.transcript.row_geometry import RowGeometry
from desktop_copilot.core.transcript.segments import MessageSegmenter, Segment, diff_rows

PARAGRAPH = "Some **Markdown** prose that goes on for a while, with `code` and a [link](https://example.com).\n\n"


def _markdown(size: int) -> str:
    parts, n = [], 0
    while sum(map(len, parts)) < size:
        n += 1
        parts.append(PARAGRAPH)
        if n % 5 == 0:
            parts.append("```python\n" + "".join(f"x_{i} = {i}\n" for i in range(n % 30)) + "```\n\n")
        if n % 7 == 0:
            parts.append("| a | b |\n|---|---|\n" + "".join(f"| {i} | v |\n" for i in range(5)) + "\n")
    return "".join(parts)


def _check_cover(text: str, pieces: list[Piece]) -> None:
    assert pieces[0].start == 0 and pieces[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(pieces, pieces[1:]))


def test_pieces_cover_the_text_and_cut_at_blank_lines():
    text = _markdown(30_000)
    pieces = Chunker().pieces(text)
    _check_cover(text, pieces)
    assert len(pieces) > 10
    for piece in pieces[:-1]:
        assert TARGET_CHARS <= piece.end - piece.start <= MAX_CHARS
        assert text[: piece.end].endswith("\n\n") or text[: piece.end].endswith("```\n")
        assert piece.prefix == ""


def test_feeding_delta_by_delta_gives_the_same_pieces():
    text = _markdown(20_000)
    chunker, rng, at = Chunker(), random.Random(7), 0
    while at < len(text):
        at += rng.randint(1, 300)
        chunker.feed(text[:at])
    assert chunker.pieces(text) == Chunker().pieces(text)


def test_a_huge_code_block_is_cut_and_its_fence_reopened():
    code = "```python\n" + "".join(f"value_{i} = compute({i})\n" for i in range(2000)) + "```\n"
    pieces = Chunker().pieces(code)
    _check_cover(code, pieces)
    assert len(pieces) > 10
    assert all(p.end - p.start <= MAX_CHARS and code.count("\n", p.start, p.end) <= MAX_LINES for p in pieces)
    assert pieces[0].prefix == "" and all(p.prefix == "```python\n" for p in pieces[1:])


def test_a_long_table_is_cut_and_its_header_repeated():
    table = "| name | value |\n|:---|---:|\n" + "".join(f"| row {i} | {i} |\n" for i in range(600))
    pieces = Chunker().pieces(table)
    assert len(pieces) >= 5
    assert all(p.prefix == "| name | value |\n|:---|---:|\n" for p in pieces[1:])


def test_an_over_long_line_is_cut_inside_it():
    text = "word " * 5000
    pieces = Chunker().pieces(text)
    _check_cover(text, pieces)
    assert all(p.end - p.start <= MAX_CHARS for p in pieces)
    assert all(text[p.end - 1] == " " for p in pieces[:-1])  # at a space


def test_plain_text_is_cut_at_any_line_end():
    text = "".join(f"line {i}\n" for i in range(3000))
    pieces = Chunker(markdown=False).pieces(text)
    _check_cover(text, pieces)
    assert all(text[p.end - 1] == "\n" for p in pieces[:-1]) and all(p.prefix == "" for p in pieces)


def test_a_reply_becomes_a_row_per_block_and_long_text_several():
    reply = Message.assistant("m")
    reply.blocks = [ThinkingBlock(thinking="hmm " * 3000, started_at=1.0, ended_at=2.0),
                    ToolCallBlock(id="t", name="search"), TextBlock(text="  "), TextBlock(text=_markdown(12_000))]
    reply.status = MessageStatus.COMPLETED
    rows = MessageSegmenter().segments(reply, frozenset())
    assert [r.kind for r in rows[:2]] == ["thinking", "tool"] and {r.kind for r in rows[2:]} == {"text"}
    assert len(rows) > 5
    expanded = MessageSegmenter().segments(reply, {0})
    assert [r.kind for r in expanded[:3]] == ["thinking", "thinking_body", "thinking_body"]


def test_finished_pieces_stay_the_same_objects_while_a_text_streams():
    reply = Message.assistant("m")
    reply.blocks = [TextBlock()]
    reply.status = MessageStatus.STREAMING
    segmenter, text = MessageSegmenter(), _markdown(10_000)
    before = []
    for at in range(0, len(text), 500):
        reply.blocks[0].text = text[:at + 500]
        rows = segmenter.segments(reply)
        assert rows[-1].open and not any(r.open for r in rows[:-1])
        assert all(a is b for a, b in zip(before[:-1], rows))  # closed pieces are reused, not rebuilt
        before = rows


def _row(key: str, look: int = 0) -> Segment:
    return Segment("m", "text", 0, start=int(key), state=(look,))


def test_diff_rows_growth_insertion_and_removal():
    old = [_row("0"), _row("1"), _row("2")]
    grown = diff_rows(old, [old[0], old[1], _row("2", look=1), _row("3")])
    assert (grown.prefix, grown.replaced, grown.delta, grown.changed) == (3, 0, 1, (2,))
    inserted = diff_rows(old, [old[0], _row("7"), _row("8"), old[1], old[2]])
    assert (inserted.prefix, inserted.suffix, inserted.replaced, inserted.delta, inserted.changed) == (1, 2, 0, 2, ())
    removed = diff_rows(old, [old[0]])
    assert (removed.prefix, removed.delta) == (1, -2)
    replaced = diff_rows([Segment("m", "waiting")], [Segment("m", "thinking", 0)])
    assert (replaced.replaced, replaced.delta, replaced.changed) == (1, 0, (0,))


def test_row_geometry_keeps_tops_in_step():
    rows = RowGeometry()
    rows.reset([10, 20, 30])
    assert [rows.top(r) for r in range(4)] == [0, 10, 30, 60] and rows.row_at(29) == 1 and rows.row_at(999) == 2
    rows.insert(1, [5, 5])
    assert rows.total() == 70 and rows.row_at(16) == 2 and rows.measured[1] == 0
    assert rows.set(0, 15, True) == 5 and rows.top(3) == 25
    rows.remove(0, 2)
    assert rows.heights == [5, 20, 30] and rows.total() == 55


def test_a_block_that_only_carries_a_signature_for_its_provider_gets_no_row():
    from desktop_copilot.core.conversation.models import RawBlock

    reply = Message.assistant("gemini-3-pro", "gemini")
    reply.blocks = [TextBlock(text="Hello."), RawBlock(data={"type": "gemini_thought_signature", "thoughtSignature": "Cg", "signs": "text"}),
                    RawBlock(data={"type": "server_tool_use", "id": "srv_1"})]
    reply.status = MessageStatus.COMPLETED
    assert [row.kind for row in MessageSegmenter().segments(reply, frozenset())] == ["text", "raw"]
