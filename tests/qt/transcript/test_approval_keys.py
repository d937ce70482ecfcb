"""The approval card from the keyboard in a real transcript view: Tab from the field before it moves the focus onto
the waiting card's first button (a focus ring is painted there), Right / Left and Tab / Shift+Tab go through the
buttons and on to the next waiting card, Enter or Space presses the button through the same path as a click, Esc
presses "Deny…" (the reason box; Cancel sends nothing), the ring moves on to the next card once one is answered,
and the view's accessible description says which call waits and which button has the focus."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.view import TranscriptView
from tests.qt.transcript.parts.test_approval_card import decide, hotspot_rect, waiting_reply
from tests.qt.transcript.test_approval_clicks import _answer_dialog
from desktop_copilot.core.approval.decisions import Decision

KEPT: list[QWidget] = []


@pytest.fixture(autouse=True)
def _let_go():
    yield
    while KEPT:
        KEPT.pop().close()


def _window(qtbot, *calls, height: int = 900):
    """A message box above a transcript with a reply whose calls wait, as in the window (Tab goes from one to the other)."""
    reply = waiting_reply(*calls)
    model = TranscriptModel()
    model.set_messages([reply])
    window = QWidget()
    column = QVBoxLayout(window)
    view = TranscriptView(model)
    box = QLineEdit()
    column.addWidget(view, 1)
    column.addWidget(box)
    QWidget.setTabOrder(box, view)
    qtbot.addWidget(window)
    window.resize(800, height)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    decisions: list[tuple[str, str, str]] = []
    view.sig_tool_decision.connect(lambda *args: decisions.append(args))
    KEPT.append(window)  # qtbot holds it weakly
    return view, box, reply, decisions


def ring(view) -> tuple:
    return view.delegate.env.cards.focused


def test_tab_from_the_box_puts_a_focus_ring_on_the_first_button(qtbot):
    view, box, _reply, decisions = _window(qtbot, ("call_1", {"path": "a.txt"}))
    assert view.focusPolicy() == Qt.FocusPolicy.TabFocus  # only while a card waits
    view.viewport().repaint()
    before = view.viewport().grab().toImage()
    qtbot.keyClick(box, Qt.Key.Key_Tab)
    assert view.hasFocus() and ring(view) == ("call_1", "decide", "allow_once")
    view.viewport().repaint()
    rect = hotspot_rect(view, "Allow once").adjusted(-4, -4, 4, 4)
    assert view.viewport().grab().toImage().copy(rect) != before.copy(rect)  # the ring is painted
    assert view.approval_keys.focused_rect() == hotspot_rect(view, "Allow once")
    assert "write_file waits for your approval. Allow once, button 1 of" in view.accessibleDescription()
    assert decisions == []


def test_right_left_and_tab_go_through_the_buttons(qtbot):
    view, box, _reply, _decisions = _window(qtbot, ("call_1", {"path": "a.txt"}))
    qtbot.keyClick(box, Qt.Key.Key_Tab)
    seen = [ring(view)[2]]
    for _ in range(4):
        qtbot.keyClick(view, Qt.Key.Key_Right)
        seen.append(ring(view)[2])
    assert seen == ["allow_once", "allow_conversation", "allow_always", "deny", "allow_once"]  # round
    qtbot.keyClick(view, Qt.Key.Key_Left)
    assert ring(view)[2] == "deny"
    qtbot.keyClick(view, Qt.Key.Key_Home)
    assert ring(view)[2] == "allow_once"
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    assert ring(view)[2] == "allow_conversation" and view.hasFocus()
    qtbot.keyClick(view, Qt.Key.Key_Backtab)
    qtbot.keyClick(view, Qt.Key.Key_Backtab)  # before the first button: out of the transcript
    assert box.hasFocus() and ring(view) == ()
    qtbot.keyClick(box, Qt.Key.Key_Backtab)  # back in from below: onto the last button
    assert view.hasFocus() and ring(view)[2] == "deny"


@pytest.mark.parametrize("key", [Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space])
def test_enter_presses_the_button_with_the_ring_as_a_click_does(qtbot, key):
    view, box, reply, decisions = _window(qtbot, ("call_1", {"path": "a.txt"}))
    qtbot.keyClick(box, Qt.Key.Key_Tab)
    qtbot.keyClick(view, Qt.Key.Key_Right)
    qtbot.keyClick(view, key)
    assert decisions == [("call_1", "allow_conversation", "")]
    qtbot.keyClick(view, key)  # the buttons are gone ("Sending…"): nothing is decided twice
    assert len(decisions) == 1 and ring(view) == ()
    decide(view.model(), reply, "call_1", Decision.ALLOW_CONVERSATION)
    qtbot.waitUntil(lambda: view.focusPolicy() == Qt.FocusPolicy.NoFocus)  # nothing waits: Tab no longer stops here


def test_esc_denies_through_the_reason_box_and_cancel_sends_nothing(qtbot):
    view, box, reply, decisions = _window(qtbot, ("call_1", {"path": "a.txt"}))
    qtbot.keyClick(box, Qt.Key.Key_Tab)
    seen = _answer_dialog(qtbot, None)
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert seen == ["Deny write_file", "Reason for the model (optional):"] and decisions == []
    view.window().activateWindow()  # as the desktop does when the box closes (offscreen: nobody does)
    qtbot.waitUntil(view.hasFocus)
    assert ring(view) == ("call_1", "decide", "allow_once")  # back where it was, still waiting
    _answer_dialog(qtbot, "not that file")
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert decisions == [("call_1", "deny", "not that file")]


def test_the_ring_goes_on_to_the_next_waiting_card(qtbot):
    view, box, reply, decisions = _window(qtbot, ("c1", {"n": 1}), ("c2", {"n": 2}), ("c3", {"n": 3}), height=700)
    qtbot.keyClick(box, Qt.Key.Key_Tab)
    assert ring(view) == ("c1", "decide", "allow_once")
    for _ in range(6):  # past the first card's four buttons and its "Allow all 3", "Deny all…"
        qtbot.keyClick(view, Qt.Key.Key_Tab)
    assert ring(view) == ("c2", "decide", "allow_once")
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert decisions == [("c2", "allow_once", "")]
    assert ring(view) == ("c3", "decide", "allow_once")  # the next one still waiting
    assert view.viewport().rect().contains(view.approval_keys.focused_rect())  # scrolled into view
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert ring(view) == ("c1", "decide", "allow_once")  # then the first one left
    assert "Allow all 1" not in [h.label for h in view.approval_keys.current()[1].hotspots]
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert [d[0] for d in decisions] == ["c2", "c3", "c1"] and ring(view) == ()


def test_the_description_says_which_calls_wait(qtbot):
    view, _box, reply, _decisions = _window(qtbot, ("c1", {"n": 1}), ("c2", {"n": 2}))
    qtbot.waitUntil(lambda: view.accessibleDescription() != "")
    assert view.accessibleDescription() == "2 tool calls wait for your approval: write_file. Tab moves to their buttons."
    decide(view.model(), reply, "c1", Decision.ALLOW_ONCE)
    qtbot.waitUntil(lambda: view.accessibleDescription() == "A tool call waits for your approval: write_file. Tab moves to its buttons.")
    decide(view.model(), reply, "c2", Decision.DENY)
    qtbot.waitUntil(lambda: view.accessibleDescription() == "")
    assert view.focusPolicy() == Qt.FocusPolicy.NoFocus
