"""Schema versions and migrations: each step upgrades one version; a backup is taken before any."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from desktop_copilot.core.storage.keyed_worker import rollback

V1 = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    model TEXT,
    system TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    status TEXT NOT NULL,
    stop_reason TEXT,
    error TEXT,
    model TEXT,
    usage TEXT NOT NULL DEFAULT '{}',
    blocks TEXT NOT NULL DEFAULT '[]',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation_id, seq);
"""

V2 = """
CREATE TABLE IF NOT EXISTS search_keys (
    id INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    UNIQUE (conversation_id, message_id)
);
CREATE VIRTUAL TABLE IF NOT EXISTS search_index USING fts5(
    conversation_id UNINDEXED,
    message_id UNINDEXED,
    body,
    tokenize = 'unicode61 remove_diacritics 2'
);
"""
"""Full-text search over titles (message_id '') and message text, thinking and tool results.
CJK characters are indexed one per token (see search.segment), so 天气 is found in 今天香港天气.
`search_keys` gives each indexed text its rowid, so replacing one does not scan the index."""

V3 = """
CREATE TABLE IF NOT EXISTS archived_tails (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    anchor INTEGER NOT NULL,
    created_at REAL NOT NULL,
    messages TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS archived_tails_by_conversation ON archived_tails(conversation_id, anchor);
"""
"""Earlier versions of a conversation's tail: the messages from position `anchor` on, as they were
before the user edited a message or regenerated a reply."""

V4 = """
ALTER TABLE conversations ADD COLUMN provider TEXT;
ALTER TABLE messages ADD COLUMN provider TEXT
"""
"""Which provider a conversation talks to, and which provider wrote each reply (NULL: Anthropic, the only
one before)."""

V5 = """
ALTER TABLE conversations ADD COLUMN assistant_id TEXT;
ALTER TABLE conversations ADD COLUMN thinking_budget INTEGER;
ALTER TABLE conversations ADD COLUMN tools TEXT
"""
"""What a conversation took from the assistant it started from: the assistant's id, its thinking (NULL: as in
Settings, 0: off) and the tools it offers (a JSON list of names; NULL: the ones switched on in Settings)."""

V6 = """
CREATE TABLE IF NOT EXISTS search_pending (
    conversation_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    PRIMARY KEY (conversation_id, message_id)
) WITHOUT ROWID
"""
"""Messages saved whose search rows are not written yet (the index is written on a background thread): what
is left here at start, after an exit or a crash in between, is indexed then."""

V7 = """
ALTER TABLE conversations ADD COLUMN temperature REAL;
ALTER TABLE conversations ADD COLUMN top_p REAL
"""
"""A conversation's generation options (core.conversation.generation; NULL: the model's default)."""

V8 = """
CREATE TABLE IF NOT EXISTS compactions (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    first_message_id TEXT NOT NULL,
    last_message_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    summary TEXT NOT NULL DEFAULT '',
    messages INTEGER NOT NULL DEFAULT 0,
    tokens_before INTEGER NOT NULL DEFAULT 0,
    tokens_after INTEGER NOT NULL DEFAULT 0,
    model TEXT,
    provider TEXT,
    created_at REAL NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0,
    replaces TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS compactions_by_conversation ON compactions(conversation_id, seq);
ALTER TABLE conversations ADD COLUMN summarised_from TEXT
"""
"""What requests send in place of a conversation's older messages (core.conversation.models.Compaction, in the order
`seq`); the messages themselves stay. And the conversation a new one was started from as a summary."""

V9 = """
CREATE TABLE IF NOT EXISTS file_snapshots (
    id INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    message_id TEXT NOT NULL,
    tool_call_id TEXT NOT NULL DEFAULT '',
    path TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    existed INTEGER NOT NULL,
    before_bytes BLOB,
    too_large INTEGER NOT NULL DEFAULT 0,
    after_hash TEXT NOT NULL,
    after_bytes BLOB,
    created_at REAL NOT NULL,
    undone_at REAL
);
CREATE INDEX IF NOT EXISTS file_snapshots_by_message ON file_snapshots(conversation_id, message_id)
"""
"""A workspace file's state before a tool call changed it (core.storage.file_snapshots), so a reply's file changes can
be undone (core.file_undo): its bytes before (NULL when it did not exist, or `too_large` to keep), the hash and bytes
of what the tool wrote, and when the change was undone."""

MIGRATIONS: dict[int, str] = {1: V1, 2: V2, 3: V3, 4: V4, 5: V5, 6: V6, 7: V7, 8: V8, 9: V9}
SCHEMA_VERSION = max(MIGRATIONS)


class NewerSchemaError(RuntimeError):
    pass


def backup(db: sqlite3.Connection, path: Path, version: int) -> Path:
    """Copy the database next to itself before it is migrated."""
    target = path.with_name(f"{path.stem}.backup-v{version}-{time.strftime('%Y%m%d-%H%M%S')}{path.suffix}")
    with sqlite3.connect(target) as copy:
        db.backup(copy)
    copy.close()
    return target


def migrate(db: sqlite3.Connection, path: Path, after_step=None, *, keep_backup: bool = True) -> Path | None:
    """Bring the database to SCHEMA_VERSION. Returns the backup taken, if any (none without `keep_backup`: a copy in
    memory of the file at `path`, which stays as it is). `after_step(version)` runs inside each step's transaction
    (used to rebuild derived data)."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(
            f"{path} was written by a newer Desktop Copilot (schema {version}); update the app to open it."
        )
    if version == SCHEMA_VERSION:
        return None
    backup_path = backup(db, path, version) if version > 0 and keep_backup else None
    for step in range(version + 1, SCHEMA_VERSION + 1):
        db.execute("BEGIN IMMEDIATE")
        if db.execute("PRAGMA user_version").fetchone()[0] >= step:  # another process (`ask`, a second start) did it
            db.execute("COMMIT")
            continue
        try:
            for statement in filter(str.strip, MIGRATIONS[step].split(";\n")):
                db.execute(statement)
            if after_step is not None:
                after_step(step)
            db.execute(f"PRAGMA user_version={step}")
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise
    return backup_path
