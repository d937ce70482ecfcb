"""Clicking the approval card in a real transcript view: each button sends one decision, "Deny…" asks for a reason
in a real modal box (Cancel sends nothing), "Allow all N" and "Deny all…" decide every waiting call of the reply,
a call is never decided twice ("Sending…" until the decision comes back), "Show all" grows the card, and the
pointer turns into a hand over a button that lights up."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog

from desktop_copilot.core.approval.decisions import Decision
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.qt.transcript.parts.test_approval_card import card_geometry, decide, hotspot_rect, waiting_reply
from tests.qt.transcript.transcript_support import show_view


def _view(qtbot, *calls, height: int = 900):
    reply = waiting_reply(*calls)
    model = TranscriptModel()
    model.set_messages([reply])
    view = show_view(qtbot, model, 800, height)
    view.viewport().repaint()
    decisions: list[tuple[str, str, str]] = []
    view.sig_tool_decision.connect(lambda *args: decisions.append(args))
    return view, reply, decisions


def _click(qtbot, view, label: str, row: int = 0) -> None:
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=hotspot_rect(view, label, row).center())


def _answer_dialog(qtbot, text: str | None) -> list[str]:
    """Answer the next modal box: type `text` and OK, or Cancel when `text` is None. Returns the titles seen."""
    seen: list[str] = []

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QInputDialog):
            QTimer.singleShot(20, answer)
            return
        seen.append(dialog.windowTitle())
        seen.append(dialog.labelText())
        if text is None:
            dialog.reject()
        else:
            dialog.setTextValue(text)
            dialog.accept()

    QTimer.singleShot(0, answer)
    return seen


@pytest.mark.parametrize(("label", "decision"), [("Allow once", Decision.ALLOW_ONCE), ("Allow in this conversation", Decision.ALLOW_CONVERSATION),
                                                 ("Always allow", Decision.ALLOW_ALWAYS)])
def test_each_allow_button_sends_its_decision_once(qtbot, label, decision):
    view, reply, decisions = _view(qtbot, ("call_1", {"path": "a.txt"}))
    old_part = card_geometry(view)[1]
    old_button = next(hotspot for hotspot in old_part.hotspots if hotspot.label == label)
    spot = hotspot_rect(view, label).center()
    _click(qtbot, view, label)
    assert decisions == [("call_1", decision.value, "")]
    _card, part = card_geometry(view)
    assert part.hotspots == [] and [item.text for item in part.items if item.kind == "note"] == ["Sending…"]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spot)  # where the button was
    view._on_hotspot_clicked(old_part, old_button)  # a click that still reached the old button
    assert len(decisions) == 1
    decide(view.model(), reply, "call_1", decision)
    _, part = card_geometry(view)
    assert not part.expanded and "Sending…" not in [item.text for item in part.items]


def test_deny_asks_for_a_reason_and_cancel_sends_nothing(qtbot):
    view, reply, decisions = _view(qtbot, ("call_1", {"path": "a.txt"}))
    seen = _answer_dialog(qtbot, None)
    _click(qtbot, view, "Deny…")
    assert seen == ["Deny write_file", "Reason for the model (optional):"] and decisions == []
    assert [hotspot.label for hotspot in card_geometry(view)[1].hotspots][:4] == ["Allow once", "Allow in this conversation", "Always allow", "Deny…"]
    _answer_dialog(qtbot, "  wrong\nfile  ")
    _click(qtbot, view, "Deny…")
    assert decisions == [("call_1", "deny", "wrong file")]
    decide(view.model(), reply, "call_1", Decision.DENY, "wrong file")
    view.viewport().repaint()
    assert reply.blocks[0].status.value == "cancelled"


def test_allow_all_decides_every_waiting_call_of_the_reply(qtbot):
    view, _reply, decisions = _view(qtbot, ("c1", {"n": 1}), ("c2", {"n": 2}), ("c3", {"n": 3}), height=1400)
    for row in range(3):
        labels = [hotspot.label for hotspot in card_geometry(view, row)[1].hotspots]
        assert labels[4:] == ["Allow all 3", "Deny all…"]
    _click(qtbot, view, "Allow once", row=0)  # one decided on its own first
    assert [hotspot.label for hotspot in card_geometry(view, 1)[1].hotspots][4:] == ["Allow all 2", "Deny all…"]
    _click(qtbot, view, "Allow all 2", row=2)
    assert decisions == [("c1", "allow_once", ""), ("c2", "allow_once", ""), ("c3", "allow_once", "")]
    assert all(card_geometry(view, row)[1].hotspots == [] for row in range(3))


def test_deny_all_asks_once(qtbot):
    view, _reply, decisions = _view(qtbot, ("c1", {"n": 1}), ("c2", {"n": 2}), height=1200)
    seen = _answer_dialog(qtbot, "not now")
    _click(qtbot, view, "Deny all…", row=1)
    assert seen[0] == "Deny 2 tool calls"
    assert decisions == [("c1", "deny", "not now"), ("c2", "deny", "not now")]


def test_show_all_grows_the_card_and_show_less_shrinks_it(qtbot):
    view, _reply, decisions = _view(qtbot, ("c1", {"path": "a.txt", "content": "a line of the new file\n" * 60}), height=1000)
    index = view.model().index(0, 0)
    short = view.rows.heights[0]
    _, part = card_geometry(view)
    assert "(+" in part.documents[0].toPlainText() and part.documents[0].toPlainText().count("a line") == 8
    _click(qtbot, view, "Show all")
    grown = view.rows.heights[0]
    assert grown == view.delegate.row_height(index) and grown > short
    assert card_geometry(view)[1].documents[0].toPlainText().count("a line") == 60
    _click(qtbot, view, "Show less")
    assert view.rows.heights[0] == short and decisions == []


def test_a_button_lights_up_under_a_hand_pointer(qtbot):
    view, _reply, decisions = _view(qtbot, ("c1", {"n": 1}))
    rect = hotspot_rect(view, "Always allow")
    before = view.viewport().grab().toImage().copy(rect)
    qtbot.mouseMove(view.viewport(), rect.center())
    qtbot.waitUntil(lambda: view.delegate.env.cards.hover == ("c1", "decide", "allow_always"))
    assert view.viewport().cursor().shape() == Qt.CursorShape.PointingHandCursor
    view.viewport().repaint()
    assert view.viewport().grab().toImage().copy(rect) != before
    qtbot.mouseMove(view.viewport(), QPoint(2, 2))
    qtbot.waitUntil(lambda: view.delegate.env.cards.hover == ())
    assert decisions == []
