"""TranscriptModel: a well-behaved Qt model whose dataChanged names exactly the one row that changed."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_copilot.core import events as ev
from desktop_copilot.core.accumulate import accumulate
from desktop_copilot.core.models import Message
from desktop_copilot.qt.transcript_model import TranscriptModel


def _conversation() -> list[Message]:
    reply = Message.assistant("claude-test")
    accumulate(reply, ev.Start(model="claude-test"))
    accumulate(reply, ev.TextDelta(index=0, text="Hello"))
    return [Message.user("Hi"), reply, Message.user("And now?")]


def test_passes_the_qt_model_tester(qtmodeltester):
    model = TranscriptModel()
    model.set_messages(_conversation())
    qtmodeltester.check(model, force_py=True)
    model.append_message(Message.assistant())
    qtmodeltester.check(model, force_py=True)


def test_roles_expose_the_live_message(qtbot):
    messages = _conversation()
    model = TranscriptModel()
    model.set_messages(messages)
    index = model.index(1, 0)
    assert index.data(TranscriptModel.MessageRole) is messages[1]
    assert index.data(TranscriptModel.MessageIdRole) == messages[1].id
    assert index.data(TranscriptModel.AuthorRole) == "assistant"
    assert index.data(TranscriptModel.StatusRole) == "streaming"
    assert index.data(Qt.ItemDataRole.DisplayRole) == "Hello"
    assert model.roleNames()[TranscriptModel.MessageRole] == b"message"


def test_message_changed_emits_data_changed_for_that_row_only(qtbot):
    messages = _conversation()
    model = TranscriptModel()
    model.set_messages(messages)
    seen = []
    model.dataChanged.connect(lambda top, bottom, roles: seen.append((top.row(), bottom.row(), list(roles))))

    accumulate(messages[1], ev.TextDelta(index=0, text=" world"))
    assert model.message_changed(messages[1].id)

    assert len(seen) == 1
    top, bottom, roles = seen[0]
    assert (top, bottom) == (1, 1)
    assert TranscriptModel.RevisionRole in roles and TranscriptModel.MessageIdRole not in roles
    assert model.index(1, 0).data(TranscriptModel.RevisionRole) == messages[1].revision


def test_unknown_message_changes_nothing(qtbot):
    model = TranscriptModel()
    model.set_messages(_conversation())
    with qtbot.assertNotEmitted(model.dataChanged):
        assert not model.message_changed("msg_unknown")


def test_append_inserts_one_row_and_is_idempotent(qtbot):
    model = TranscriptModel()
    message = Message.user("Hi")
    with qtbot.waitSignal(model.rowsInserted) as inserted:
        model.append_message(message)
    assert inserted.args[1:] == [0, 0]
    with qtbot.assertNotEmitted(model.rowsInserted):
        model.append_message(message)
    assert model.rowCount() == 1 and model.row_of(message.id) == 0
