"""Reading a long conversation lazily: an index of its messages without their blocks, messages by id in
the order asked, a range by position, the header alone, and the summed usage computed in SQL."""

from __future__ import annotations

import pytest

from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Role, TextBlock, Usage
from desktop_copilot.core.storage.store import MessageSummary, Store


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    yield store
    store.close()


def _seed(store: Store, count: int) -> Conversation:
    conversation = Conversation(title="Long one", model="claude-test")
    store.save_conversation(conversation)
    for seq in range(count):
        if seq % 2 == 0:
            message = Message.user(f"question {seq}")
        else:
            message = Message(role=Role.ASSISTANT, blocks=[TextBlock(text=f"answer {seq} " * seq)],
                              usage=Usage(input_tokens=10, output_tokens=seq, cache_read_tokens=1))
        conversation.messages.append(message)
        store.save_message(conversation.id, seq, message)
    return conversation


def test_message_index_lists_every_message_in_order_without_blocks(store):
    conversation = _seed(store, 30)
    index = store.message_index(conversation.id)
    assert [s.id for s in index] == [m.id for m in conversation.messages]
    assert index[0] == MessageSummary(conversation.messages[0].id, "user", "completed", index[0].size)
    assert index[29].role == "assistant" and index[29].size > index[1].size > 0
    assert store.message_index("conv_unknown") == []


def test_load_messages_keeps_the_order_asked_and_skips_unknown_ids(store):
    store._index = lambda *args: None  # no search indexing: seeds faster
    conversation = _seed(store, 1200)  # more ids than SQLite takes as parameters in one query
    wanted = [m.id for m in reversed(conversation.messages)] + ["msg_unknown"]
    loaded = store.load_messages(wanted)
    assert [m.id for m in loaded] == wanted[:-1]
    assert loaded[0].text == conversation.messages[-1].text and loaded[0].usage.output_tokens == 1199


def test_a_range_by_position_and_the_header(store):
    conversation = _seed(store, 20)
    assert [m.text for m in store.load_message_range(conversation.id, 4, 3)] == [m.text for m in conversation.messages[4:7]]
    header = store.load_conversation_header(conversation.id)
    assert header.title == "Long one" and header.model == "claude-test" and header.messages == []
    assert store.load_conversation_header("conv_unknown") is None


def test_statuses_come_through_the_index(store):
    conversation = _seed(store, 2)
    conversation.messages[1].status = MessageStatus.INTERRUPTED
    store.save_message(conversation.id, 1, conversation.messages[1])
    assert [s.status for s in store.message_index(conversation.id)] == ["completed", "interrupted"]
