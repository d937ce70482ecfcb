"""SQLite store (WAL) of conversations and their messages, blocks kept exactly as received; the search
index (search_index.py, written in the background by background_index.py) and the integrity check at start
(integrity.py) live beside it. A full or read-only disk does not lose a write that can wait (health.py): the rows
wait on the writer thread, are read back from there (unwritten.py) and are written once the disk takes them."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from desktop_copilot.core.conversation.models import Compaction, Conversation, Message, MessageStatus, ToolCallStatus, Usage, now
from desktop_copilot.core.storage import schema
from desktop_copilot.core.storage.compaction_rows import read_compactions, write_compaction
from desktop_copilot.core.storage.background_index import BackgroundIndexer
from desktop_copilot.core.storage.health import StorageHealth, StorageUnavailableError, storage_problem
from desktop_copilot.core.storage.in_memory import (
    Unopened,
    keep_in_memory,
    memory_uri,
    moving_to_file,
    read_file_into,
    track_changes,
    unopened,
)
from desktop_copilot.core.storage.integrity import DamagedDatabaseError, integrity_problem, keep_aside
from desktop_copilot.core.storage.keyed_worker import rollback
from desktop_copilot.core.storage.memory_merge import save_into_file
from desktop_copilot.core.storage.message_writer import BLOCKS, PENDING, HeaderRow, MessageRow, MessageWriter
from desktop_copilot.core.storage.schema import SCHEMA_VERSION, NewerSchemaError  # noqa: F401 (re-export)
from desktop_copilot.core.storage.search import searchable_text
from desktop_copilot.core.storage.search_index import SearchHit, SearchIndex
from desktop_copilot.core.storage.unwritten import Unwritten

CLOSED_WAITING = "Not run: the app closed while this call waited for approval."
CLOSED_RUNNING = "The app closed before this tool call finished; its result is unknown."
SEARCH_WAIT = 5.0
"""A search waits at most this many seconds for messages saved before it to be indexed."""
STORE_SOURCE = "store"
"""The store's own connection, as StorageHealth names it."""


class MessageSummary(NamedTuple):
    """What a transcript needs to lay out a message before reading it."""

    id: str
    role: str
    status: str
    size: int
    """Bytes of the stored blocks (UTF-8 JSON): a hint of how tall the message is."""


class Store:
    """One connection to the database file for the caller's thread, where every write is its own short
    transaction; the rows of messages saved with `background=True` (a streaming reply's) and the search rows are
    written by threads of their own (`writer`, `indexer`), each with its own connection. `health` says whether the
    disk takes the writes; headers and messages it refuses wait on the writer thread (see the module's note)."""

    def __init__(self, path: Path | str, pragmas: Sequence[str] = (), *, unopened: Unopened | None = None,
                 defer_indexing: bool = False) -> None:
        """`pragmas`: more PRAGMAs for every connection, after the store's own (debug_pragmas.py: a real SQLite
        limit, e.g. `max_page_count`, that makes the disk full for tests). `unopened`: the file could not be opened
        (in_memory.py): the store is kept in memory until `save_to_disk` can open it. `defer_indexing` (a short-lived
        process: `ask`): the search rows still to be written are left in `search_pending` at open and at close, for the
        next store that indexes (the window, a search) to write; a search here writes them first."""
        self.path = Path(path)
        self.defer_indexing = defer_indexing and unopened is None  # a memory database keeps nothing for later
        self.pragmas = list(pragmas)
        self.unopened = unopened
        """Why the store is kept in memory; None once it is the file at `path`."""
        self.history_shown: bool | None = None
        """While in memory: True when the conversations the file held were read at start (they are shown and can be
        continued; what changes is written into the file by `save_to_disk`); False when there is a file that could not
        be read (damaged, written by a newer version, unreadable: it is left as it is); None without a file."""
        self._memory = memory_uri() if unopened is not None else None
        self.health = StorageHealth(passive=(STORE_SOURCE,))  # a failed write of this connection raised to its caller
        self._open()
        if self._memory is not None:
            keep_in_memory(self.path, self._memory)  # file snapshots are taken there too (file_snapshots.py)

    @classmethod
    def in_memory(cls, path: Path | str, unopened: Unopened) -> Store:
        """A store in memory, for the file at `path` that could not be opened (`unopened` says why)."""
        return cls(path, unopened=unopened)

    def _open(self) -> None:
        if self._memory is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = self._connect()
        self.search_index = SearchIndex(self._db)
        try:
            if self._memory is not None and self.path.is_file():
                damaged = self.unopened is not None and self.unopened.kind == "damaged"
                self.history_shown = not damaged and read_file_into(self._db, self.path)
            self.backup_path = schema.migrate(self._db, self.path, after_step=self._after_migration,
                                              keep_backup=self._memory is None)
            if self._memory is not None:
                track_changes(self._db, read=bool(self.history_shown))
        except BaseException:
            self._db.close()
            raise
        self.indexer = BackgroundIndexer(self._connect, self.health)
        """Writes finished messages' search rows off the caller's thread."""
        self.writer = MessageWriter(self._connect, self.indexer)
        """Writes the rows of messages saved with `background=True` off the caller's thread, and every header or
        message row the disk refused, until it takes them."""
        if not self.defer_indexing:
            self._resume_indexing()

    def _connect(self) -> sqlite3.Connection:
        if self._memory is not None:  # one memory database for every connection; the disk's PRAGMAs do not apply
            db = sqlite3.connect(self._memory, uri=True, isolation_level=None, check_same_thread=False)
            pragmas: tuple[str, ...] = ("busy_timeout=5000", "foreign_keys=ON")
        else:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            pragmas = ("busy_timeout=5000", "journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", *self.pragmas)
        db.row_factory = sqlite3.Row
        try:
            for pragma in pragmas:
                _pragma(db, pragma)
        except BaseException:
            db.close()
            raise
        return db

    def save_to_disk(self) -> bool:
        """While the store is in memory: try the file again (a damaged one is moved aside first); once it opens,
        everything written or changed so far is written into it (memory_merge.py) and the store goes on with the file
        (True). False, with `unopened` saying why, while it still cannot be opened; nothing changes then."""
        if self._memory is None:
            return True
        self._settle()
        self.indexer.wait(SEARCH_WAIT)
        memory = self._memory
        kept = (self._db, self.search_index, self.backup_path, self.indexer, self.writer)
        with moving_to_file():  # a file snapshot taken meanwhile waits, then goes where the store is
            self._memory = None
            try:
                if afresh := (problem := integrity_problem(self.path)) is not None:
                    keep_aside(self.path, problem)
                self._open()
                save_into_file(memory, self.path, afresh=afresh)
            except (sqlite3.Error, OSError, NewerSchemaError) as exc:
                if self.writer is not kept[4]:  # the file opened, the copy failed: close it again
                    self.close()
                self._db, self.search_index, self.backup_path, self.indexer, self.writer = kept
                self._memory = memory
                self.unopened = unopened(self.path, exc)
                return False
            keep_in_memory(self.path, memory, kept=False)
        kept[4].close(timeout=10.0)
        kept[3].close()
        kept[0].close()
        self.unopened = None
        self.history_shown = None
        self._resume_indexing()  # what memory had not indexed yet
        return True

    @classmethod
    def open_checked(cls, path: Path | str, pragmas: Sequence[str] = (), *,
                     defer_indexing: bool = False) -> tuple[Store, DamagedDatabaseError | None]:
        """Open after an integrity check. A damaged file is renamed aside (never deleted) and a
        fresh database is started; the returned error says where the old one was kept."""
        path = Path(path)
        problem = integrity_problem(path)
        if problem is None:
            return cls(path, pragmas, defer_indexing=defer_indexing), None
        damaged = keep_aside(path, problem)  # UnmovableDamageError when it cannot be
        return cls(path, pragmas, defer_indexing=defer_indexing), damaged

    def _after_migration(self, version: int) -> None:
        if version == 2:
            self._reindex_all()

    def close(self) -> bool:
        """Write the messages and search rows still queued, and try once more what waits for the disk (search rows
        that do not fit in a few seconds are written at the next start), then close; False when a disk problem
        kept rows from being written (they are logged)."""
        written = self.writer.close(timeout=60.0)
        if self.defer_indexing:  # their search_pending rows stay for the next store
            self.indexer.discard(lambda key, text: False)
        self.indexer.close()
        self._db.close()
        if self._memory is not None:
            keep_in_memory(self.path, self._memory, kept=False)
        return written

    def retry_unwritten(self, timeout: float | None = 10.0) -> bool:
        """Try the rows waiting for the disk now (the writer also tries every few seconds); True when none waits."""
        written = self.writer.retry(timeout)
        return self.indexer.retry(timeout) and written

    def _write_or_defer(self, row: HeaderRow | MessageRow) -> bool:
        """Write `row` now (True); or, while rows wait for the disk or when this one fails on it, leave it to the
        writer thread, after those, which keeps trying until the disk takes it (False)."""
        if self._db.in_transaction:  # inside the caller's transaction: its failure is the caller's
            with self.transaction():
                row.write(self._db)
            return True
        self._settle()
        if not self.writer.held():  # and nothing queued: no older row of the key can land after this one
            try:
                with self.transaction():
                    row.write(self._db)
                return True
            except sqlite3.Error as exc:
                if (problem := storage_problem(exc)) is None:
                    raise
                self.health.failed(self.writer.thread_name, problem)  # the writer holds it from now on
                self.health.succeeded(STORE_SOURCE)
        self.writer.submit(row.key, row)
        return False

    def _unwritten(self) -> Unwritten:
        """The rows not written yet, after the queued ones were written or joined those waiting for the disk."""
        self._settle()
        return Unwritten.of(self.writer.pending())

    # --- conversations -----------------------------------------------------------------

    def save_conversation(self, conversation: Conversation) -> None:
        """Insert or update the conversation's header and its title's search row, in one transaction (on the
        writer thread, later, when the disk refuses it now)."""
        conversation.updated_at = now()
        self._write_or_defer(HeaderRow.of(conversation))

    def touch_conversation(self, conversation_id: str, updated_at: float | None = None) -> None:
        """Set when the conversation last changed (kept as it was when the disk refuses it)."""
        try:
            with self.transaction():
                self._db.execute("UPDATE conversations SET updated_at=? WHERE id=?", (updated_at or now(), conversation_id))
        except StorageUnavailableError:
            pass

    def list_conversations(self) -> list[Conversation]:
        unwritten = Unwritten.of(self.writer.pending())  # before the read: a header written meanwhile is read either way
        rows = self._db.execute("SELECT * FROM conversations ORDER BY updated_at DESC").fetchall()
        stored = [self._conversation(row) for row in rows]
        return unwritten.conversations(stored) if unwritten.headers else stored

    def latest_conversation_id(self) -> str | None:
        row = self._db.execute("SELECT id FROM conversations ORDER BY updated_at DESC LIMIT 1").fetchone()
        return row["id"] if row else None

    def load_conversation(self, conversation_id: str) -> Conversation | None:
        unwritten = self._unwritten()
        conversation = self.load_conversation_header(conversation_id)
        if conversation is None:
            return None
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id=? ORDER BY seq", (conversation_id,)
        ).fetchall()
        stored = [(row["seq"], row["id"], self._message(row)) for row in rows]
        items = unwritten.in_order(conversation_id, stored) if unwritten else [item for *_, item in stored]
        conversation.messages = [item.message() if isinstance(item, MessageRow) else item for item in items]
        return conversation

    def delete_conversation(self, conversation_id: str) -> None:
        self._settle()
        with self.transaction():
            self.search_index.unindex(conversation_id)
            self._db.execute("DELETE FROM conversations WHERE id=?", (conversation_id,))
        self.writer.discard(lambda _key, row: row.conversation_id != conversation_id)  # not written later either

    # --- lazy loading (a long conversation is opened without reading every message) -----

    def load_conversation_header(self, conversation_id: str) -> Conversation | None:
        """The conversation without its messages (with its compactions)."""
        unwritten = Unwritten.of(self.writer.pending())
        row = self._db.execute("SELECT * FROM conversations WHERE id=?", (conversation_id,)).fetchone()
        stored = None if row is None else self._conversation(row)
        conversation = unwritten.header(conversation_id, stored)
        if conversation is not None:
            conversation.compactions = read_compactions(self._db, conversation_id)
        return conversation

    def save_compaction(self, conversation_id: str, seq: int, compaction: Compaction) -> None:
        """Insert or update one of the conversation's compactions (`seq`: its place among them); the conversation's
        header must be stored. StorageUnavailableError when the disk refuses it."""
        with self.transaction() as db:
            write_compaction(db, conversation_id, seq, compaction)

    def message_index(self, conversation_id: str) -> list[MessageSummary]:
        """(id, role, status, size) of every message in order, without reading their blocks."""
        unwritten = self._unwritten()
        if unwritten.of_conversation(conversation_id):
            return self._message_index_with(unwritten, conversation_id)
        cursor = self._db.cursor()
        cursor.row_factory = None  # plain tuples: ten thousand rows in a few milliseconds
        cursor.execute(  # the length in bytes: SQLite need not read the text to count its characters
            "SELECT id, role, status, length(CAST(blocks AS BLOB)) FROM messages WHERE conversation_id=? ORDER BY seq",
            (conversation_id,),
        )
        return list(map(MessageSummary._make, cursor))

    def _message_index_with(self, unwritten: Unwritten, conversation_id: str) -> list[MessageSummary]:
        rows = self._db.execute(
            "SELECT seq, id, role, status, length(CAST(blocks AS BLOB)) FROM messages WHERE conversation_id=? ORDER BY seq",
            (conversation_id,),
        ).fetchall()
        stored = [(row[0], row[1], MessageSummary(*tuple(row)[1:])) for row in rows]
        return [MessageSummary(item.message_id, item.values[3], item.values[4], len(item.values[10]))
                if isinstance(item, MessageRow) else item for item in unwritten.in_order(conversation_id, stored)]

    def load_messages(self, message_ids: list[str]) -> list[Message]:
        """The messages with these ids, in the order given (unknown ids are left out)."""
        unwritten = self._unwritten()
        found: dict[str, Message] = {}
        for start in range(0, len(message_ids), 500):  # SQLite limits the number of parameters
            batch = message_ids[start : start + 500]
            marks = ",".join("?" * len(batch))
            for row in self._db.execute(f"SELECT * FROM messages WHERE id IN ({marks})", batch).fetchall():
                found[row["id"]] = self._message(row)
        for row in unwritten.messages:
            if row.message_id in message_ids:
                found[row.message_id] = row.message()
        return [found[i] for i in message_ids if i in found]

    def load_message_range(self, conversation_id: str, offset: int, limit: int) -> list[Message]:
        """`limit` messages from position `offset` (0 = the oldest)."""
        self._settle()
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id=? ORDER BY seq LIMIT ? OFFSET ?", (conversation_id, limit, offset)
        ).fetchall()
        return [self._message(r) for r in rows]

    def newest_statuses(self) -> dict[str, str]:
        """Each conversation's newest message's status ("failed", "interrupted", …), in one indexed query."""
        self._settle()
        rows = self._db.execute(
            """SELECT m.conversation_id, m.status FROM messages AS m
               JOIN (SELECT conversation_id, MAX(seq) AS seq FROM messages GROUP BY conversation_id) AS newest
                 ON m.conversation_id = newest.conversation_id AND m.seq = newest.seq"""
        ).fetchall()
        return {row[0]: row[1] for row in rows}

    # --- messages ----------------------------------------------------------------------

    def save_message(self, conversation_id: str, seq: int, message: Message, *, background: bool = False) -> None:
        """Insert or replace one message (called repeatedly while it streams). A finished message is also
        (re)indexed for search, in the background. `background`: the row is taken now and written by the writer
        thread (the caller does not wait for the disk); every later call that reads or writes messages waits
        for it first, and `close` writes it."""
        row = MessageRow.of(conversation_id, seq, message)
        if background:
            self.writer.submit(message.id, row)
            return
        self._settle()
        if self._write_or_defer(row) and row.search_text is not None:  # deferred: the writer has it indexed
            self.indexer.index(conversation_id, message.id, row.search_text)

    def _settle(self) -> None:
        """Before reading or writing messages here: the rows queued on the writer thread are written."""
        self.writer.wait()

    def _queue_index(self, conversation_id: str, message: Message) -> None:
        """Inside a write: note that the message's search row is to be (re)written, by the indexer's thread."""
        self._db.execute(PENDING, (conversation_id, message.id))

    def _index_now(self) -> None:
        """A store that deferred indexing indexes from now on, what is pending first (a search is about to read)."""
        if self.defer_indexing:
            self.defer_indexing = False
            self._settle()
            self._resume_indexing()

    def _resume_indexing(self) -> None:
        """At start: index the messages a previous run saved but did not index (it exited or crashed first)."""
        rows = self._db.execute(
            """SELECT m.* FROM search_pending AS p JOIN messages AS m ON m.id = p.message_id
               AND m.conversation_id = p.conversation_id"""
        ).fetchall()
        for row in rows:
            self.indexer.index(row["conversation_id"], row["id"], searchable_text(self._message(row)))
        try:
            with self.transaction():
                self._db.execute("DELETE FROM search_pending WHERE message_id NOT IN (SELECT id FROM messages)")
        except StorageUnavailableError:  # a disk that takes no write: the next start tidies up
            pass

    def wait_for_index(self, timeout: float | None = None) -> bool:
        """Until the search rows of every message saved so far are written (True), or `timeout` seconds passed."""
        self._index_now()
        self._settle()
        return self.indexer.wait(timeout)

    def mark_unfinished_interrupted(self) -> int:
        """After a crash: replies still marked as streaming become interrupted. Returns how many (none when the disk
        takes no write: they are marked at a later start)."""
        try:
            return self._mark_unfinished_interrupted()
        except StorageUnavailableError:
            return 0

    def _mark_unfinished_interrupted(self) -> int:
        self._settle()
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
            messages = [(row["conversation_id"], self._message(row)) for row in rows]
            for conversation_id, message in messages:
                self._queue_index(conversation_id, message)
            self._close_unfinished_tool_calls()
        for conversation_id, message in messages:  # the status change does not touch the searchable text: index what was read
            self.indexer.index(conversation_id, message.id, searchable_text(message))
        return len(rows)

    def _close_unfinished_tool_calls(self) -> None:
        """After a crash: tool calls left waiting for approval or running end cancelled, saying why (their cards
        stop offering buttons, and the history sends each an error result)."""
        unfinished = [f'%"status":"{status.value}"%' for status in ToolCallStatus if not status.finished]
        where = " OR ".join("blocks LIKE ?" for _ in unfinished)
        for row in self._db.execute(f"SELECT * FROM messages WHERE {where}", unfinished).fetchall():
            message = self._message(row)
            for call in message.tool_calls:
                if not call.status.finished:
                    waiting = call.status is ToolCallStatus.AWAITING_APPROVAL
                    call.finish(ToolCallStatus.CANCELLED, CLOSED_WAITING if waiting else CLOSED_RUNNING, is_error=True)
                    if waiting and call.approval is not None:
                        call.approval.decision, call.approval.reason = "deny", "the app closed before a decision"
            self._db.execute("UPDATE messages SET blocks=? WHERE id=?", (BLOCKS.dump_json(message.blocks).decode(), row["id"]))

    # --- search ------------------------------------------------------------------------

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Conversations and messages matching every word of `query` (CJK included), best first; messages saved
        before the call are found (it waits, a few seconds at most, for their search rows)."""
        self._index_now()
        self._settle()
        self.indexer.wait(SEARCH_WAIT)
        return self.search_index.search(query, limit)

    def _reindex_all(self) -> None:
        from pydantic import TypeAdapter

        self.search_index.clear()
        for row in self._db.execute("SELECT id, title FROM conversations").fetchall():
            self.search_index.index(row["id"], "", row["title"])
        for row in self._db.execute("SELECT * FROM messages").fetchall():
            self.search_index.index(row["conversation_id"], row["id"], searchable_text(self._message(row)))
        archived = TypeAdapter(list[Message])
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name='archived_tails'").fetchone() is None:
            return  # reindexed in the migration before the versions' table came
        for row in self._db.execute("SELECT conversation_id, messages FROM archived_tails").fetchall():  # earlier versions
            for message in archived.validate_json(row["messages"]):
                self.search_index.index(row["conversation_id"], message.id, searchable_text(message))

    def transaction(self) -> _Transaction:
        """A write transaction for modules that extend the store (nests inside another); a disk that refuses it
        raises StorageUnavailableError, and `health` says so until a transaction succeeds."""
        self._settle()
        return _Transaction(self._db, self.health)

    @property
    def connection(self) -> sqlite3.Connection:
        """The connection, once the message rows queued on the writer thread are written (e.g. usage queries read them)."""
        self._settle()
        return self._db

    @property
    def archive_connection(self) -> sqlite3.Connection:
        """The connection, for reading tables the writer thread never writes (archived_tails): without waiting for
        the message rows it has queued (e.g. the final row of a long reply, when the version switcher refreshes)."""
        return self._db

    def delete_messages(self, conversation_id: str, message_ids: list[str], *, keep_searchable: bool = False) -> None:
        """Delete the messages; `keep_searchable`: their search rows stay (they live on as an earlier version)."""
        self._settle()
        with self.transaction():
            for message_id in message_ids:
                self._db.execute("DELETE FROM messages WHERE id=? AND conversation_id=?", (message_id, conversation_id))
            if not keep_searchable:
                self.search_index.unindex(conversation_id, message_ids)
        gone = set(message_ids)  # rows waiting for the disk are not written later either (an archived tail holds them)
        self.writer.discard(lambda _key, row: not (isinstance(row, MessageRow) and row.message_id in gone))

    @staticmethod
    def _conversation(row: sqlite3.Row) -> Conversation:
        tools = _column(row, "tools")
        return Conversation(id=row["id"], title=row["title"], provider=_provider(row), model=row["model"],
                            system=row["system"], assistant_id=_column(row, "assistant_id"),
                            thinking_budget=_column(row, "thinking_budget"), tools=None if tools is None else json.loads(tools),
                            temperature=_column(row, "temperature"), top_p=_column(row, "top_p"),
                            summarised_from=_column(row, "summarised_from"),
                            created_at=row["created_at"], updated_at=row["updated_at"])

    @staticmethod
    def _message(row: sqlite3.Row) -> Message:
        return Message(
            id=row["id"], role=row["role"], status=row["status"], stop_reason=row["stop_reason"],
            error=row["error"], model=row["model"], provider=_provider(row),
            usage=Usage.model_validate(json.loads(row["usage"])),
            blocks=BLOCKS.validate_json(row["blocks"]), created_at=row["created_at"],
        )


def _provider(row: sqlite3.Row) -> str | None:
    """The row's provider; none in rows read while an older schema is migrated (before version 4)."""
    return row["provider"] if "provider" in row.keys() else None


def _column(row: sqlite3.Row, name: str) -> Any:
    """The row's value of a column added later (version 5 on); None in rows read while an older schema is migrated."""
    return row[name] if name in row.keys() else None


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on error; nests by doing nothing when already inside. The outermost
    one tells `health` how the disk took it, and turns a disk's refusal into StorageUnavailableError."""

    def __init__(self, db: sqlite3.Connection, health: StorageHealth) -> None:
        self._db = db
        self._health = health
        self._owner = False

    def __enter__(self) -> sqlite3.Connection:
        if not self._db.in_transaction:
            self._guard(lambda: self._db.execute("BEGIN IMMEDIATE"))
            self._owner = True
        return self._db

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self._owner:
            return
        if exc_type is None:
            self._guard(lambda: self._db.execute("COMMIT"))
            self._health.succeeded(STORE_SOURCE)
            return
        rollback(self._db)
        if (problem := storage_problem(exc)) is not None and not isinstance(exc, StorageUnavailableError):
            self._health.failed(STORE_SOURCE, problem)
            raise StorageUnavailableError(problem) from exc

    def _guard(self, statement) -> None:
        try:
            statement()
        except sqlite3.Error as exc:
            if (problem := storage_problem(exc)) is None:
                raise
            rollback(self._db)
            self._health.failed(STORE_SOURCE, problem)
            raise StorageUnavailableError(problem) from exc


LOCKED_WAIT = 10.0
"""Seconds a connection waits for another process (`ask`, a second start) to let go of a new database it is creating."""


def _pragma(db: sqlite3.Connection, pragma: str) -> None:
    """Run `pragma`, asking again while another process holds the lock: switching a new file to WAL needs it, and
    SQLite answers "locked" at once there instead of waiting out the busy timeout."""
    deadline = time.monotonic() + LOCKED_WAIT
    while True:
        try:
            db.execute(f"PRAGMA {pragma}")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(0.05)
