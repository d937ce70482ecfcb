"""The notice bar for a reply cut off at the output limit (Continue sends the partial reply and asks to go on) and
for a refused one (Edit and resend): the real window and session against the loopback server, and after
reopening the conversation from the database."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_copilot.core.conversation.history import CONTINUE_INSTRUCTION
from desktop_copilot.core.conversation.models import Message, MessageStatus, Role
from desktop_copilot.qt.window.recovery import notice_kind, noticed_reply
from tests.support.history_seed import seed_app_store, seed_conversation
from tests.support.loopback import anthropic_sse, anthropic_text_reply, sse_response

PARTIAL = "Here is the parser:\n\n```python\ndef parse(tokens):\n    for token in tok"
REST = "ens:\n        yield token\n```"
CUT_OFF_TITLE = "This reply was cut off at the output limit of 32,000 tokens."


def cut_off_stream():
    return sse_response(anthropic_text_reply(PARTIAL, pieces=3, stop_reason="max_tokens", output_tokens=120))


def refusal_stream():
    events = anthropic_text_reply("", stop_reason="refusal", msg_id="msg_refused")
    events[-2]["delta"]["stop_details"] = {"type": "refusal", "category": "cyber", "explanation": "Exploit code."}
    return sse_response(anthropic_sse(events))


def send(qtbot, window, text: str) -> None:
    assert window.send(text)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)


def test_a_cut_off_reply_shows_the_limit_and_continue_carries_on_from_the_partial_text(qtbot, make_window, loopback_env):
    loopback_env.enqueue("/v1/messages", cut_off_stream(), sse_response(anthropic_text_reply(REST, pieces=2)))
    window = make_window()
    send(qtbot, window, "Write a parser")
    bar = window.recovery
    assert bar.isVisible() and bar.kind == "max_tokens"
    assert bar.title.text() == CUT_OFF_TITLE
    assert bar.continue_button.isVisible() and not bar.retry_button.isVisible() and not bar.edit_button.isVisible()
    assert window.banner.isHidden()
    first = loopback_env.requests[0].json()
    assert first["max_tokens"] == 32_000

    qtbot.mouseClick(bar.continue_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    sent = loopback_env.requests[1].json()
    assert sent["messages"][-2:] == [  # the partial reply as it is, then a request to go on (no prefill)
        {"role": "assistant", "content": [{"type": "text", "text": PARTIAL}]},
        {"role": "user", "content": [{"type": "text", "text": CONTINUE_INSTRUCTION}]},
    ]
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    texts = [m.text for m in window.controller.model.messages()]
    assert texts == ["Write a parser", PARTIAL, REST]
    assert bar.isHidden() and bar.kind is None


def test_the_cut_off_notice_survives_reopening_the_conversation(qtbot, make_window, loopback_env):
    loopback_env.enqueue("/v1/messages", cut_off_stream())
    window = make_window()
    send(qtbot, window, "Write a parser")
    conversation_id = window.controller.session.conversation.id
    history, bar = window.history, window.recovery
    assert bar.isVisible()
    history.new_conversation()
    assert bar.isHidden()
    assert history.open(conversation_id)
    assert bar.isVisible() and bar.title.text() == CUT_OFF_TITLE and bar.continue_button.isVisible()
    reopened = make_window()  # a second start of the app on the same database
    assert reopened.recovery.isVisible() and reopened.recovery.title.text() == CUT_OFF_TITLE


def _seed_cut_off(store):
    conversation = seed_conversation(store, "Parser", [("Write a parser", PARTIAL)], model="claude-3-5-haiku-20241022")
    reply = conversation.messages[-1]
    reply.stop_reason = "max_tokens"
    store.save_message(conversation.id, 1, reply)
    return conversation


def test_a_stored_cut_off_reply_of_an_older_model_names_that_models_maximum(make_window):
    seed_app_store(_seed_cut_off)
    window = make_window()
    bar = window.recovery
    assert bar.isVisible()
    assert bar.title.text() == "This reply was cut off at the output limit of 8,192 tokens."
    assert "claude-3-5-haiku-20241022 writes at most 8,192 tokens" in bar.detail.text()


def test_a_refused_reply_shows_why_and_edit_and_resend_puts_the_message_back(qtbot, make_window, loopback_env):
    loopback_env.enqueue("/v1/messages", refusal_stream())
    window = make_window()
    send(qtbot, window, "Write an exploit")
    bar = window.recovery
    assert bar.isVisible() and bar.kind == "refusal"
    assert bar.title.text() == "This request was declined."
    assert not bar.continue_button.isVisible() and not bar.retry_button.isVisible()
    # The words come from the core's refusal support (stop_details -> message.error); the reply's notice in the
    # transcript shows them, the bar does not repeat them (a screen reader hears them from its description):
    [reply] = [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]
    assert "declined to answer this request (policy category: cyber)" in reply.error and "Exploit code." in reply.error
    assert "cyber" not in bar.detail.text() and bar.detail.text() == "Edit and resend puts your message back in the composer to rephrase it."
    assert reply.error in bar.accessibleDescription()

    qtbot.mouseClick(bar.edit_button, Qt.MouseButton.LeftButton)
    assert window.edits.editing is not None and window.composer.text() == "Write an exploit"

    conversation_id = window.controller.session.conversation.id
    window.edits.cancel_edit()
    window.history.new_conversation()
    assert bar.isHidden()
    window.history.open(conversation_id)
    assert bar.isVisible() and bar.kind == "refusal" and "policy category: cyber" in bar.accessibleDescription()


def test_which_replies_get_a_notice():
    def conversation(reply):
        return type("C", (), {"messages": [Message.user("hi"), reply]})()

    cut = Message(role=Role.ASSISTANT, stop_reason="max_tokens")
    refused = Message(role=Role.ASSISTANT, stop_reason="refusal")
    done = Message(role=Role.ASSISTANT, stop_reason="end_turn")
    stopped = Message(role=Role.ASSISTANT, status=MessageStatus.STOPPED, stop_reason="max_tokens")
    assert [notice_kind(m) for m in (cut, refused, done, stopped)] == ["max_tokens", "refusal", None, None]
    assert noticed_reply(conversation(cut)) is cut and noticed_reply(conversation(done)) is None
