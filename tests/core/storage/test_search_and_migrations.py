"""Full-text search (English and Chinese), migrations from every earlier schema, damaged files."""

from __future__ import annotations

import sqlite3

import pytest

from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, TextBlock, ThinkingBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.storage import schema
from desktop_copilot.core.storage.search import MARK_END, MARK_START, fts_query, segment, unsegment
from desktop_copilot.core.storage.store import SCHEMA_VERSION, Store


def reply(text: str, *, thinking: str = "", tool_result: str = "") -> Message:
    message = Message.assistant("m")
    if thinking:
        message.blocks.append(ThinkingBlock(thinking=thinking, signature="s"))
    message.blocks.append(TextBlock(text=text))
    if tool_result:
        message.blocks.append(ToolCallBlock(id="t", name="tavily_search", arguments={"query": "q"},
                                            status=ToolCallStatus.DONE, result=tool_result))
    message.status = MessageStatus.COMPLETED
    return message


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    yield s
    s.close()


def add(store, title, *messages):
    conversation = Conversation(title=title)
    store.save_conversation(conversation)
    for seq, message in enumerate(messages):
        store.save_message(conversation.id, seq, message)
    return conversation


def test_chinese_word_inside_a_sentence_is_found(store):
    question = Message.user("今天香港天气怎么样")
    conversation = add(store, "weather", question, reply("晴天，25度"))
    hits = store.search("天气")
    assert [(h.conversation_id, h.message_id) for h in hits] == [(conversation.id, question.id)]
    assert f"{MARK_START}天气{MARK_END}" in hits[0].snippet.replace(f"{MARK_END}{MARK_START}", "")
    assert "今天香港" in hits[0].snippet


def test_english_words_prefix_and_every_word_required(store):
    add(store, "gardening", Message.user("How do I prune tomatoes?"), reply("Prune the suckers weekly."))
    add(store, "cooking", Message.user("A tomato soup recipe"), reply("Simmer for 20 minutes."))
    assert {h.title for h in store.search("tomat")} == {"gardening", "cooking"}
    assert {h.title for h in store.search("prune tomatoes")} == {"gardening"}
    assert store.search("zucchini") == []
    assert store.search("   ") == []


def test_thinking_tool_results_and_titles_are_searchable(store):
    add(store, "Trip to Kyoto", Message.user("plan"),
        reply("ok", thinking="consider the shinkansen schedule", tool_result="[1] Fushimi Inari opening hours"))
    assert store.search("shinkansen")[0].message_id
    assert "Fushimi" in store.search("inari")[0].snippet
    title_hit = store.search("kyoto")[0]
    assert title_hit.message_id == "" and title_hit.title == "Trip to Kyoto"


def test_unfinished_replies_are_indexed_once_finished_or_recovered(store):
    streaming = Message.assistant("m")
    streaming.status = MessageStatus.STREAMING
    streaming.blocks.append(TextBlock(text="ephemeral platypus"))
    add(store, "t", streaming)
    assert store.search("platypus") == []
    store.mark_unfinished_interrupted()
    assert len(store.search("platypus")) == 1


def test_deleting_a_conversation_removes_it_from_search(store):
    conversation = add(store, "t", Message.user("unique narwhal"))
    store.delete_conversation(conversation.id)
    assert store.search("narwhal") == []


def test_query_building_escapes_syntax():
    assert fts_query('say "hi" OR NOT') == '"say" AND "hi" AND "OR" AND "NOT"*'
    assert fts_query("天气 report") == '"天 气" AND "report"*'
    assert fts_query("***") is None
    assert unsegment(segment("今天 weather 好")) == "今天 weather 好"
    assert unsegment(segment("怎么样？好。")) == "怎么样？好。"


def test_saving_does_not_slow_down_as_the_index_grows(store):
    """Replacing a message's index row is a lookup by key, not a scan of the index."""
    conversation = add(store, "t")
    plan = store.connection.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM search_keys WHERE conversation_id=? AND message_id=?", ("a", "b")
    ).fetchall()
    assert any("USING" in row[-1] and "INDEX" in row[-1] for row in plan), plan
    message = reply("first words")
    store.save_message(conversation.id, 0, message)
    message.blocks[0].text = "second words"
    store.save_message(conversation.id, 0, message)
    assert store.search("first") == [] and len(store.search("second")) == 1
    assert store.connection.execute("SELECT COUNT(*) FROM search_keys").fetchone()[0] == 2


def make_v1_database(path):
    db = sqlite3.connect(path)
    db.executescript(schema.V1)
    db.execute("PRAGMA user_version=1")
    db.execute("INSERT INTO conversations VALUES ('conv_old', 'old chat about 天气', 'm', NULL, 1.0, 2.0)")
    message = reply("legacy answer mentions penguins")
    db.execute(
        "INSERT INTO messages VALUES (?, 'conv_old', 0, 'assistant', 'completed', NULL, NULL, 'm', '{}', ?, 1.0, 2.0)",
        (message.id, message.model_dump_json(include={"blocks"})[len('{"blocks":'):-1]),
    )
    db.commit()
    db.close()
    return message


def make_database(path, version):
    """A database as the app of schema `version` left it."""
    message = make_v1_database(path)
    if version >= 2:
        db = sqlite3.connect(path)
        db.executescript(schema.V2)
        db.execute("INSERT INTO search_keys VALUES (1, 'conv_old', '')")
        db.execute("INSERT INTO search_keys VALUES (2, 'conv_old', ?)", (message.id,))
        db.execute("INSERT INTO search_index (rowid, conversation_id, message_id, body) VALUES (1, 'conv_old', '', ?)",
                   (segment("old chat about 天气"),))
        db.execute("INSERT INTO search_index (rowid, conversation_id, message_id, body) VALUES (2, 'conv_old', ?, ?)",
                   (message.id, segment(message.text)))
        db.execute("PRAGMA user_version=2")
        db.commit()
        db.close()
    if version >= 3:
        db = sqlite3.connect(path)
        db.executescript(schema.V3)
        db.execute("PRAGMA user_version=3")
        db.commit()
        db.close()
    if version >= 4:
        db = sqlite3.connect(path)
        db.executescript(schema.V4)
        db.execute("PRAGMA user_version=4")
        db.commit()
        db.close()
    if version >= 5:
        db = sqlite3.connect(path)
        db.executescript(schema.V5)
        db.execute("PRAGMA user_version=5")
        db.commit()
        db.close()
    if version >= 6:
        db = sqlite3.connect(path)
        db.executescript(schema.V6)
        db.execute("PRAGMA user_version=6")
        db.commit()
        db.close()
    if version >= 7:
        db = sqlite3.connect(path)
        db.executescript(schema.V7)
        db.execute("PRAGMA user_version=7")
        db.commit()
        db.close()
    if version >= 8:
        db = sqlite3.connect(path)
        db.executescript(schema.V8)
        db.execute("PRAGMA user_version=8")
        db.commit()
        db.close()
    assert version <= 8, "add a fixture for the new schema version here"
    return message


@pytest.mark.parametrize("start_version", sorted(v for v in schema.MIGRATIONS if v < SCHEMA_VERSION))
def test_migrates_from_every_earlier_version_with_a_backup(tmp_path, start_version):
    path = tmp_path / "conversations.sqlite3"
    old = make_database(path, start_version)
    store = Store(path)
    try:
        assert store.backup_path is not None and store.backup_path.exists()
        with sqlite3.connect(store.backup_path) as backup:
            assert backup.execute("PRAGMA user_version").fetchone()[0] == start_version
        loaded = store.load_conversation("conv_old")
        assert loaded.messages[0].text == old.text
        assert loaded.provider is None and loaded.messages[0].provider is None  # Anthropic's, from before providers
        assert store.search("penguins")[0].message_id == old.id
        assert store.search("天气")[0].conversation_id == "conv_old"
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_damaged_database_is_kept_aside_and_reported(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    store = Store(path)
    add(store, "precious", Message.user("keep me"))
    store.close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xde\xad" * ((4096 - 100) // 2)
    path.write_bytes(bytes(data))

    fresh, problem = Store.open_checked(path)
    try:
        assert problem is not None and problem.kept_at.exists()
        assert problem.kept_at.read_bytes() == bytes(data)
        assert str(problem.kept_at) in str(problem)
        assert fresh.list_conversations() == []
    finally:
        fresh.close()


def test_a_healthy_database_opens_without_a_problem(tmp_path):
    store, problem = Store.open_checked(tmp_path / "ok.sqlite3")
    store.close()
    assert problem is None


def test_attached_files_are_found_by_name_and_a_text_file_by_its_contents(tmp_path):
    from desktop_copilot.core.conversation.models import Conversation, DocumentBlock, TextFileBlock

    store = Store(tmp_path / "db.sqlite3")
    conversation = Conversation(title="Quarterly review")
    message = Message.user("please summarise")
    message.blocks[:0] = [DocumentBlock(media_type="application/pdf", data="JVBERi0=", name="budget-2026.pdf", size=5),
                          TextFileBlock(name="notes.txt", text="the llama migration is late")]
    conversation.messages = [message]
    store.save_conversation(conversation)
    store.save_message(conversation.id, 0, message)
    assert [hit.conversation_id for hit in store.search("budget")] == [conversation.id]
    assert [hit.conversation_id for hit in store.search("llama migration")] == [conversation.id]
    store.close()
