"""MessageWriter: writes messages' rows (and the conversation headers a disk problem deferred) on a thread of its
own, with its own SQLite connection, so a long reply saved while it streams (and when it finishes) never makes the
saving thread wait for the disk; rows a full or read-only disk refused wait there, in order, until they are written."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from pydantic import TypeAdapter

from desktop_copilot.core.conversation.models import Block, Conversation, Message, Usage, now
from desktop_copilot.core.storage.background_index import BackgroundIndexer
from desktop_copilot.core.storage.keyed_worker import KeyedWorker, rollback
from desktop_copilot.core.storage.search import searchable_text
from desktop_copilot.core.storage.search_index import SearchIndex

BLOCKS = TypeAdapter(list[Block])
UPSERT = """INSERT INTO messages (id, conversation_id, seq, role, status, stop_reason, error, model, provider,
                                  usage, blocks, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?)
            ON CONFLICT(id) DO UPDATE SET seq=excluded.seq, status=excluded.status,
                stop_reason=excluded.stop_reason, error=excluded.error, model=excluded.model,
                provider=excluded.provider, usage=excluded.usage, blocks=excluded.blocks,
                updated_at=excluded.updated_at"""
"""The blocks are bound as the UTF-8 JSON pydantic makes and cast to TEXT by SQLite (the database's encoding is UTF-8:
the bytes are kept as they are): no str is made of a long reply's JSON only to be encoded back to UTF-8 by sqlite3."""
PENDING = "INSERT OR IGNORE INTO search_pending (conversation_id, message_id) VALUES (?, ?)"
UPSERT_HEADER = """INSERT INTO conversations (id, title, provider, model, system, assistant_id, thinking_budget, tools,
                                             temperature, top_p, created_at, updated_at, summarised_from)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT(id) DO UPDATE SET title=excluded.title, provider=excluded.provider, model=excluded.model,
                       system=excluded.system, assistant_id=excluded.assistant_id, thinking_budget=excluded.thinking_budget,
                       tools=excluded.tools, temperature=excluded.temperature, top_p=excluded.top_p,
                       updated_at=excluded.updated_at, summarised_from=excluded.summarised_from"""


@dataclass(frozen=True, slots=True)
class MessageRow:
    """A message as it is written, taken on the saving thread (the message may change while the row waits)."""

    conversation_id: str
    message_id: str
    values: tuple
    """UPSERT's parameters (the blocks as UTF-8 JSON bytes)."""
    search_text: str | None
    """What to index when the message is finished; None while it is not."""

    @classmethod
    def of(cls, conversation_id: str, seq: int, message: Message) -> MessageRow:
        message.settle()
        values = (message.id, conversation_id, seq, message.role.value, message.status.value, message.stop_reason,
                  message.error, message.model, message.provider, message.usage.model_dump_json(),
                  BLOCKS.dump_json(message.blocks), message.created_at, now())
        return cls(conversation_id, message.id, values, searchable_text(message) if message.status.finished else None)

    @property
    def key(self) -> str:
        return self.message_id

    @property
    def seq(self) -> int:
        return self.values[2]

    def message(self) -> Message:
        """The message this row holds (read back while the row waits for the disk)."""
        id_, _, _, role, status, stop_reason, error, model, provider, usage, blocks, created_at, _ = self.values
        return Message(id=id_, role=role, status=status, stop_reason=stop_reason, error=error, model=model,
                       provider=provider, usage=Usage.model_validate_json(usage), blocks=BLOCKS.validate_json(blocks),
                       created_at=created_at)

    def write(self, db: sqlite3.Connection) -> None:
        """Inside a transaction: the row, and for a finished message the note that its search row is due."""
        db.execute(UPSERT, self.values)
        if self.search_text is not None:
            db.execute(PENDING, (self.conversation_id, self.message_id))


@dataclass(frozen=True, slots=True)
class HeaderRow:
    """A conversation's header (and its title's search row) as it is written, taken on the saving thread."""

    conversation_id: str
    values: tuple
    """UPSERT_HEADER's parameters."""
    title: str
    search_text = None

    @classmethod
    def of(cls, conversation: Conversation) -> HeaderRow:
        tools = None if conversation.tools is None else json.dumps(sorted(conversation.tools))
        values = (conversation.id, conversation.title, conversation.provider, conversation.model, conversation.system,
                  conversation.assistant_id, conversation.thinking_budget, tools, conversation.temperature,
                  conversation.top_p, conversation.created_at, conversation.updated_at, conversation.summarised_from)
        return cls(conversation.id, values, conversation.title)

    @property
    def key(self) -> tuple[str, str]:
        return ("conversation", self.conversation_id)

    def conversation(self) -> Conversation:
        """The header this row holds (read back while the row waits for the disk)."""
        id_, title, provider, model, system, assistant_id, budget, tools, temperature, top_p, created_at, updated_at, \
            summarised_from = self.values
        return Conversation(id=id_, title=title, provider=provider, model=model, system=system, assistant_id=assistant_id,
                            thinking_budget=budget, tools=None if tools is None else json.loads(tools),
                            temperature=temperature, top_p=top_p, created_at=created_at, updated_at=updated_at,
                            summarised_from=summarised_from)

    def write(self, db: sqlite3.Connection) -> None:
        """Inside a transaction."""
        db.execute(UPSERT_HEADER, self.values)
        SearchIndex(db).index(self.conversation_id, "", self.title)


class MessageWriter(KeyedWorker):
    """Message id -> its newest MessageRow, ("conversation", id) -> its newest HeaderRow (a row superseded before
    it was written is never written). Once a finished message's row is committed its text goes to the indexer."""

    thread_name = "message-writer"

    def __init__(self, connect, indexer: BackgroundIndexer) -> None:
        super().__init__(connect, indexer.health)
        self._indexer = indexer

    def _handle(self, db: sqlite3.Connection, key: str, row: MessageRow | HeaderRow) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            row.write(db)
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise
        if row.search_text is not None:
            self._indexer.index(row.conversation_id, row.message_id, row.search_text)
