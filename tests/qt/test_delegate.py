"""The transcript delegate: expand/collapse by click changes row heights, caches stay bounded,
streaming Markdown is not re-rendered per delta, and every kind of part paints."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, QRect, Qt

from desktop_copilot.core import events as ev
from desktop_copilot.core.accumulate import accumulate
from desktop_copilot.core.models import (
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.qt import row_layout
from desktop_copilot.qt.documents import DocumentCache, LiveMarkdown, markdown_document
from desktop_copilot.qt.parts import PaintEnv
from desktop_copilot.qt.theme import DEFAULT_THEME, TOOL_BADGES
from desktop_copilot.qt.thinking_parts import thinking_label
from desktop_copilot.qt.transcript_delegate import LAYOUT_CACHE_ROWS, TranscriptDelegate
from desktop_copilot.qt.transcript_model import TranscriptModel
from desktop_copilot.qt.transcript_view import TranscriptView

THOUGHT = "Let me think about this carefully. " * 40


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
    view = TranscriptView(model)
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    qtbot.waitExposed(view)
    return view


def _click_part(qtbot, view, row: int, part_number: int) -> None:
    index = view.model().index(row, 0)
    delegate = view.delegate
    layout = delegate.layout(index.data(TranscriptModel.MessageRole))
    column = delegate.env.column(QRect(0, 0, delegate.width, layout.height))
    part_rect = layout.part_rect(layout.parts[part_number], column)
    pos = view.visualRect(index).topLeft() + part_rect.topLeft() + QPoint(12, 10)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


@pytest.mark.parametrize("part_number", [0, 1], ids=["thinking", "tool card"])
def test_clicking_a_header_expands_and_collapses_it(qtbot, view, part_number):
    index = view.model().index(1, 0)
    message = index.data(TranscriptModel.MessageRole)
    collapsed = view.delegate.sizeHint(None, index).height()

    with qtbot.waitSignal(view.delegate.sizeHintChanged):
        _click_part(qtbot, view, 1, part_number)
    assert view.delegate.is_expanded(message.id, part_number)
    expanded = view.delegate.sizeHint(None, index).height()
    assert expanded > collapsed + 60
    qtbot.waitUntil(lambda: view.visualRect(index).height() == expanded)

    _click_part(qtbot, view, 1, part_number)
    assert not view.delegate.is_expanded(message.id, part_number)
    assert view.delegate.sizeHint(None, index).height() == collapsed


def test_clicking_text_toggles_nothing(qtbot, view):
    message = view.model().index(1, 0).data(TranscriptModel.MessageRole)
    with qtbot.assertNotEmitted(view.delegate.sizeHintChanged):
        _click_part(qtbot, view, 1, 2)
    assert not view.delegate.is_expanded(message.id, 2)


def test_caches_are_bounded_and_heights_are_kept(qtbot, monkeypatch):
    env = PaintEnv(documents=DocumentCache(capacity=50))
    delegate = TranscriptDelegate(env=env)
    delegate.set_width(700)
    model = TranscriptModel()
    messages = [Message.user(f"Question {n}: " + "words " * n) for n in range(400)]
    model.set_messages(messages)
    heights = [delegate.sizeHint(None, model.index(row, 0)).height() for row in range(model.rowCount())]
    assert len(env.documents) <= 50
    assert len(delegate._layouts) <= LAYOUT_CACHE_ROWS
    assert heights[-1] > heights[0]

    laid_out = []
    original = row_layout.layout_row
    monkeypatch.setattr("desktop_copilot.qt.transcript_delegate.layout_row", lambda *a: laid_out.append(1) or original(*a))
    assert delegate.sizeHint(None, model.index(0, 0)).height() == heights[0]
    assert laid_out == []  # an evicted row's height came from the height cache

    delegate.set_width(300)
    assert delegate.sizeHint(None, model.index(399, 0)).height() > heights[-1]


def test_streaming_markdown_renders_far_less_often_than_deltas(qtbot):
    text = "".join(f"Paragraph {n} with **bold** and `code`.\n\n" for n in range(150))
    text += "```python\n" + "".join(f"x_{n} = {n}\n" for n in range(60)) + "```\n"
    now = [0.0]
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: now[0])
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
    for message in (failed, stopped, streaming):
        view.model().append_message(message)
    for row in range(view.model().rowCount()):
        view.delegate.set_expanded(view.model().message_at(row).id, 0, True)
    view.doItemsLayout()
    image = view.grab().toImage()
    assert not image.isNull()
    kinds = [[p.kind for p in view.delegate.layout(m).parts] for m in (failed, stopped, streaming)]
    assert kinds == [["redacted", "raw", "text", "notice"], ["tool", "notice"], ["waiting"]]


def test_clicking_a_link_opens_it(qtbot, monkeypatch):
    from desktop_copilot.qt import transcript_view

    opened = []
    monkeypatch.setattr(transcript_view.QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    reply = Message.assistant()
    reply.blocks = [TextBlock(text="See [the docs](https://example.com/docs) for more.")]
    model = TranscriptModel()
    model.set_messages([reply])
    view = TranscriptView(model)
    qtbot.addWidget(view)
    view.resize(700, 300)
    view.show()
    qtbot.waitExposed(view)
    index, delegate = model.index(0, 0), view.delegate
    rect = view.visualRect(index)
    y = rect.top() + DEFAULT_THEME.row_spacing // 2 + 8
    spot = next(QPoint(x, y) for x in range(rect.left(), rect.right(), 4) if delegate.link_at(index, rect, QPoint(x, y)))
    with qtbot.waitSignal(delegate.sig_link_activated) as link:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    assert link.args == ["https://example.com/docs"] and opened == ["https://example.com/docs"]
