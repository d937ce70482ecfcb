"""Selecting text in a real transcript view with the mouse: a drag across two rows of one reply and across
messages, Ctrl+C puts exactly the selected text on the clipboard, double-click takes a word and triple-click a
paragraph, a click elsewhere clears, the selection stays on its words while the reply streams on, and links
still open on a plain click (not after a drag)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Message, MessageStatus
from desktop_copilot.qt.transcript.link_opener import LinkOpener
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.qt.transcript.selection_support import copy_keys, drag, reply, spot
from tests.qt.transcript.transcript_support import show_view

FIRST = " ".join(f"alpha{n}" for n in range(170)) + " closing words of the first piece."
SECOND = "Second piece begins here and runs on for a while."
TEXT = f"{FIRST}\n\n{SECOND}\n"


@pytest.fixture(autouse=True)
def empty_clipboard(qapp):
    QApplication.clipboard().clear()


def _rows_of_kind(model: TranscriptModel, kind: str) -> list[int]:
    return [row for row in range(model.rowCount()) if model.segment_at(row).kind == kind]


def test_a_drag_across_two_rows_of_a_reply_copies_exactly_what_it_covers(qtbot):
    model = TranscriptModel()
    model.set_messages([reply(TEXT)])
    view = show_view(qtbot, model, 700, 700)
    assert _rows_of_kind(model, "text") == [0, 1]  # the reply is cut into two rows
    view.viewport().repaint()

    drag(qtbot, view, spot(view, "closing", row=0), spot(view, "here", row=1))
    assert view.has_selection()
    copy_keys(qtbot, view)
    assert QApplication.clipboard().text() == "closing words of the first piece.\n\nSecond piece begins "
    assert "closing words" in QApplication.clipboard().mimeData().html()

    drag(qtbot, view, spot(view, "here", row=1), spot(view, "alpha169", row=0))  # backwards gives the same kind of range
    copy_keys(qtbot, view)
    assert QApplication.clipboard().text() == "alpha169 closing words of the first piece.\n\nSecond piece begins "


def test_a_drag_from_the_question_into_the_answer_copies_both(qtbot):
    model = TranscriptModel()
    model.set_messages([Message.user("Where is the **tide** table?"), reply("It is on *page* four.")])
    view = show_view(qtbot, model)
    view.viewport().repaint()
    drag(qtbot, view, spot(view, "tide"), spot(view, "four"))
    copy_keys(qtbot, view)
    assert QApplication.clipboard().text() == "tide** table?\n\nIt is on page "  # the user's text is shown as typed


def test_double_click_selects_a_word_and_triple_click_its_paragraph(qtbot):
    model = TranscriptModel()
    model.set_messages([reply("First paragraph with a remarkable word in it.\n\nAnother paragraph.")])
    view = show_view(qtbot, model)
    view.viewport().repaint()
    where = spot(view, "remarkable", after=3)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert view.selected_text() == "remarkable"
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=where)  # the third click, soon after
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert view.selected_text() == "First paragraph with a remarkable word in it."
    copy_keys(qtbot, view)
    assert QApplication.clipboard().text() == "First paragraph with a remarkable word in it."


def test_a_click_elsewhere_clears_the_selection_and_copy_then_copies_nothing(qtbot):
    model = TranscriptModel()
    model.set_messages([reply("Some words to select, and more words.")])
    view = show_view(qtbot, model)
    view.viewport().repaint()
    changes = []
    view.sig_selection_changed.connect(changes.append)
    drag(qtbot, view, spot(view, "words"), spot(view, "select"))
    assert view.selected_text() == "words to "
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spot(view, "more"))
    assert not view.has_selection() and changes[0] is True and changes[-1] is False
    QApplication.clipboard().setText("untouched")
    copy_keys(qtbot, view)
    assert QApplication.clipboard().text() == "untouched"  # not the row's whole message, as a plain item view would


def _highlighted_pixels(view) -> int:
    image = view.viewport().grab().toImage()
    colours = {view.palette().color(group, QPalette.ColorRole.Highlight).rgb()
               for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive)}
    return sum(image.pixel(x, y) in colours for x in range(0, image.width(), 2) for y in range(0, image.height(), 2))


def test_the_selection_stays_on_its_words_while_the_reply_streams_on(qtbot):
    model = TranscriptModel()
    streaming = reply("The opening line of a reply still being written.\n\n", status=MessageStatus.STREAMING)
    model.set_messages([Message.user("Tell me."), streaming])
    view = show_view(qtbot, model, 700, 600)
    view.viewport().repaint()
    drag(qtbot, view, spot(view, "opening"), spot(view, "still"))
    assert view.selected_text() == "opening line of a reply "
    painted = _highlighted_pixels(view)
    assert painted > 20

    rows = model.rowCount()
    for number in range(40):  # long enough to be cut into more rows
        accumulate(streaming, ev.TextDelta(message_id=streaming.id, index=0, text=f"Delta paragraph {number} " + "word " * 12 + "\n\n"))
        model.message_changed(streaming.id)
        view.viewport().repaint()
    assert model.rowCount() > rows
    assert view.selected_text() == "opening line of a reply "
    accumulate(streaming, ev.Done(reason="end_turn"))
    model.message_changed(streaming.id)
    view.viewport().repaint()
    copy_keys(qtbot, view)
    assert QApplication.clipboard().text() == "opening line of a reply "
    view.verticalScrollBar().setValue(0)
    view.viewport().repaint()
    assert _highlighted_pixels(view) > 20  # still painted where the words are


class Opened:
    def __init__(self) -> None:
        self.urls: list[str] = []

    def open_url(self, url) -> bool:
        self.urls.append(url.toString())
        return True


def test_links_open_on_a_click_but_not_after_a_drag_from_them(qtbot):
    model = TranscriptModel()
    model.set_messages([reply("Read [the documentation page](https://example.com/docs) before you start.")])
    view = show_view(qtbot, model)
    opened = Opened()
    view.link_opener = LinkOpener(view, opened.open_url, lambda *args: False)
    view.viewport().repaint()
    link = spot(view, "documentation", after=2)

    drag(qtbot, view, link, spot(view, "before"))
    assert opened.urls == [] and view.selected_text() == "cumentation page "
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=link)
    assert opened.urls == ["https://example.com/docs"] and not view.has_selection()


def test_a_drag_past_the_last_row_selects_to_the_end(qtbot):
    model = TranscriptModel()
    model.set_messages([reply("Only a short reply here.")])
    view = show_view(qtbot, model)
    view.viewport().repaint()
    drag(qtbot, view, spot(view, "short"), QPoint(view.viewport().width() // 2, view.viewport().height() - 2))
    assert view.selected_text() == "short reply here."
