"""The transcript view: follows a streaming reply to the bottom unless the user scrolled up; shows the end
of a 200 KB reply (no row near QListView's 32,767 px limit); finishing renders only the last chunk;
documents stay bounded; a long stored conversation opens lazily; what is on screen stays put."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Role, TextBlock, ToolCallBlock
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.transcript.parts import documents
from desktop_copilot.core.transcript.chunking import MAX_CHARS
from desktop_copilot.qt.transcript.parts.base import LIVE_PIECES
from desktop_copilot.qt.transcript.model import TAIL_MESSAGES, TranscriptModel
from desktop_copilot.qt.transcript.view import TranscriptView
from tests.qt.transcript.transcript_support import Later, show_view


@pytest.fixture
def streaming(qtbot):
    model = TranscriptModel()
    model.set_messages([Message.user(f"Question {n}") for n in range(30)])
    reply = Message.assistant()
    accumulate(reply, ev.Start(model="m"))
    model.append_message(reply)
    view = show_view(qtbot, model)
    view.follow()

    def grow(lines: int = 5) -> None:
        accumulate(reply, ev.TextDelta(index=0, text="More text.\n\n" * lines))
        model.message_changed(reply.id)

    return view, grow


def test_follows_the_reply_while_at_the_bottom(qtbot, streaming):
    view, grow = streaming
    bar = view.verticalScrollBar()
    for _ in range(3):
        before = bar.maximum()
        grow()
        qtbot.waitUntil(lambda: bar.maximum() > before)
        qtbot.waitUntil(lambda: bar.value() == bar.maximum())


def test_stays_put_when_the_user_scrolled_up(qtbot, streaming):
    view, grow = streaming
    bar = view.verticalScrollBar()
    bar.setValue(10)
    assert not view.stick_to_bottom
    before = bar.maximum()
    grow()
    qtbot.waitUntil(lambda: bar.maximum() > before)
    assert bar.value() == 10
    view.follow()
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    assert view.stick_to_bottom


def test_resize_relayouts_after_a_debounce(qtbot, streaming):
    view, _grow = streaming
    width = view.delegate.width
    view.resize(400, 400)
    assert view.delegate.width == width  # not on every resize event
    qtbot.waitUntil(lambda: view.delegate.width == view.viewport().width())


def _long_markdown(size: int) -> str:
    parts, n = [], 0
    while sum(map(len, parts)) < size:
        n += 1
        parts.append(f"## Part {n}\n\nProse with **bold** and `code` that wraps over a few lines of the column. " * 3 + "\n\n")
        if n % 4 == 0:
            parts.append("```python\n" + "".join(f"value_{i} = {i} * {n}\n" for i in range(12)) + "```\n\n")
    return "".join(parts) + "THE VERY LAST LINE"


def _stream(qtbot, model: TranscriptModel, view: TranscriptView, text: str, delta: int = 4096) -> Message:
    reply = Message.assistant("m")
    accumulate(reply, ev.Start(model="m"))
    model.append_message(reply)
    for start in range(0, len(text), delta):
        accumulate(reply, ev.TextDelta(index=0, text=text[start : start + delta]))
        model.message_changed(reply.id)
        view.viewport().repaint()
    return reply


def test_the_end_of_a_200_kb_reply_is_visible_at_the_bottom(qtbot, monkeypatch):
    model = TranscriptModel()
    model.set_messages([Message.user("Write a very long answer.")])
    view = show_view(qtbot, model, 800, 600)
    text = _long_markdown(200_000)
    reply = _stream(qtbot, model, view, text)
    rendered = []
    original = documents.render_tail  # how the GUI thread renders Markdown (chunks, and a piece as it finishes)
    monkeypatch.setattr(documents, "render_tail", lambda start, md, theme: rendered.append(len(md)) or original(start, md, theme))
    accumulate(reply, ev.Done(reason="end_turn"))
    model.message_changed(reply.id)
    view.scrollToBottom()
    view.viewport().repaint()
    assert sum(rendered) <= MAX_CHARS  # finishing rendered the last chunk, not 200 KB
    assert max(view.rows.heights) < 10_000  # far from the 32,767 px a QListView row can take

    height = view.viewport().height()
    last = model.rowCount() - 1
    assert view.indexAt(QPoint(400, height - 40)).row() == last
    assert view.visualRect(model.index(last, 0)).bottom() < height
    shown = view.delegate.layout(model.index(last, 0)).parts[0].documents
    assert shown[-1].documents[-1].toPlainText().rstrip().endswith("THE VERY LAST LINE")
    image = view.viewport().grab().toImage()
    background = image.pixelColor(2, 2)
    inked = sum(image.pixelColor(x, y) != background for x in range(0, image.width(), 3) for y in range(height - 160, height - 20, 3))
    assert inked > 50, "the bottom of the viewport is blank"

    env = view.delegate.env
    assert (env.documents.bytes <= env.documents.budget or len(env.documents) == 1) and len(env.live) <= LIVE_PIECES


def test_pieces_that_end_while_the_reply_streams_show_as_they_were_until_the_worker_has_their_html(qtbot):
    model = TranscriptModel()
    view = show_view(qtbot, model, 800, 2000)
    tails = view.delegate.env.tails = Later()
    text = "".join(f"Paragraph {n} with **bold {n}** words, enough of them to fill a line or two.\n\n" for n in range(40))
    reply = _stream(qtbot, model, view, text + "The open end", delta=len(text) + 20)  # pieces closed at once: never open
    rows = [row for row in range(model.rowCount()) if model.segment_at(row).kind == "text"]
    closed = [row for row in rows if not model.segment_at(row).open]
    assert len(closed) >= 2
    layouts = [view.delegate.layout(model.index(row, 0)) for row in closed]
    assert all(layout.pending for layout in layouts)  # shown as plain text meanwhile, nothing rendered here
    assert "**bold 0**" in layouts[0].parts[0].documents[1].toPlainText()
    tails.release()
    qtbot.waitUntil(lambda: not any(view.delegate.layout(model.index(row, 0)).pending for row in rows))  # no delta needed
    first = view.delegate.layout(model.index(closed[0], 0)).parts[0].documents[0]
    assert "**" not in "".join(d.toPlainText() for d in first.documents) and first.documents[0].toPlainText().startswith("Paragraph 0 with bold 0")
    accumulate(reply, ev.Done(reason="end_turn"))
    model.message_changed(reply.id)
    view.viewport().repaint()
    assert not any(view.delegate.layout(model.index(row, 0)).pending for row in range(model.rowCount()))  # finished in place


def test_rows_on_screen_stay_put_when_rows_above_change(qtbot):
    model = TranscriptModel()
    reply = Message(role=Role.ASSISTANT, blocks=[ToolCallBlock(id="t", name="search", result="found\n" * 60)])
    model.set_messages([reply, *[Message.user(f"Question {n}\n" * 3) for n in range(40)]])
    view = show_view(qtbot, model)
    view.scrollTo(model.index(20, 0), TranscriptView.ScrollHint.PositionAtTop)
    view.viewport().repaint()
    top = view.visualRect(model.index(20, 0)).top()
    model.set_expanded(reply.id, 0, True)  # row 0, far above, grows by hundreds of pixels
    view.viewport().repaint()
    assert view.visualRect(model.index(20, 0)).top() == top and not view.stick_to_bottom


@pytest.fixture
def long_store(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    store.indexer.index = lambda *args: None  # seeding without search indexing keeps the test fast
    conversation = Conversation(title="long")
    store.save_conversation(conversation)
    with store.transaction():
        for seq in range(3000):
            message = Message.user(f"Question {seq}?") if seq % 2 == 0 else Message(
                role=Role.ASSISTANT, status=MessageStatus.COMPLETED, blocks=[TextBlock(text=f"Answer {seq}.\n\n" + "Words. " * (seq % 90))])
            store.save_message(conversation.id, seq, message)
    yield store, conversation.id
    store.close()


def test_a_long_stored_conversation_opens_lazily_and_loads_as_it_scrolls(qtbot, long_store):
    store, conversation_id = long_store
    model = TranscriptModel()
    model.open_lazy(store, conversation_id)
    view = show_view(qtbot, model, 700, 500)
    view.viewport().repaint()
    assert model.rowCount() >= 3000 and model.source.loads <= TAIL_MESSAGES + 20
    last = model.rowCount() - 1
    assert view.indexAt(QPoint(300, view.viewport().height() - 30)).row() == last
    view.verticalScrollBar().setValue(0)
    view.viewport().repaint()
    assert view.indexAt(QPoint(300, 30)).data(TranscriptModel.SegmentRole).kind == "user"
    assert model.message_at(0).text == "Question 0?" and model.source.loads <= TAIL_MESSAGES + 60
    for value in range(0, view.verticalScrollBar().maximum(), 40_000):  # scroll through all of it
        view.verticalScrollBar().setValue(value)
        view.viewport().repaint()
    assert model.source.in_memory() <= model.source.capacity + 40
    assert not model.has_pending(0, 10)
