"""The transcript delegate: a click expands/collapses thinking (rows inserted) and tool cards (a taller row),
caches stay bounded, streaming Markdown is not re-rendered per delta and finishing renders only the
last chunk, every kind of part paints, and links open."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, QRect, Qt

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import (
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.qt.transcript.parts.tail_renderer import RenderNow
from desktop_copilot.qt.transcript.parts.documents import DOCUMENT_BYTES, DocumentCache, LiveMarkdown, markdown_document
from desktop_copilot.qt.transcript.parts.base import PaintEnv
from desktop_copilot.qt.common.theme import DEFAULT_THEME, TOOL_BADGES
from desktop_copilot.qt.transcript.parts.thinking import thinking_label
from desktop_copilot.qt.transcript.parts.tool_card import RESULT_LINES, capped
from desktop_copilot.qt.transcript.delegate import LAYOUT_CACHE_ROWS, TranscriptDelegate
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.qt.transcript.transcript_support import show_view

THOUGHT = "Let me think about this carefully.\n" * 400


def _reply() -> Message:
    reply = Message.assistant("claude-test")
    reply.blocks = [
        ThinkingBlock(thinking=THOUGHT, signature="sig", started_at=100.0, ended_at=104.6),
        ToolCallBlock(id="toolu_1", name="tavily_search", arguments={"query": "weather"}, status=ToolCallStatus.DONE,
                      result="[1] Sunny\nURL: https://example.com\n" * 10, started_at=105.0, ended_at=106.2),
        TextBlock(text="It is **sunny**.\n\n```python\nprint('hi')\n```\n"),
    ]
    reply.status = MessageStatus.COMPLETED
    return reply


@pytest.fixture
def view(qtbot):
    model = TranscriptModel()
    model.set_messages([Message.user("What's the weather?"), _reply()])
    return show_view(qtbot, model, 800, 600)


def _click_row(qtbot, view, row: int) -> None:
    index = view.model().index(row, 0)
    layout = view.delegate.layout(index)
    part = layout.parts[0]
    column = view.delegate.env.column(QRect(0, 0, view.delegate.width, layout.height))
    pos = view.visualRect(index).topLeft() + layout.part_rect(part, column).topLeft() + QPoint(12, 10)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_clicking_the_thinking_header_inserts_its_text_as_rows(qtbot, view):
    model = view.model()
    message = model.message_at(1)
    assert [model.segment_at(r).kind for r in range(model.rowCount())] == ["user", "thinking", "tool", "text"]
    with qtbot.waitSignal(model.rowsInserted):
        _click_row(qtbot, view, 1)
    assert view.delegate.is_expanded(message.id, 0)
    kinds = [model.segment_at(r).kind for r in range(model.rowCount())]
    assert kinds[:3] == ["user", "thinking", "thinking_body"] and kinds.count("thinking_body") >= 3
    view.viewport().repaint()
    assert max(view.rows.heights) < 8000  # a long thought is several rows, none of them tall
    _click_row(qtbot, view, 1)
    assert not view.delegate.is_expanded(message.id, 0) and model.rowCount() == 4


def test_clicking_a_tool_card_expands_it(qtbot, view):
    index = view.model().index(2, 0)
    collapsed = view.delegate.row_height(index)
    _click_row(qtbot, view, 2)
    expanded = view.delegate.row_height(view.model().index(2, 0))
    assert expanded > collapsed + 60
    qtbot.waitUntil(lambda: view.visualRect(view.model().index(2, 0)).height() == expanded)
    _click_row(qtbot, view, 2)
    assert view.delegate.row_height(view.model().index(2, 0)) == collapsed


def test_clicking_text_toggles_nothing(qtbot, view):
    with qtbot.assertNotEmitted(view.model().dataChanged):
        _click_row(qtbot, view, 3)


def test_a_huge_tool_result_is_capped():
    shown = capped("line\n" * 10_000)
    assert shown.count("\n") == RESULT_LINES and "9,921 more lines" in shown
    assert capped("short") == "short"


def test_caches_are_bounded_and_rows_off_screen_are_only_estimated(qtbot):
    env = PaintEnv(documents=DocumentCache(budget_mb=1))
    delegate = TranscriptDelegate(env=env)
    delegate.set_width(700)
    model = TranscriptModel()
    model.set_messages([Message.user(f"Question {n}: " + "words " * n) for n in range(400)])
    heights = [delegate.row_height(model.index(row, 0)) for row in range(model.rowCount())]
    assert env.documents.bytes <= env.documents.budget and len(env.documents) <= 2**20 // DOCUMENT_BYTES < 400
    assert len(delegate._layouts) <= LAYOUT_CACHE_ROWS
    assert heights[-1] > heights[0]
    estimates = [delegate.estimate(model.segment_at(row), model.placement(row)) for row in (0, 399)]
    assert estimates[1] > estimates[0] and 0.5 < estimates[1] / heights[-1] < 2
    delegate.set_width(300)
    assert delegate.row_height(model.index(399, 0)) > heights[-1]


def test_streaming_markdown_renders_far_less_often_than_deltas(qtbot):
    text = "".join(f"Paragraph {n} with **bold** and `code`.\n\n" for n in range(150))
    text += "```python\n" + "".join(f"x_{n} = {n}\n" for n in range(60)) + "```\n"
    now = [0.0]
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: now[0], tails=RenderNow())
    deltas = [text[i : i + 5] for i in range(0, len(text), 5)]
    shown = ""
    for delta in deltas:
        shown += delta
        now[0] += 0.002  # a delta every 2 ms
        documents = live.update(shown, 600)
    assert len(deltas) > 1000
    naive = sum(len(text[: i + 5]) for i in range(0, len(text), 5))  # re-rendering everything per delta
    assert live.rendered_chars < 3 * len(text) < naive / 100
    exact = markdown_document(text, 600, DEFAULT_THEME).toPlainText()
    chunks, tail = documents
    streamed = "".join(document.toPlainText() for document in [*chunks.documents, tail])
    assert re.sub(r"\s+", "", streamed) == re.sub(r"\s+", "", exact)


def test_finishing_a_live_piece_renders_only_its_last_chunk(qtbot):
    text = "".join(f"Paragraph {n} with **bold**.\n\n" for n in range(40)) + "The last words"
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: 0.0, tails=RenderNow())
    live.update(text, 600)
    before = live.rendered_chars
    stack = live.finish(text, 600)
    assert live.rendered_chars - before == len("The last words")
    assert stack.documents[-1].toPlainText().strip() == "The last words"


def test_thinking_labels_and_badges():
    live = ThinkingBlock(thinking="…", started_at=100.0)
    done = ThinkingBlock(thinking="…", started_at=100.0, ended_at=104.6)
    assert thinking_label(live, 104.2) == "Thinking… 4 s"
    assert thinking_label(done, 200.0) == "Thought for 4 s"
    assert len({badge.background for badge in TOOL_BADGES.values()}) == len(ToolCallStatus)
    assert set(TOOL_BADGES) == set(ToolCallStatus)


def test_every_kind_of_part_paints(qtbot, view):
    streaming = Message.assistant()
    accumulate(streaming, ev.Start(model="m"))
    failed = Message.assistant()
    failed.blocks = [RedactedThinkingBlock(data="xyz"), RawBlock(data={"type": "server_tool_use"}), TextBlock(text="Partial")]
    failed.status, failed.error = MessageStatus.FAILED, "Anthropic answered 401: invalid x-api-key"
    stopped = Message.assistant()
    stopped.blocks = [ToolCallBlock(id="t", name="slow", partial_arguments='{"q": "x', status=ToolCallStatus.CANCELLED)]
    stopped.status, stopped.error = MessageStatus.STOPPED, "Stopped by the user."
    cut_off = Message.assistant()
    cut_off.blocks = [TextBlock(text="def parse(")]
    cut_off.status, cut_off.stop_reason = MessageStatus.COMPLETED, "max_tokens"
    refused = Message.assistant()
    refused.status, refused.stop_reason, refused.error = MessageStatus.COMPLETED, "refusal", "Claude declined to answer this request."
    messages = (failed, stopped, cut_off, refused, streaming)
    model = view.model()
    for message in messages:
        model.append_message(message)
    for message in messages:
        model.set_expanded(message.id, 0, True)
    view.resize(800, 3000)
    image = view.viewport().grab().toImage()
    kinds = [[model.segment_at(row).kind for row in model.rows_of(m.id)] for m in messages]
    assert kinds == [["redacted", "raw", "text", "notice"], ["tool", "notice"], ["text", "notice"], ["notice"], ["waiting"]]
    assert all(view.rows.measured[row] for row in range(model.rowCount()))
    for row in range(model.rowCount()):  # every row put ink on the screen: more than one colour inside its rect
        rect = view.visualRect(model.index(row, 0)).intersected(image.rect())
        assert not rect.isEmpty(), f"row {row} has no area"
        colours = {image.pixel(x, y) for x in range(rect.left(), rect.right(), 3) for y in range(rect.top(), rect.bottom(), 2)}
        assert len(colours) > 1, f"row {row} ({model.segment_at(row).kind}) painted nothing"


def test_clicking_a_link_opens_it(qtbot, monkeypatch):
    from desktop_copilot.qt.transcript import view as transcript_view

    opened = []
    monkeypatch.setattr(transcript_view.QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    reply = Message.assistant()
    reply.blocks = [TextBlock(text="See [the docs](https://example.com/docs) for more.")]
    reply.status = MessageStatus.COMPLETED
    model = TranscriptModel()
    model.set_messages([reply])
    view = show_view(qtbot, model, 700, 300)
    view.viewport().repaint()
    index, delegate = model.index(0, 0), view.delegate
    rect = view.visualRect(index)
    y = rect.top() + DEFAULT_THEME.row_spacing + 8
    spot = next(QPoint(x, y) for x in range(rect.left(), rect.right(), 4) if delegate.link_at(index, rect, QPoint(x, y)))
    with qtbot.waitSignal(delegate.sig_link_clicked) as link:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    assert link.args == ["https://example.com/docs", "the docs"] and opened == ["https://example.com/docs"]
