"""What a store kept in memory (in_memory.py) holds, written into its database file once that opens, in one
transaction, beside what the file holds by then (it may have changed meanwhile: `ask`, another start):

- a conversation the file lacks is copied whole (one started in memory, or one read from the file that is gone there);
- a conversation read from the file at start gets what changed in memory (`memory_changes`): its header, each message,
  earlier version and compaction written or deleted, its file snapshots (new ones, and those undone since), and the
  search rows of each of them; what the file gained meanwhile stays;
- a conversation read from the file and deleted in memory is deleted there;
- a conversation the file holds that memory did not read (the file appeared after the start) stays as it is there.

A file started afresh (the one read at start was damaged since and moved aside) gets every conversation memory holds."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from desktop_copilot.core.storage.keyed_worker import rollback

COPIED = ("conversations", "messages", "archived_tails", "compactions", "search_pending", "file_snapshots")
"""The tables copied row by row (with `search_keys` and `search_index`, copied together: their ids are the file's)."""
NEW_IDS = {"file_snapshots": "id"}
"""Columns the file numbers itself."""
BY_ID = ("messages", "archived_tails", "compactions")
"""The rows of a conversation written or deleted one by one, by id."""
SNAPSHOT_KEY = ("conversation_id", "message_id", "tool_call_id", "path", "created_at")
"""What tells one file snapshot from another in both databases (each numbers its own)."""


def save_into_file(memory: str, path: Path, *, afresh: bool = False) -> int:
    """Write what the memory database `memory` holds into the database file `path` (at the same schema version, its
    store open), as the module says; `afresh`: the file was started anew. Returns how many conversations were written
    or deleted there."""
    # The file is the main database: an attached one is opened with the main one's VFS (memdb would make it empty).
    db = sqlite3.connect(path.resolve().as_uri(), uri=True, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA busy_timeout=5000")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("ATTACH DATABASE ? AS memory", (memory,))
        db.execute("BEGIN IMMEDIATE")
        try:
            written = _save(db, afresh)
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise
        return written
    finally:
        db.close()


def _save(db: sqlite3.Connection, afresh: bool) -> int:
    changed = _ids(db, "SELECT DISTINCT conversation_id FROM memory.memory_changes")
    if afresh:  # what was read from the damaged file is in memory only now
        changed |= _ids(db, "SELECT id FROM memory.conversations")
    read = changed & _ids(db, "SELECT id FROM memory.memory_read")
    in_memory = changed & _ids(db, "SELECT id FROM memory.conversations")
    in_file = changed & _ids(db, "SELECT id FROM main.conversations")
    whole = sorted(in_memory - in_file)
    merged = sorted(read & in_memory & in_file)
    deleted = sorted((read & in_file) - in_memory)
    for conversation_id in whole:  # none, unless the file kept some of a conversation it no longer holds
        _drop_search_rows(db, conversation_id, None)
    _copy_whole(db, json.dumps(whole))
    for conversation_id in merged:
        _merge(db, conversation_id)
    for conversation_id in deleted:
        _drop_search_rows(db, conversation_id, None)
        db.execute("DELETE FROM main.conversations WHERE id=?", (conversation_id,))  # its rows go with it
    return len(whole) + len(merged) + len(deleted)


def _ids(db: sqlite3.Connection, query: str) -> set[str]:
    return {row[0] for row in db.execute(query)}


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    """The columns both databases have (the same ones, at the same schema version)."""
    on_disk = {row[1] for row in db.execute(f"PRAGMA main.table_info({table})")}
    return [row[1] for row in db.execute(f"PRAGMA memory.table_info({table})") if row[1] in on_disk]


def _copy_whole(db: sqlite3.Connection, moved: str) -> None:
    """The conversations `moved` (a JSON list of ids), with all their rows and search rows."""
    for table in COPIED:
        columns = ", ".join(name for name in _columns(db, table) if name != NEW_IDS.get(table))
        key = "id" if table == "conversations" else "conversation_id"
        order = " ORDER BY id" if table in NEW_IDS else ""
        db.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM memory.{table} "
                   f"WHERE {key} IN (SELECT value FROM json_each(?)){order}", (moved,))
    db.execute("""INSERT INTO main.search_keys (conversation_id, message_id)
                  SELECT conversation_id, message_id FROM memory.search_keys
                  WHERE conversation_id IN (SELECT value FROM json_each(?))""", (moved,))
    db.execute("""INSERT INTO main.search_index (rowid, conversation_id, message_id, body)
                  SELECT d.id, k.conversation_id, k.message_id, s.body
                  FROM memory.search_keys AS k JOIN memory.search_index AS s ON s.rowid = k.id
                  JOIN main.search_keys AS d ON d.conversation_id = k.conversation_id AND d.message_id = k.message_id
                  WHERE k.conversation_id IN (SELECT value FROM json_each(?))""", (moved,))


def _changes(db: sqlite3.Connection, conversation_id: str, kind: str) -> list[str]:
    return [row[0] for row in db.execute(
        "SELECT id FROM memory.memory_changes WHERE conversation_id=? AND kind=?", (conversation_id, kind))]


def _upsert(db: sqlite3.Connection, table: str, where: str, args: tuple) -> None:
    columns = _columns(db, table)
    updates = ", ".join(f"{name}=excluded.{name}" for name in columns if name != "id")
    db.execute(f"INSERT INTO main.{table} ({', '.join(columns)}) SELECT {', '.join(columns)} FROM memory.{table} "
               f"WHERE {where} ON CONFLICT(id) DO UPDATE SET {updates}", args)


def _merge(db: sqlite3.Connection, conversation_id: str) -> None:
    """A conversation read from the file at start, in both: what changed in memory, row by row."""
    header = bool(_changes(db, conversation_id, "conversations"))
    if header:
        _upsert(db, "conversations", "id=?", (conversation_id,))
    for table in BY_ID:
        for row_id in _changes(db, conversation_id, table):
            _upsert(db, table, "id=? AND conversation_id=?", (row_id, conversation_id))
            if db.execute(f"SELECT 1 FROM memory.{table} WHERE id=?", (row_id,)).fetchone() is None:
                db.execute(f"DELETE FROM main.{table} WHERE id=? AND conversation_id=?", (row_id, conversation_id))
    _merge_snapshots(db, conversation_id)
    db.execute("""INSERT OR IGNORE INTO main.search_pending (conversation_id, message_id)
                  SELECT conversation_id, message_id FROM memory.search_pending WHERE conversation_id=?""",
               (conversation_id,))
    searched = {*_changes(db, conversation_id, "messages"), *_changes(db, conversation_id, "search_keys")}
    _drop_search_rows(db, conversation_id, sorted(searched | ({""} if header else set())))
    _copy_search_rows(db, conversation_id, sorted(searched | ({""} if header else set())))


def _merge_snapshots(db: sqlite3.Connection, conversation_id: str) -> None:
    """File snapshots taken in memory are added (in their order, numbered by the file); one undone in memory is
    marked undone in the file (its contents dropped, as `mark_undone` does)."""
    same = " AND ".join(f"f.{name} IS m.{name}" for name in SNAPSHOT_KEY)
    columns = ", ".join(name for name in _columns(db, "file_snapshots") if name != "id")
    db.execute(f"""INSERT INTO main.file_snapshots ({columns}) SELECT {columns} FROM memory.file_snapshots AS m
                   WHERE m.conversation_id=? AND NOT EXISTS (SELECT 1 FROM main.file_snapshots AS f WHERE {same})
                   ORDER BY m.id""", (conversation_id,))
    db.execute(f"""UPDATE main.file_snapshots AS f SET undone_at=m.undone_at, before_bytes=NULL, after_bytes=NULL
                   FROM memory.file_snapshots AS m
                   WHERE f.conversation_id=? AND f.undone_at IS NULL AND m.undone_at IS NOT NULL AND {same}""",
               (conversation_id,))


def _drop_search_rows(db: sqlite3.Connection, conversation_id: str, message_ids: Iterable[str] | None) -> None:
    """The file's search rows of the conversation's `message_ids` ("": its title; None: all of them)."""
    keys = [row[0] for row in db.execute("SELECT id, message_id FROM main.search_keys WHERE conversation_id=?",
                                         (conversation_id,)) if message_ids is None or row[1] in set(message_ids)]
    db.executemany("DELETE FROM main.search_index WHERE rowid=?", [(key,) for key in keys])
    db.executemany("DELETE FROM main.search_keys WHERE id=?", [(key,) for key in keys])
    if message_ids is None:
        db.execute("DELETE FROM main.search_pending WHERE conversation_id=?", (conversation_id,))


def _copy_search_rows(db: sqlite3.Connection, conversation_id: str, message_ids: list[str]) -> None:
    """Memory's search rows of the conversation's `message_ids`, with ids of the file's."""
    for message_id in message_ids:
        row = db.execute("""SELECT s.body FROM memory.search_keys AS k JOIN memory.search_index AS s ON s.rowid = k.id
                            WHERE k.conversation_id=? AND k.message_id=?""", (conversation_id, message_id)).fetchone()
        if row is None:
            continue
        key = db.execute("INSERT INTO main.search_keys (conversation_id, message_id) VALUES (?, ?) RETURNING id",
                         (conversation_id, message_id)).fetchone()[0]
        db.execute("INSERT INTO main.search_index (rowid, conversation_id, message_id, body) VALUES (?, ?, ?, ?)",
                   (key, conversation_id, message_id, row[0]))
