"""The transcript view follows a streaming reply to the bottom unless the user scrolled up."""

from __future__ import annotations

import pytest

from desktop_copilot.core import events as ev
from desktop_copilot.core.accumulate import accumulate
from desktop_copilot.core.models import Message
from desktop_copilot.qt.transcript_model import TranscriptModel
from desktop_copilot.qt.transcript_view import TranscriptView


@pytest.fixture
def streaming(qtbot):
    model = TranscriptModel()
    model.set_messages([Message.user(f"Question {n}") for n in range(30)])
    reply = Message.assistant()
    accumulate(reply, ev.Start(model="m"))
    model.append_message(reply)
    view = TranscriptView(model)
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    qtbot.waitExposed(view)
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
