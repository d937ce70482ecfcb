"""Compactions in SQLite (schema 8): written when their events go through the recorder, read back with the conversation
(the lazy way too), deleted with it, kept by JSON export and import and marked in the Markdown export; the compacted
messages stay stored and searchable; a version-7 file is migrated with a backup."""

from __future__ import annotations

import sqlite3

from desktop_copilot.core.context.compaction import dropped_compaction, plan_compaction, summary_compaction
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Conversation, Message
from desktop_copilot.core.storage import schema
from desktop_copilot.core.storage.export import import_json, to_json, to_markdown
from desktop_copilot.core.storage.message_writer import HeaderRow
from desktop_copilot.core.storage.recorder import StoreRecorder
from desktop_copilot.core.storage.store import SCHEMA_VERSION, Store
from tests.core.context.turns import conversation, reply


def stored_conversation(store: Store, turns: int = 6) -> Conversation:
    chat = Conversation(title="Notes about penguins", messages=conversation(turns))
    chat.messages[0].blocks[0].text = "question 0 about emperor penguins"
    store.save_conversation(chat)
    for seq, message in enumerate(chat.messages):
        store.save_message(chat.id, seq, message)
    return chat


def compact(chat: Conversation, recorder: StoreRecorder, keep_turns: int, summary: str | None):
    """Make a compaction as ContextKeeper does: join the conversation's list, then tell the recorder."""
    plan = plan_compaction(chat.messages, chat.compactions, keep_turns)
    made = (summary_compaction(plan, summary, provider="anthropic", model="claude-test") if summary is not None
            else dropped_compaction(plan.alone(), "the summary request stalled"))
    chat.compactions.append(made)
    recorder.record(ev.ContextCompacted(compaction=made))
    return made


def test_compactions_round_trip_through_the_recorder_and_the_file(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    store = Store(path)
    chat = stored_conversation(store)
    recorder = StoreRecorder(store, chat)
    first = compact(chat, recorder, 4, "turns 0-1")
    second = compact(chat, recorder, 2, "turns 0-3")
    second.undone = True
    recorder.record(ev.CompactionUndone(compaction_id=second.id))
    store.close()

    reopened = Store(path)
    try:
        loaded = reopened.load_conversation(chat.id)
        assert loaded.compactions == [first, second] and loaded.compactions[1].replaces == [first.id]
        assert loaded.compactions[1].undone and not loaded.compactions[0].undone
        assert [m.id for m in loaded.messages] == [m.id for m in chat.messages]  # nothing compacted is gone
        assert reopened.load_conversation_header(chat.id).compactions == [first, second]  # the lazy way too
        assert [hit.message_id for hit in reopened.search("emperor penguins")] == [chat.messages[0].id]
    finally:
        reopened.close()


def test_a_compaction_is_deleted_with_its_conversation(tmp_path):
    store = Store(tmp_path / "conversations.sqlite3")
    try:
        chat = stored_conversation(store)
        other = stored_conversation(store)
        compact(chat, StoreRecorder(store, chat), 2, "s")
        kept = compact(other, StoreRecorder(store, other), 2, None)
        store.delete_conversation(chat.id)
        assert [tuple(row) for row in store.connection.execute("SELECT id FROM compactions")] == [(kept.id,)]
        assert store.load_conversation(other.id).compactions == [kept]
    finally:
        store.close()


def test_json_export_and_import_keep_them_and_the_link_to_a_summarised_conversation(tmp_path):
    source, target = Store(tmp_path / "a.sqlite3"), Store(tmp_path / "b.sqlite3")
    try:
        chat = stored_conversation(source)
        made = compact(chat, StoreRecorder(source, chat), 2, "turns 0-3")
        follow_up = Conversation(title="continued", summarised_from=chat.id, messages=[Message.user("Summary of …")])
        text = to_json([source.load_conversation(chat.id), follow_up])
        assert import_json(target, text) == (2, 0)
        assert target.load_conversation(chat.id).compactions == [made]
        assert target.load_conversation(follow_up.id).summarised_from == chat.id
    finally:
        source.close()
        target.close()


def test_markdown_marks_where_compacted_messages_begin_and_keeps_them():
    chat = Conversation(title="t", messages=conversation(5))
    summary = summary_compaction(plan_compaction(chat.messages, [], 3), "the first two turns", provider=None, model=None)
    chat.compactions.append(summary)
    dropped = dropped_compaction(plan_compaction(chat.messages, chat.compactions, 1), "stalled")
    dropped.replaces = []
    chat.compactions.append(dropped)
    text = to_markdown(chat)
    marker = f"*— Compacted 6 messages —* ({summary.tokens_before} → {summary.tokens_after} tokens)"
    assert text.index(marker) < text.index("question 0") < text.index("*— Compacted 6 messages —* (left out")
    assert "<summary>Summary sent in their place</summary>\n\nthe first two turns" in text
    assert all(f"question {i}" in text for i in range(5))
    summary.undone = True
    assert marker not in to_markdown(chat)  # an undone one is no longer marked


def test_a_header_waiting_for_the_disk_keeps_the_link():
    assert HeaderRow.of(Conversation(summarised_from="conv_1")).conversation().summarised_from == "conv_1"


def _version_7_database(path) -> Message:
    db = sqlite3.connect(path)
    for version in range(1, 8):
        db.executescript(schema.MIGRATIONS[version])
    db.execute("PRAGMA user_version=7")
    db.execute("INSERT INTO conversations (id, title, provider, model, created_at, updated_at, temperature) "
               "VALUES ('conv_v7', 'before compaction', 'anthropic', 'claude-test', 1.0, 2.0, 0.3)")
    message = Message.user("hello from version 7")
    db.execute("INSERT INTO messages (id, conversation_id, seq, role, status, usage, blocks, created_at, updated_at) "
               "VALUES (?, 'conv_v7', 0, 'user', 'completed', '{}', ?, 1.0, 2.0)",
               (message.id, message.model_dump_json(include={"blocks"})[len('{"blocks":'):-1]))
    db.commit()
    db.close()
    return message


def test_a_version_7_file_gets_the_table_and_keeps_its_data(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    message = _version_7_database(path)
    store = Store(path)
    try:
        assert SCHEMA_VERSION >= 8
        with sqlite3.connect(store.backup_path) as backup:
            assert backup.execute("PRAGMA user_version").fetchone()[0] == 7
        old = store.load_conversation("conv_v7")
        assert (old.title, old.temperature, old.compactions, old.summarised_from) == ("before compaction", 0.3, [], None)
        assert [m.text for m in old.messages] == [message.text]
        old.messages += [reply("hello"), Message.user("second")]
        for seq, added in enumerate(old.messages[1:], start=1):
            store.save_message(old.id, seq, added)
        old.compactions.append(summary_compaction(plan_compaction(old.messages, [], 1), "hello", provider=None, model=None))
        store.save_compaction(old.id, 0, old.compactions[0])
        assert store.load_conversation("conv_v7").compactions == old.compactions
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert {row[1] for row in db.execute("PRAGMA table_info(conversations)")} >= {"summarised_from"}
    db.close()
