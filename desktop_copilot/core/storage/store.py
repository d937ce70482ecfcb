"""SQLite store (WAL) of conversations and their messages, blocks kept exactly as received."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from pydantic import TypeAdapter

from desktop_copilot.core.models import Block, Conversation, Message, MessageStatus, Usage, now

SCHEMA_VERSION = 1
_BLOCKS = TypeAdapter(list[Block])

_SCHEMA = """
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


class Store:
    """One connection to the database file; every write is its own short transaction."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._migrate()

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{self.path} was written by a newer Desktop Copilot (schema {version}); update the app to open it."
            )
        if version < SCHEMA_VERSION:
            with self._db:
                self._db.executescript(_SCHEMA)
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        self._db.close()

    # --- conversations -----------------------------------------------------------------

    def save_conversation(self, conversation: Conversation) -> None:
        conversation.updated_at = now()
        self._db.execute(
            """INSERT INTO conversations (id, title, model, system, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT(id) DO UPDATE SET title=excluded.title, model=excluded.model,
                   system=excluded.system, updated_at=excluded.updated_at""",
            (conversation.id, conversation.title, conversation.model, conversation.system,
             conversation.created_at, conversation.updated_at),
        )

    def list_conversations(self) -> list[Conversation]:
        rows = self._db.execute("SELECT * FROM conversations ORDER BY updated_at DESC").fetchall()
        return [self._conversation(row) for row in rows]

    def latest_conversation_id(self) -> str | None:
        row = self._db.execute("SELECT id FROM conversations ORDER BY updated_at DESC LIMIT 1").fetchone()
        return row["id"] if row else None

    def load_conversation(self, conversation_id: str) -> Conversation | None:
        row = self._db.execute("SELECT * FROM conversations WHERE id=?", (conversation_id,)).fetchone()
        if row is None:
            return None
        conversation = self._conversation(row)
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id=? ORDER BY seq", (conversation_id,)
        ).fetchall()
        conversation.messages = [self._message(r) for r in rows]
        return conversation

    def delete_conversation(self, conversation_id: str) -> None:
        self._db.execute("DELETE FROM conversations WHERE id=?", (conversation_id,))

    # --- messages ----------------------------------------------------------------------

    def save_message(self, conversation_id: str, seq: int, message: Message) -> None:
        """Insert or replace one message (called repeatedly while it streams)."""
        blocks = _BLOCKS.dump_json(message.blocks).decode()
        self._db.execute(
            """INSERT INTO messages (id, conversation_id, seq, role, status, stop_reason, error, model,
                                     usage, blocks, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT(id) DO UPDATE SET status=excluded.status, stop_reason=excluded.stop_reason,
                   error=excluded.error, model=excluded.model, usage=excluded.usage,
                   blocks=excluded.blocks, updated_at=excluded.updated_at""",
            (message.id, conversation_id, seq, message.role.value, message.status.value, message.stop_reason,
             message.error, message.model, message.usage.model_dump_json(), blocks, message.created_at, now()),
        )

    def mark_unfinished_interrupted(self) -> int:
        """After a crash: replies still marked as streaming become interrupted. Returns how many."""
        cursor = self._db.execute(
            "UPDATE messages SET status=?, error=COALESCE(error, ?) WHERE status IN (?, ?)",
            (MessageStatus.INTERRUPTED.value, "The app closed before this reply finished.",
             MessageStatus.STREAMING.value, MessageStatus.CREATED.value),
        )
        return cursor.rowcount

    @staticmethod
    def _conversation(row: sqlite3.Row) -> Conversation:
        return Conversation(id=row["id"], title=row["title"], model=row["model"], system=row["system"],
                            created_at=row["created_at"], updated_at=row["updated_at"])

    @staticmethod
    def _message(row: sqlite3.Row) -> Message:
        return Message(
            id=row["id"], role=row["role"], status=row["status"], stop_reason=row["stop_reason"],
            error=row["error"], model=row["model"], usage=Usage.model_validate(json.loads(row["usage"])),
            blocks=_BLOCKS.validate_json(row["blocks"]), created_at=row["created_at"],
        )
