"""The transcript's context menu, opened with a real right click on a real view: a message copies as Markdown
(with a text/markdown form) or as plain text, a tool card copies its arguments and its whole result, and
Copy comes first while text is selected. Everything goes to the clipboard; the menu extenders still add theirs."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QEvent, QPoint, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QMenu

from desktop_copilot.core.conversation.models import Message, MessageStatus, TextBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.qt.transcript.copy_actions import MARKDOWN_MIME
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.qt.transcript.selection_support import drag, spot
from tests.qt.transcript.transcript_support import show_view

MARKDOWN = "# Plan\n\nUse **bold** moves and `code`:\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |"
AFTER = "Then [read more](https://example.com)."
RESULT = "line one\n" + "x" * 5000 + "\nTHE END"


@pytest.fixture(autouse=True)
def empty_clipboard(qapp):
    QApplication.clipboard().clear()


def _reply() -> Message:
    reply = Message.assistant()
    call = ToolCallBlock(id="call_1", name="web_fetch", arguments={"url": "https://example.com", "max": 3},
                         status=ToolCallStatus.DONE, result=RESULT)
    reply.blocks = [TextBlock(text=MARKDOWN), call, TextBlock(text=AFTER)]
    reply.status = MessageStatus.COMPLETED
    return reply


def _menu_at(qtbot, view, pos: QPoint, choose: str | None) -> list[str]:
    """Right-click at `pos` (viewport coordinates); returns the menu's entries and triggers `choose`."""
    seen: list[str] = []

    def act() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, act)
            return
        seen.extend(action.text() for action in menu.actions() if not action.isSeparator())
        chosen = next((action for action in menu.actions() if action.text() == choose), None)
        menu.close()
        if chosen is not None:
            chosen.trigger()

    QTimer.singleShot(0, act)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), event)
    assert event.type() == QEvent.Type.ContextMenu
    return seen


def _row_point(view, kind: str) -> QPoint:
    model = view.model()
    row = next(row for row in range(model.rowCount()) if model.segment_at(row).kind == kind)
    return view.visualRect(model.index(row, 0)).center()


@pytest.fixture
def menu_view(qtbot):
    model = TranscriptModel()
    model.set_messages([Message.user("Plan my **week**."), _reply()])
    view = show_view(qtbot, model, 760, 900)
    view.viewport().repaint()
    return view


def test_copy_message_as_markdown_and_as_plain_text(qtbot, menu_view):
    entries = _menu_at(qtbot, menu_view, _row_point(menu_view, "text"), "Copy message as Markdown")
    assert entries[:2] == ["Copy message as Markdown", "Copy as plain text"] and "Copy" not in entries
    clipboard = QApplication.clipboard()
    assert clipboard.text() == f"{MARKDOWN}\n\n{AFTER}"
    assert bytes(clipboard.mimeData().data(MARKDOWN_MIME)).decode() == f"{MARKDOWN}\n\n{AFTER}"

    _menu_at(qtbot, menu_view, _row_point(menu_view, "text"), "Copy as plain text")
    assert clipboard.text() == "Plan\n\nUse bold moves and code:\n\none\ntwo\n\na\tb\n1\t2\n\nThen read more."

    _menu_at(qtbot, menu_view, _row_point(menu_view, "user"), "Copy as plain text")
    assert clipboard.text() == "Plan my **week**."  # the user's words as typed


def test_a_tool_card_copies_its_arguments_and_its_whole_result(qtbot, menu_view):
    entries = _menu_at(qtbot, menu_view, _row_point(menu_view, "tool"), "Copy tool result")
    assert entries[:4] == ["Copy message as Markdown", "Copy as plain text", "Copy tool arguments", "Copy tool result"]
    assert QApplication.clipboard().text() == RESULT
    _menu_at(qtbot, menu_view, _row_point(menu_view, "tool"), "Copy tool arguments")
    assert json.loads(QApplication.clipboard().text()) == {"url": "https://example.com", "max": 3}


def test_copy_comes_first_while_text_is_selected_and_extenders_still_add_theirs(qtbot, menu_view):
    menu_view.menu_extenders.append(lambda menu, index: menu.addAction("Regenerate reply"))
    drag(qtbot, menu_view, spot(menu_view, "bold"), spot(menu_view, "moves", after=5))
    entries = _menu_at(qtbot, menu_view, spot(menu_view, "bold"), "Copy")
    assert entries[0] == "Copy" and entries[-1] == "Regenerate reply"
    assert QApplication.clipboard().text() == "bold moves"
