"""Opening a long stored conversation lazily in the real window: only its end is read, the session holds
its last messages until a send loads the whole history, and the reply is stored after it in order."""

from __future__ import annotations

from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Role, TextBlock
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.transcript.model import TAIL_MESSAGES
from tests.support.history_seed import seed_app_store
from tests.support.loopback import anthropic_text_reply, sse_response

COUNT = 400


def _seed(store: Store) -> str:
    store.indexer.index = lambda *args: None  # no search indexing: seeds faster
    conversation = Conversation(title="A long one", model="claude-test")
    store.save_conversation(conversation)
    for seq in range(COUNT):
        message = Message.user(f"Question {seq}") if seq % 2 == 0 else Message(
            role=Role.ASSISTANT, status=MessageStatus.COMPLETED, blocks=[TextBlock(text=f"Answer {seq}")])
        store.save_message(conversation.id, seq, message)
    return conversation.id


def test_a_long_conversation_opens_lazily_and_a_send_loads_its_history(qtbot, loopback_env, make_window):
    conversation_id = seed_app_store(_seed)
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("The answer.", msg_id="msg_lazy_1")))
    window = make_window()
    controller = window.controller

    assert controller.open_stored(conversation_id)
    session = controller.session
    assert not session.history_loaded
    assert len(session.conversation.messages) == TAIL_MESSAGES and session.conversation.messages[-1].text == f"Answer {COUNT - 1}"
    assert controller.model.rowCount() == COUNT and controller.model.source.loads <= TAIL_MESSAGES + 40
    window.view.viewport().repaint()

    assert window.send("And now?")
    qtbot.waitUntil(lambda: not controller.busy, timeout=10_000)
    assert session.history_loaded and len(session.conversation.messages) == COUNT + 2
    assert session.conversation.messages[0].text == "Question 0"
    reply = session.conversation.messages[-1]
    assert reply.text == "The answer." and reply.status is MessageStatus.COMPLETED
    index = session.store.message_index(conversation_id)
    assert [s.id for s in index[-2:]] == [m.id for m in session.conversation.messages[-2:]]
    assert controller.model.rowCount() == COUNT + 2 and controller.model.message_at(COUNT + 1) is reply
    first_request = loopback_env.requests[0].json()
    assert len(first_request["messages"]) == COUNT + 1  # the whole history went to the model


def test_it_refuses_while_a_run_is_in_progress_or_for_an_unknown_id(qtbot, make_window):
    window = make_window()
    assert not window.controller.open_stored("conv_unknown")
