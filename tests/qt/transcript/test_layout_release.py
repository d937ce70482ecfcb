"""Rows laid out for painting do not outlive their conversation: when the model shows another conversation, the
delegate's cache of laid-out rows is emptied, so it keeps no message (a reply's "waiting" row holds its message) nor
document of a conversation that was closed or deleted (found by the soak, tests/soak)."""

from __future__ import annotations

import gc
import weakref

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Message
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.qt.transcript.transcript_support import show_view


def test_a_replaced_conversation_leaves_nothing_in_the_laid_out_rows(qtbot):
    model = TranscriptModel()
    reply = Message.assistant()
    accumulate(reply, ev.Start(model="m"))  # no words yet: its row says the reply is being written
    model.set_messages([Message.user("A question"), reply])
    view = show_view(qtbot, model)
    view.viewport().repaint()
    assert [model.segment_at(row).kind for row in range(model.rowCount())][-1] == "waiting"
    assert view.delegate.layout(model.index(model.rowCount() - 1, 0)).parts[0].message is reply  # laid out, and cached
    gone = weakref.ref(reply)
    del reply

    model.set_messages([Message.user("Another conversation")])
    view.viewport().repaint()
    gc.collect()

    assert gone() is None
