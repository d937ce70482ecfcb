"""A conversation's temperature and top-p in SQLite: a version-6 file is migrated (with a backup) keeping its data,
and the fields survive saving, reopening, a header waiting for the disk, and export and import."""

from __future__ import annotations

import sqlite3

import pytest
from pydantic import ValidationError

from desktop_copilot.core.conversation.models import Conversation, Message
from desktop_copilot.core.storage import schema
from desktop_copilot.core.storage.export import ExportFormatError, parse_json, to_json
from desktop_copilot.core.storage.message_writer import HeaderRow
from desktop_copilot.core.storage.store import SCHEMA_VERSION, Store


def _version_6_database(path) -> Message:
    """The file as the app of schema 6 left it: one conversation (from an assistant) and its message."""
    db = sqlite3.connect(path)
    for version in range(1, 7):
        for statement in filter(str.strip, schema.MIGRATIONS[version].split(";\n")):
            db.execute(statement)
    db.execute("PRAGMA user_version=6")
    db.execute("INSERT INTO conversations (id, title, provider, model, system, assistant_id, thinking_budget, tools, "
               "created_at, updated_at) VALUES ('conv_v6', 'before sampling', 'deepseek', 'deepseek-chat', 'Be brief.', "
               "'writer', 0, '[\"web_fetch\"]', 1.0, 2.0)")
    message = Message.user("hello from version 6")
    db.execute("INSERT INTO messages (id, conversation_id, seq, role, status, model, provider, usage, blocks, created_at, "
               "updated_at) VALUES (?, 'conv_v6', 0, 'user', 'completed', NULL, NULL, '{}', ?, 1.0, 2.0)",
               (message.id, message.model_dump_json(include={"blocks"})[len('{"blocks":'):-1]))
    db.commit()
    db.close()
    return message


def test_a_version_6_file_gets_the_columns_and_keeps_its_data(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    message = _version_6_database(path)
    store = Store(path)
    try:
        assert SCHEMA_VERSION >= 7
        with sqlite3.connect(store.backup_path) as backup:
            assert backup.execute("PRAGMA user_version").fetchone()[0] == 6
        old = store.load_conversation("conv_v6")
        assert (old.title, old.provider, old.model, old.system) == ("before sampling", "deepseek", "deepseek-chat", "Be brief.")
        assert (old.assistant_id, old.thinking_budget, old.tools) == ("writer", 0, ["web_fetch"])
        assert [m.id for m in old.messages] == [message.id] and old.messages[0].text == "hello from version 6"
        assert old.temperature is None and old.top_p is None  # the model's default, as before
        old.temperature, old.top_p = 0.4, 0.85
        store.save_conversation(old)
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = {row[1]: row[2] for row in db.execute("PRAGMA table_info(conversations)")}
        assert columns["temperature"] == "REAL" and columns["top_p"] == "REAL"
        assert db.execute("SELECT temperature, top_p FROM conversations").fetchone() == (0.4, 0.85)
    db.close()
    reopened = Store(path)
    try:
        assert reopened.backup_path is None  # already at the current version
        again = reopened.load_conversation("conv_v6")
        assert (again.temperature, again.top_p, again.assistant_id) == (0.4, 0.85, "writer")
    finally:
        reopened.close()


def test_the_fields_round_trip_and_go_back_to_the_model_default(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    try:
        set_ = Conversation(title="set", temperature=0.2, top_p=0.9)
        cold = Conversation(title="cold", temperature=0.0)
        default = Conversation(title="default")
        for conversation in (set_, cold, default):
            store.save_conversation(conversation)
        listed = {c.title: (c.temperature, c.top_p) for c in store.list_conversations()}
        assert listed == {"set": (0.2, 0.9), "cold": (0.0, None), "default": (None, None)}  # 0 is a value, not "unset"
        assert store.load_conversation_header(set_.id).top_p == 0.9
        set_.temperature = set_.top_p = None
        store.save_conversation(set_)
        loaded = store.load_conversation(set_.id)
        assert (loaded.temperature, loaded.top_p) == (None, None)
    finally:
        store.close()


def test_a_header_waiting_for_the_disk_keeps_them():
    conversation = Conversation(title="waiting", temperature=1.5, top_p=0.5, thinking_budget=0)
    back = HeaderRow.of(conversation).conversation()
    assert (back.temperature, back.top_p, back.thinking_budget) == (1.5, 0.5, 0)


def test_out_of_range_values_are_refused_in_words():
    with pytest.raises(ValidationError, match="from 0 to 2, not 2.5"):
        Conversation(temperature=2.5)
    with pytest.raises(ValidationError, match="more than 0 and at most 1, not 0"):
        Conversation(top_p=0)
    with pytest.raises(ValidationError, match="temperature must be"):
        Conversation(temperature=float("nan"))


def test_export_and_import_keep_them_and_refuse_a_value_out_of_range():
    conversation = Conversation(title="t", temperature=0.7, top_p=0.95)
    text = to_json([conversation])
    (back,) = parse_json(text)
    assert (back.temperature, back.top_p) == (0.7, 0.95)
    damaged = text.replace('"temperature": 0.7', '"temperature": 7.0')
    assert damaged != text
    with pytest.raises(ExportFormatError, match="from 0 to 2"):
        parse_json(damaged)
