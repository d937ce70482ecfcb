"""What the user sees after a fault, in the real window for every wire format: the reply keeps what came, the bar
under it says what happened with Retry (and Continue for a reply that had begun), the button works, and the
database holds the same."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_copilot.core.conversation.models import MessageStatus, Role
from tests.faults.sessions import wire_runtime
from tests.support import faults
from tests.support.faults import PIECES, WIRE_IDS, WIRES, WireScript

pytestmark = pytest.mark.parametrize("wire", WIRES, ids=WIRE_IDS)


@pytest.fixture
def fault_window(make_window, loopback):
    def make(wire: WireScript):
        return make_window(wire_runtime(loopback, wire, 1.0))

    return make


def replies(window):
    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def stored(window):
    session = window.controller.session
    return session.store.load_conversation(session.conversation.id).messages


def send_and_settle(qtbot, window, text: str) -> None:
    assert window.send(text)
    qtbot.waitUntil(lambda: bool(replies(window)) and not window.controller.busy, timeout=15000)


def test_a_stalled_reply_shows_what_came_and_continue_finishes_it(qtbot, wire, fault_window, loopback):
    window = fault_window(wire)
    loopback.enqueue(wire.path, faults.stall_after(wire, 2), wire.text_reply("and the end."))
    send_and_settle(qtbot, window, "Tell me a story")

    [reply] = replies(window)
    assert reply.status is MessageStatus.INTERRUPTED and reply.text == PIECES[0] + PIECES[1]
    bar = window.recovery
    assert bar.isVisible() and bar.kind == "interrupted"
    assert bar.retry_button.isVisible() and bar.continue_button.isVisible()
    assert "stalled" in reply.error and "1 s" in reply.error  # shown once, by the reply's notice in the transcript
    assert "stalled" not in bar.detail.text() and "stalled" not in window.banner.text()
    assert [(m.status, m.text) for m in stored(window)][-1] == (MessageStatus.INTERRUPTED, PIECES[0] + PIECES[1])

    qtbot.mouseClick(bar.continue_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy and replies(window)[-1].status is MessageStatus.COMPLETED, timeout=15000)
    assert replies(window)[-1].text == "and the end." and bar.isHidden()
    assert [m.text for m in stored(window)][1:] == [PIECES[0] + PIECES[1], "and the end."]


def test_silence_fails_in_words_and_retry_asks_again(qtbot, wire, fault_window, loopback):
    window = fault_window(wire)
    loopback.enqueue(wire.path, faults.silent(wire), wire.text_reply(*PIECES))
    send_and_settle(qtbot, window, "Hello?")

    [reply] = replies(window)
    assert reply.status is MessageStatus.FAILED and reply.text == ""
    bar = window.recovery
    assert bar.isVisible() and bar.kind == "failed" and bar.retry_button.isVisible()
    assert "did not answer within 1 s" in reply.error  # shown once, by the reply's notice in the transcript
    assert "did not answer" not in bar.detail.text() and window.banner.isHidden()
    assert stored(window)[-1].status is MessageStatus.FAILED

    qtbot.mouseClick(bar.retry_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy and replies(window)[-1].status is MessageStatus.COMPLETED, timeout=15000)
    assert replies(window)[-1].text == "".join(PIECES) and bar.isHidden() and window.banner.isHidden()
    assert [m.text for m in stored(window)] == ["Hello?", "".join(PIECES)]
