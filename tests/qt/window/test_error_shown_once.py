"""A reply that stalls or fails shows its error once: in the transcript, as the reply's own marked notice under
the text that arrived (which is kept). The recovery bar under it offers Retry and Continue without repeating the
words, the banner stays away, and the status bar does not say it either. The real window and session against the
loopback server, with its scripted faults."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel

from desktop_copilot.core.conversation.models import Message, MessageStatus, Role
from desktop_copilot.qt.transcript.row_layout import PAINTERS
from tests.faults.sessions import wire_runtime
from tests.support import faults
from tests.support.faults import PIECES, WIRES

ANTHROPIC = WIRES[0]


def replies(window):
    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def transcript_texts(window) -> list[str]:
    """What the transcript's rows say besides the messages' own text: each notice row's painted words."""
    view, texts = window.view, []
    for row in range(view.model().rowCount()):
        for part in view.delegate.layout(view.model().index(row, 0)).parts:
            if part.kind == "notice":
                texts.append(PAINTERS["notice"]._text(part))
    return texts


def window_texts(window) -> list[str]:
    """What the window's visible labels and buttons say (the banner, the recovery bar, the header…) and the status bar."""
    shown = [w.text() for w in window.findChildren(QLabel) + window.findChildren(QAbstractButton) if w.isVisible() and w.text()]
    return [*shown, window.statusBar().currentMessage()]


def occurrences(window, words: str) -> int:
    return sum(text.count(words) for text in transcript_texts(window) + window_texts(window))


@pytest.fixture
def fault_window(make_window, loopback):
    def make(first_byte: float):
        runtime = wire_runtime(loopback, ANTHROPIC, 1.0)  # 1 s without a byte mid-reply is a stall
        runtime.settings = runtime.settings.model_copy(update={"first_byte_timeout": first_byte})
        return make_window(runtime)

    return make


def send_and_settle(qtbot, window, text: str) -> None:
    assert window.send(text)
    qtbot.waitUntil(lambda: bool(replies(window)) and not window.controller.busy, timeout=20000)
    window.view.viewport().repaint()


def test_a_stall_shows_its_error_once_under_the_kept_partial_reply(qtbot, fault_window, loopback):
    window = fault_window(first_byte=20.0)
    loopback.enqueue(ANTHROPIC.path, faults.stall_after(ANTHROPIC, 2))
    send_and_settle(qtbot, window, "Tell me a story")

    [reply] = replies(window)
    assert reply.status is MessageStatus.INTERRUPTED and reply.text == PIECES[0] + PIECES[1]  # the partial reply is kept
    assert "stalled" in reply.error
    assert transcript_texts(window) == [reply.error]  # marked, under it
    assert occurrences(window, reply.error) == 1 and occurrences(window, "stalled") == 1
    bar = window.recovery
    assert bar.isVisible() and bar.retry_button.isVisible() and bar.continue_button.isVisible()
    assert bar.title.text() == "This reply was interrupted." and bar.detail.text() == "The text received so far is kept."
    assert reply.error in bar.accessibleDescription()  # a screen reader still hears why
    assert window.banner.isHidden()


def test_a_reply_that_never_began_shows_its_error_once(qtbot, fault_window, loopback):
    window = fault_window(first_byte=1.0)
    loopback.enqueue(ANTHROPIC.path, faults.silent(ANTHROPIC))
    send_and_settle(qtbot, window, "Hello?")

    [reply] = replies(window)
    assert reply.status is MessageStatus.FAILED and reply.text == "" and "did not answer within 1 s" in reply.error
    assert transcript_texts(window) == [reply.error]
    assert occurrences(window, reply.error) == 1 and occurrences(window, "did not answer") == 1
    bar = window.recovery
    assert bar.isVisible() and bar.retry_button.isVisible() and not bar.continue_button.isVisible()
    assert bar.detail.text() == "Nothing of the reply arrived; Retry asks again."
    assert window.banner.isHidden()


def test_a_reply_that_failed_without_words_brings_no_banner(make_window):
    """The run ends "failed" with no detail: the transcript's notice says "The reply failed.", the banner says nothing."""
    window = make_window()
    failed = Message.assistant("m")
    failed.status = MessageStatus.FAILED
    window.controller.session.conversation.messages.append(failed)
    window.controller.sig_run_finished.emit("failed", "")
    assert window.banner.isHidden()
    window.controller.sig_run_finished.emit("loop", "Stopped: read_file was called 5 times in a row with the same arguments.")
    assert "read_file was called 5 times" in window.banner.text()  # the last message is not a failed reply: the banner says it
