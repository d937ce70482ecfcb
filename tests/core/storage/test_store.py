"""The SQLite store on a real file: every block type round-trips exactly; recovery after a crash."""

from __future__ import annotations

import sqlite3

import pytest

from desktop_copilot.core.conversation.models import (
    Conversation,
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
    Usage,
)
from desktop_copilot.core.storage.store import SCHEMA_VERSION, Store


def full_reply() -> Message:
    message = Message.assistant("claude-test")
    message.blocks = [
        ThinkingBlock(thinking="思考 🤔", signature="EtYDCkYICxgCKkAV+/==", started_at=1.0, ended_at=2.5),
        RedactedThinkingBlock(data="EmwKAhgBEgy3va3pzix/LafPsn4a"),
        TextBlock(text="Here **you** go: 今天香港天气"),
        ToolCallBlock(id="toolu_1", name="tavily_search", arguments={"query": "天气", "n": [1, {"x": None}]},
                      partial_arguments='{"query": "天气"', status=ToolCallStatus.DONE, result="[1] ok",
                      started_at=3.0, ended_at=4.0),
        RawBlock(data={"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}}),
    ]
    message.status = MessageStatus.COMPLETED
    message.stop_reason = "tool_use"
    message.usage = Usage(input_tokens=10, output_tokens=20, cache_read_tokens=3, cache_write_tokens=4)
    return message


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    yield s
    s.close()


def test_every_block_type_round_trips_exactly(store):
    conversation = Conversation(title="t", model="claude-test")
    store.save_conversation(conversation)
    user, reply = Message.user("hello"), full_reply()
    store.save_message(conversation.id, 0, user)
    store.save_message(conversation.id, 1, reply)

    loaded = store.load_conversation(conversation.id)
    assert [m.model_dump() for m in loaded.messages] == [user.model_dump(), reply.model_dump()]


def test_the_provider_of_a_conversation_and_of_each_reply_round_trips(store):
    conversation = Conversation(title="t", provider="deepseek", model="deepseek-chat")
    store.save_conversation(conversation)
    reply = full_reply()
    reply.provider = "anthropic"
    store.save_message(conversation.id, 0, Message.user("hi"))
    store.save_message(conversation.id, 1, reply)
    loaded = store.load_conversation(conversation.id)
    assert (loaded.provider, loaded.model) == ("deepseek", "deepseek-chat")
    assert [m.provider for m in loaded.messages] == [None, "anthropic"]


def test_saving_again_updates_in_place(store):
    conversation = Conversation()
    store.save_conversation(conversation)
    reply = Message.assistant("m")
    store.save_message(conversation.id, 0, reply)
    reply.blocks.append(TextBlock(text="more"))
    reply.status = MessageStatus.COMPLETED
    store.save_message(conversation.id, 0, reply)
    loaded = store.load_conversation(conversation.id).messages
    assert len(loaded) == 1 and loaded[0].text == "more" and loaded[0].status is MessageStatus.COMPLETED


def test_wal_and_schema_version(store, tmp_path):
    with sqlite3.connect(tmp_path / "db.sqlite3") as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_newer_schema_is_refused_with_advice(tmp_path):
    path = tmp_path / "future.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="update the app"):
        Store(path)


def test_unfinished_replies_become_interrupted(store):
    conversation = Conversation()
    store.save_conversation(conversation)
    streaming = Message.assistant("m")
    streaming.status = MessageStatus.STREAMING
    streaming.blocks.append(TextBlock(text="half"))
    store.save_message(conversation.id, 0, streaming)
    assert store.mark_unfinished_interrupted() == 1
    loaded = store.load_conversation(conversation.id).messages[0]
    assert loaded.status is MessageStatus.INTERRUPTED and loaded.text == "half" and loaded.error


def test_latest_conversation_and_delete(store):
    first, second = Conversation(title="a"), Conversation(title="b")
    store.save_conversation(first)
    store.save_conversation(second)
    assert store.latest_conversation_id() == second.id
    store.delete_conversation(second.id)
    assert store.latest_conversation_id() == first.id
    assert store.load_conversation(second.id) is None
