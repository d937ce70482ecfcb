"""The Retry / Continue bar for a reply that was interrupted or failed: the Qt wiring with scripted
ChatSession.regenerate / continue_reply, then the real session against a loopback server."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.conversation.history import CONTINUE_INSTRUCTION
from desktop_copilot.core.conversation.models import Message, MessageStatus, Role
from desktop_copilot.qt.window.recovery import noticed_reply
from tests.support.history_seed import seed_app_store, seed_conversation
from tests.support.loopback import anthropic_text_reply, sse_response

PARTIAL = "The first part of the novel"


def _apply(message, emit, event):
    event.message_id = message.id
    accumulate(message, event)
    emit(event)


def _scripted(calls: list[str], name: str):
    async def run(self, emit, confirm_loop):
        calls.append(name)
        if name == "retry":
            archived = self.conversation.messages.pop()  # the core keeps it stored as an earlier version, and says so
            emit(ev.HistoryChanged(anchor=len(self.conversation.messages), archived_ids=[archived.id]))
            reply = Message.assistant("m")
            self.conversation.messages.append(reply)
            emit(ev.MessageCreated(message=reply, message_id=reply.id))
        else:
            reply = self.conversation.messages[-1]
        _apply(reply, emit, ev.Start(model="m"))
        _apply(reply, emit, ev.TextDelta(index=0, text=" continued." if name == "continue" else "A fresh answer."))
        _apply(reply, emit, ev.Done(reason="end_turn"))
        finished = ev.RunFinished(outcome="completed")
        emit(finished)
        return finished

    return run


@pytest.fixture
def recovering(make_window, monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(ChatSession, "regenerate", _scripted(calls, "retry"))
    monkeypatch.setattr(ChatSession, "continue_reply", _scripted(calls, "continue"), raising=False)
    seed_app_store(lambda store: seed_conversation(
        store, "Red Chamber", [("Summarise 红楼梦", PARTIAL)], last_status=MessageStatus.INTERRUPTED,
        error="The app closed before this reply finished."))
    return make_window(), calls


def test_an_interrupted_reply_offers_retry_and_continue(recovering):
    window, _calls = recovering
    bar = window.recovery
    assert bar.isVisible() and bar.retry_button.isVisible() and bar.continue_button.isVisible()
    assert bar.title.text() == "This reply was interrupted."
    assert bar.detail.text() == "The text received so far is kept."  # why it ended shows once: the reply's notice
    assert "The app closed before this reply finished." in bar.accessibleDescription()


def test_retry_replaces_the_interrupted_reply_in_the_transcript(qtbot, recovering):
    window, calls = recovering
    window.banner.show_error("The connection closed before the reply finished.")
    qtbot.mouseClick(window.recovery.retry_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert calls == ["retry"]
    messages = window.controller.model.messages()
    assert [(m.role, m.text) for m in messages] == [(Role.USER, "Summarise 红楼梦"), (Role.ASSISTANT, "A fresh answer.")]
    assert messages[1].status is MessageStatus.COMPLETED
    assert window.recovery.isHidden() and window.banner.isHidden()


def test_continue_appends_to_the_kept_reply(qtbot, recovering):
    window, calls = recovering
    qtbot.mouseClick(window.recovery.continue_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert calls == ["continue"]
    assert window.controller.model.messages()[-1].text == PARTIAL + " continued."
    assert window.recovery.isHidden()


def test_the_bar_follows_the_open_conversation(recovering):
    window, _calls = recovering
    window.history.new_conversation()
    assert window.recovery.isHidden()


def test_only_unfinished_assistant_replies_count():  # a stopped reply needs no notice: the user stopped it
    reply = Message(role=Role.ASSISTANT, status=MessageStatus.FAILED, error="x")
    conversation = type("C", (), {"messages": [Message.user("hi"), reply]})()
    assert noticed_reply(conversation) is reply
    reply.status = MessageStatus.STOPPED
    assert noticed_reply(conversation) is None
    conversation.messages = [Message.user("hi")]
    assert noticed_reply(conversation) is None


def _seed_interrupted(store):
    return seed_conversation(store, "Red Chamber", [("Summarise 红楼梦", PARTIAL)], last_status=MessageStatus.INTERRUPTED,
                             error="The connection closed before the reply finished.")


def test_retry_with_the_real_session_archives_the_cut_off_reply(qtbot, make_window, loopback_env):
    conversation = seed_app_store(_seed_interrupted)
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("A complete summary.", pieces=3)))
    window = make_window()
    qtbot.mouseClick(window.recovery.retry_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert [m.text for m in window.controller.model.messages()] == ["Summarise 红楼梦", "A complete summary."]
    stored = window.controller.session.store.load_conversation(conversation.id)
    assert [m.text for m in stored.messages] == ["Summarise 红楼梦", "A complete summary."]
    assert window.controller.session.version_anchors() == {1: 1}  # the cut-off reply is kept as an earlier version
    sent = loopback_env.requests[0].json()["messages"]
    assert [turn["role"] for turn in sent] == ["user"]
    assert window.recovery.isHidden()


def test_continue_with_the_real_session_keeps_the_partial_reply(qtbot, make_window, loopback_env):
    seed_app_store(_seed_interrupted)
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply(" goes on.", pieces=2)))
    window = make_window()
    qtbot.mouseClick(window.recovery.continue_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    texts = [m.text for m in window.controller.model.messages()]
    assert texts[:2] == ["Summarise 红楼梦", PARTIAL] and texts[-1] == " goes on."
    sent = loopback_env.requests[0].json()["messages"]
    assert [m["role"] for m in sent[-2:]] == ["assistant", "user"]  # the partial reply, then a request to go on
    assert sent[-2]["content"][0]["text"] == PARTIAL and sent[-1]["content"][0]["text"] == CONTINUE_INSTRUCTION
