"""MessageWriter: writes messages' rows on a thread of its own, with its own SQLite connection, so a long reply
saved while it streams (and when it finishes) never makes the saving thread wait for the disk."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from pydantic import TypeAdapter

from desktop_copilot.core.models import Block, Message, now
from desktop_copilot.core.storage.background_index import BackgroundIndexer
from desktop_copilot.core.storage.keyed_worker import KeyedWorker
from desktop_copilot.core.storage.search import searchable_text

BLOCKS = TypeAdapter(list[Block])
UPSERT = """INSERT INTO messages (id, conversation_id, seq, role, status, stop_reason, error, model, provider,
                                  usage, blocks, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET seq=excluded.seq, status=excluded.status,
                stop_reason=excluded.stop_reason, error=excluded.error, model=excluded.model,
                provider=excluded.provider, usage=excluded.usage, blocks=excluded.blocks,
                updated_at=excluded.updated_at"""
PENDING = "INSERT OR IGNORE INTO search_pending (conversation_id, message_id) VALUES (?, ?)"


@dataclass(frozen=True, slots=True)
class MessageRow:
    """A message as it is written, taken on the saving thread (the message may change while the row waits)."""

    conversation_id: str
    message_id: str
    values: tuple
    """UPSERT's parameters."""
    search_text: str | None
    """What to index when the message is finished; None while it is not."""

    @classmethod
    def of(cls, conversation_id: str, seq: int, message: Message) -> MessageRow:
        values = (message.id, conversation_id, seq, message.role.value, message.status.value, message.stop_reason,
                  message.error, message.model, message.provider, message.usage.model_dump_json(),
                  BLOCKS.dump_json(message.blocks).decode(), message.created_at, now())
        return cls(conversation_id, message.id, values, searchable_text(message) if message.status.finished else None)

    def write(self, db: sqlite3.Connection) -> None:
        """Inside a transaction: the row, and for a finished message the note that its search row is due."""
        db.execute(UPSERT, self.values)
        if self.search_text is not None:
            db.execute(PENDING, (self.conversation_id, self.message_id))


class MessageWriter(KeyedWorker):
    """Message id -> its newest MessageRow (a row superseded before it was written is never written). Once a
    finished message's row is committed its text goes to the indexer."""

    thread_name = "message-writer"

    def __init__(self, connect, indexer: BackgroundIndexer) -> None:
        super().__init__(connect)
        self._indexer = indexer

    def _handle(self, db: sqlite3.Connection, key: str, row: MessageRow) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            row.write(db)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if row.search_text is not None:
            self._indexer.index(row.conversation_id, row.message_id, row.search_text)
