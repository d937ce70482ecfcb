"""A conversation's compactions in the `compactions` table (schema V8): written one by one as they are made or
undone, read back in order with the conversation."""

from __future__ import annotations

import json
import sqlite3

from desktop_copilot.core.conversation.models import Compaction

COLUMNS = ("id", "conversation_id", "seq", "first_message_id", "last_message_id", "kind", "summary", "messages",
           "tokens_before", "tokens_after", "model", "provider", "created_at", "undone", "replaces")
UPSERT = (f"INSERT INTO compactions ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
          "ON CONFLICT(id) DO UPDATE SET " + ", ".join(f"{c}=excluded.{c}" for c in COLUMNS[2:]))


def write_compaction(db: sqlite3.Connection, conversation_id: str, seq: int, compaction: Compaction) -> None:
    """Inside a transaction: insert `compaction`, or update it (undone)."""
    c = compaction
    db.execute(UPSERT, (c.id, conversation_id, seq, c.first_message_id, c.last_message_id, c.kind, c.summary, c.messages,
                        c.tokens_before, c.tokens_after, c.model, c.provider, c.created_at, int(c.undone),
                        json.dumps(c.replaces)))


def read_compactions(db: sqlite3.Connection, conversation_id: str) -> list[Compaction]:
    """The conversation's compactions, oldest first."""
    rows = db.execute("SELECT * FROM compactions WHERE conversation_id=? ORDER BY seq, created_at", (conversation_id,))
    return [Compaction(id=row["id"], first_message_id=row["first_message_id"], last_message_id=row["last_message_id"],
                       kind=row["kind"], summary=row["summary"], messages=row["messages"],
                       tokens_before=row["tokens_before"], tokens_after=row["tokens_after"], model=row["model"],
                       provider=row["provider"], created_at=row["created_at"], undone=bool(row["undone"]),
                       replaces=json.loads(row["replaces"]))
            for row in rows.fetchall()]
