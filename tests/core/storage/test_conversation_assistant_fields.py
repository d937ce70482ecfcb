"""A conversation's assistant, thinking and tools in SQLite: a version-4 file is migrated (with a backup) and
the fields survive saving, reopening and export."""

from __future__ import annotations

import sqlite3

from desktop_copilot.core.storage.export import parse_json, to_json
from desktop_copilot.core.conversation.models import Conversation, Message
from desktop_copilot.core.storage import schema
from desktop_copilot.core.storage.store import SCHEMA_VERSION, Store


def _version_4_database(path) -> None:
    """The file as the app of schema 4 left it, with one conversation and its message."""
    db = sqlite3.connect(path)
    for version in (1, 2, 3, 4):
        for statement in filter(str.strip, schema.MIGRATIONS[version].split(";\n")):
            db.execute(statement)
    db.execute("PRAGMA user_version=4")
    db.execute("INSERT INTO conversations (id, title, provider, model, system, created_at, updated_at) "
               "VALUES ('conv_v4', 'from before assistants', 'deepseek', 'deepseek-chat', 'Be brief.', 1.0, 2.0)")
    message = Message.user("hello from version 4")
    db.execute("INSERT INTO messages (id, conversation_id, seq, role, status, model, provider, usage, blocks, created_at, updated_at) "
               "VALUES (?, 'conv_v4', 0, 'user', 'completed', NULL, NULL, '{}', ?, 1.0, 2.0)",
               (message.id, message.model_dump_json(include={"blocks"})[len('{"blocks":'):-1]))
    db.commit()
    db.close()


def test_a_version_4_file_is_migrated_with_a_backup_and_keeps_its_conversations(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    _version_4_database(path)
    store = Store(path)
    try:
        assert SCHEMA_VERSION >= 5
        with sqlite3.connect(store.backup_path) as backup:
            assert backup.execute("PRAGMA user_version").fetchone()[0] == 4
        old = store.load_conversation("conv_v4")
        assert (old.title, old.provider, old.model, old.system) == ("from before assistants", "deepseek", "deepseek-chat", "Be brief.")
        assert old.assistant_id is None and old.thinking_budget is None and old.tools is None  # as in Settings, like before
        assert old.messages[0].text == "hello from version 4"
        old.assistant_id, old.thinking_budget, old.tools = "writer", 0, ["web_fetch"]
        store.save_conversation(old)
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = {row[1] for row in db.execute("PRAGMA table_info(conversations)")}
        assert {"assistant_id", "thinking_budget", "tools"} <= columns
    reopened = Store(path)
    try:
        assert reopened.backup_path is None  # already at the current version
        again = reopened.load_conversation("conv_v4")
        assert (again.assistant_id, again.thinking_budget, again.tools) == ("writer", 0, ["web_fetch"])
    finally:
        reopened.close()


def test_the_fields_round_trip_and_none_differs_from_no_tools(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    try:
        chosen = Conversation(title="picked", assistant_id="asst_1", thinking_budget=8192, tools=["web_fetch", "read_file"])
        none_offered = Conversation(title="no tools", assistant_id="translator", thinking_budget=0, tools=[])
        settings = Conversation(title="as in settings")
        for conversation in (chosen, none_offered, settings):
            store.save_conversation(conversation)
        loaded = {c.title: c for c in store.list_conversations()}
        assert loaded["picked"].tools == ["read_file", "web_fetch"] and loaded["picked"].thinking_budget == 8192
        assert loaded["picked"].assistant_id == "asst_1"
        assert loaded["no tools"].tools == [] and loaded["no tools"].thinking_budget == 0
        assert loaded["as in settings"].tools is None and loaded["as in settings"].thinking_budget is None
        header = store.load_conversation_header(chosen.id)
        assert header.assistant_id == "asst_1" and header.tools == ["read_file", "web_fetch"]
        chosen.tools = None  # e.g. the user went back to every tool
        store.save_conversation(chosen)
        assert store.load_conversation(chosen.id).tools is None
    finally:
        store.close()


def test_export_and_import_keep_the_fields():
    conversation = Conversation(title="t", assistant_id="coder", thinking_budget=8192, tools=[], system="Be exact.")
    (back,) = parse_json(to_json([conversation]))
    assert (back.assistant_id, back.thinking_budget, back.tools, back.system) == ("coder", 8192, [], "Be exact.")
