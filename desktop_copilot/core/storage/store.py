"""SQLite store (WAL) of conversations and their messages, blocks kept exactly as received."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from pydantic import TypeAdapter

from desktop_copilot.core.models import Block, Conversation, Message, MessageStatus, Usage, now
from desktop_copilot.core.storage import schema
from desktop_copilot.core.storage.schema import SCHEMA_VERSION, NewerSchemaError  # noqa: F401 (re-export)
from desktop_copilot.core.storage.search import MARK_END, MARK_START, fts_query, searchable_text, segment, unsegment

_BLOCKS = TypeAdapter(list[Block])


class DamagedDatabaseError(RuntimeError):
    """The database failed its integrity check; it was renamed aside (see `kept_at`)."""

    def __init__(self, path: Path, kept_at: Path, detail: str) -> None:
        super().__init__(
            f"The conversation database was damaged ({detail}). It was kept at {kept_at} and a new one was started."
        )
        self.path, self.kept_at = path, kept_at


class MessageSummary(NamedTuple):
    """What a transcript needs to lay out a message before reading it."""

    id: str
    role: str
    status: str
    size: int
    """Bytes of the stored blocks (UTF-8 JSON): a hint of how tall the message is."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    conversation_id: str
    message_id: str
    """Empty when the conversation's title matched."""
    title: str
    snippet: str
    """Matching text with the match between MARK_START and MARK_END."""


class Store:
    """One connection to the database file; every write is its own short transaction."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = self._connect()
        self.backup_path = schema.migrate(self._db, self.path, after_step=self._after_migration)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.row_factory = sqlite3.Row
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=5000"):
            db.execute(f"PRAGMA {pragma}")
        return db

    @classmethod
    def open_checked(cls, path: Path | str) -> tuple[Store, DamagedDatabaseError | None]:
        """Open after an integrity check. A damaged file is renamed aside (never deleted) and a
        fresh database is started; the returned error says where the old one was kept."""
        path = Path(path)
        problem = _integrity_problem(path)
        if problem is None:
            return cls(path), None
        kept_at = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        path.rename(kept_at)
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                side.rename(kept_at.with_name(kept_at.name + suffix))
        return cls(path), DamagedDatabaseError(path, kept_at, problem)

    def _after_migration(self, version: int) -> None:
        if version == 2:
            self._reindex_all()

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
        self._index(conversation.id, "", conversation.title)

    def touch_conversation(self, conversation_id: str, updated_at: float | None = None) -> None:
        self._db.execute("UPDATE conversations SET updated_at=? WHERE id=?", (updated_at or now(), conversation_id))

    def list_conversations(self) -> list[Conversation]:
        rows = self._db.execute("SELECT * FROM conversations ORDER BY updated_at DESC").fetchall()
        return [self._conversation(row) for row in rows]

    def latest_conversation_id(self) -> str | None:
        row = self._db.execute("SELECT id FROM conversations ORDER BY updated_at DESC LIMIT 1").fetchone()
        return row["id"] if row else None

    def load_conversation(self, conversation_id: str) -> Conversation | None:
        conversation = self.load_conversation_header(conversation_id)
        if conversation is None:
            return None
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id=? ORDER BY seq", (conversation_id,)
        ).fetchall()
        conversation.messages = [self._message(r) for r in rows]
        return conversation

    def delete_conversation(self, conversation_id: str) -> None:
        with self.transaction():
            self._unindex(conversation_id)
            self._db.execute("DELETE FROM conversations WHERE id=?", (conversation_id,))

    # --- lazy loading (a long conversation is opened without reading every message) -----

    def load_conversation_header(self, conversation_id: str) -> Conversation | None:
        """The conversation without its messages."""
        row = self._db.execute("SELECT * FROM conversations WHERE id=?", (conversation_id,)).fetchone()
        return None if row is None else self._conversation(row)

    def message_index(self, conversation_id: str) -> list[MessageSummary]:
        """(id, role, status, size) of every message in order, without reading their blocks."""
        cursor = self._db.cursor()
        cursor.row_factory = None  # plain tuples: ten thousand rows in a few milliseconds
        cursor.execute(  # the length in bytes: SQLite need not read the text to count its characters
            "SELECT id, role, status, length(CAST(blocks AS BLOB)) FROM messages WHERE conversation_id=? ORDER BY seq",
            (conversation_id,),
        )
        return list(map(MessageSummary._make, cursor))

    def load_messages(self, message_ids: list[str]) -> list[Message]:
        """The messages with these ids, in the order given (unknown ids are left out)."""
        found: dict[str, Message] = {}
        for start in range(0, len(message_ids), 500):  # SQLite limits the number of parameters
            batch = message_ids[start : start + 500]
            marks = ",".join("?" * len(batch))
            for row in self._db.execute(f"SELECT * FROM messages WHERE id IN ({marks})", batch).fetchall():
                found[row["id"]] = self._message(row)
        return [found[i] for i in message_ids if i in found]

    def load_message_range(self, conversation_id: str, offset: int, limit: int) -> list[Message]:
        """`limit` messages from position `offset` (0 = the oldest)."""
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id=? ORDER BY seq LIMIT ? OFFSET ?", (conversation_id, limit, offset)
        ).fetchall()
        return [self._message(r) for r in rows]

    def conversation_usage(self, conversation_id: str) -> Usage:
        """The summed token usage of a conversation's messages, computed in SQL."""
        row = self._db.execute(
            """SELECT COALESCE(SUM(json_extract(usage, '$.input_tokens')), 0),
                      COALESCE(SUM(json_extract(usage, '$.output_tokens')), 0),
                      COALESCE(SUM(json_extract(usage, '$.cache_read_tokens')), 0),
                      COALESCE(SUM(json_extract(usage, '$.cache_write_tokens')), 0)
               FROM messages WHERE conversation_id=?""",
            (conversation_id,),
        ).fetchone()
        return Usage(input_tokens=row[0], output_tokens=row[1], cache_read_tokens=row[2], cache_write_tokens=row[3])

    # --- messages ----------------------------------------------------------------------

    def save_message(self, conversation_id: str, seq: int, message: Message) -> None:
        """Insert or replace one message (called repeatedly while it streams). A finished
        message is also (re)indexed for search."""
        blocks = _BLOCKS.dump_json(message.blocks).decode()
        with self.transaction():
            self._db.execute(
                """INSERT INTO messages (id, conversation_id, seq, role, status, stop_reason, error, model,
                                         usage, blocks, created_at, updated_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT(id) DO UPDATE SET seq=excluded.seq, status=excluded.status,
                       stop_reason=excluded.stop_reason, error=excluded.error, model=excluded.model,
                       usage=excluded.usage, blocks=excluded.blocks, updated_at=excluded.updated_at""",
                (message.id, conversation_id, seq, message.role.value, message.status.value, message.stop_reason,
                 message.error, message.model, message.usage.model_dump_json(), blocks, message.created_at, now()),
            )
            if message.status.finished:
                self._index(conversation_id, message.id, searchable_text(message))

    def mark_unfinished_interrupted(self) -> int:
        """After a crash: replies still marked as streaming become interrupted. Returns how many."""
        rows = self._db.execute(
            "SELECT * FROM messages WHERE status IN (?, ?)",
            (MessageStatus.STREAMING.value, MessageStatus.CREATED.value),
        ).fetchall()
        with self.transaction():
            self._db.execute(
                "UPDATE messages SET status=?, error=COALESCE(error, ?) WHERE status IN (?, ?)",
                (MessageStatus.INTERRUPTED.value, "The app closed before this reply finished.",
                 MessageStatus.STREAMING.value, MessageStatus.CREATED.value),
            )
            for row in rows:  # the status change does not touch the searchable text: index what was read
                self._index(row["conversation_id"], row["id"], searchable_text(self._message(row)))
        return len(rows)

    # --- search ------------------------------------------------------------------------

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Conversations and messages matching every word of `query` (CJK included), best first."""
        match = fts_query(query)
        if match is None:
            return []
        rows = self._db.execute(
            f"""SELECT s.conversation_id, s.message_id, c.title,
                       snippet(search_index, 2, '{MARK_START}', '{MARK_END}', '…', 16) AS snippet
                FROM search_index AS s JOIN conversations AS c ON c.id = s.conversation_id
                WHERE search_index MATCH ? ORDER BY rank LIMIT ?""",
            (match, limit),
        ).fetchall()
        return [SearchHit(r["conversation_id"], r["message_id"], r["title"], unsegment(r["snippet"])) for r in rows]

    def _index(self, conversation_id: str, message_id: str, text: str) -> None:
        key = self._db.execute(
            "SELECT id FROM search_keys WHERE conversation_id=? AND message_id=?", (conversation_id, message_id)
        ).fetchone()
        if key is not None:
            self._db.execute("DELETE FROM search_index WHERE rowid=?", (key[0],))
        if not text.strip():
            if key is not None:
                self._db.execute("DELETE FROM search_keys WHERE id=?", (key[0],))
            return
        if key is None:
            key = self._db.execute(
                "INSERT INTO search_keys (conversation_id, message_id) VALUES (?, ?) RETURNING id",
                (conversation_id, message_id),
            ).fetchone()
        self._db.execute(
            "INSERT INTO search_index (rowid, conversation_id, message_id, body) VALUES (?, ?, ?, ?)",
            (key[0], conversation_id, message_id, segment(text)),
        )

    def _unindex(self, conversation_id: str, message_ids: list[str] | None = None) -> None:
        """Drop the search rows of a conversation (or of some of its messages)."""
        query = "SELECT id FROM search_keys WHERE conversation_id=?"
        args: list = [conversation_id]
        if message_ids is not None:
            query += f" AND message_id IN ({','.join('?' * len(message_ids))})"
            args += message_ids
        ids = [row[0] for row in self._db.execute(query, args).fetchall()]
        self._db.executemany("DELETE FROM search_index WHERE rowid=?", [(i,) for i in ids])
        self._db.executemany("DELETE FROM search_keys WHERE id=?", [(i,) for i in ids])

    def _reindex_all(self) -> None:
        self._db.execute("DELETE FROM search_index")
        self._db.execute("DELETE FROM search_keys")
        for row in self._db.execute("SELECT id, title FROM conversations").fetchall():
            self._index(row["id"], "", row["title"])
        for row in self._db.execute("SELECT * FROM messages").fetchall():
            self._index(row["conversation_id"], row["id"], searchable_text(self._message(row)))

    def transaction(self) -> _Transaction:
        """A write transaction for modules that extend the store (nests inside another)."""
        return _Transaction(self._db)

    @property
    def connection(self) -> sqlite3.Connection:
        return self._db

    def delete_messages(self, conversation_id: str, message_ids: list[str]) -> None:
        with self.transaction():
            for message_id in message_ids:
                self._db.execute("DELETE FROM messages WHERE id=? AND conversation_id=?", (message_id, conversation_id))
            self._unindex(conversation_id, message_ids)

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


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on error; nests by doing nothing when already inside."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._owner = False

    def __enter__(self) -> sqlite3.Connection:
        if not self._db.in_transaction:
            self._db.execute("BEGIN IMMEDIATE")
            self._owner = True
        return self._db

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._owner:
            self._db.execute("ROLLBACK" if exc_type else "COMMIT")


def _integrity_problem(path: Path) -> str | None:
    """None when the file is absent or passes `PRAGMA quick_check`; else what is wrong."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            result = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
        db.close()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return None if result == ["ok"] else "; ".join(result[:3])
