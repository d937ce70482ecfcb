"""A workspace file's state before a tool call changed it, in the `file_snapshots` table (schema V9), so a reply's
file changes can be undone (core.file_undo). The file tools write through a `SnapshotRecorder` (a short connection of
its own, from the tool's thread, to the database file or, while the store is kept in memory, to the memory database
that stands for it: in_memory.py); the reads and the marking of undone changes take the store's connection."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop_copilot.core.storage.in_memory import kept_in_memory

log = logging.getLogger(__name__)

MAX_SNAPSHOT_BYTES = 10 * 1024 * 1024
"""A file's content is kept up to this size; a larger one is recorded as changed but cannot be restored."""

COLUMNS = ("conversation_id", "message_id", "tool_call_id", "path", "name", "existed", "before_bytes", "too_large",
           "after_hash", "after_bytes", "created_at")
INSERT = f"INSERT INTO file_snapshots ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class FileState:
    """What a file held before a change: `existed`, and its bytes (None when it did not exist or was `too_large` to keep)."""

    existed: bool
    data: bytes | None = None
    too_large: bool = False

    @classmethod
    def of(cls, path: Path) -> FileState:
        """The state of `path` now (OSError when it exists and cannot be read)."""
        if not path.exists():
            return cls(False)
        if path.stat().st_size > MAX_SNAPSHOT_BYTES:
            return cls(True, None, too_large=True)
        return cls(True, path.read_bytes())


@dataclass(frozen=True, slots=True)
class FileSnapshot:
    """One change a tool call made to one file."""

    id: int
    conversation_id: str
    message_id: str
    tool_call_id: str
    path: str
    """The file's absolute path (resolved when it was changed)."""
    name: str
    """Its path relative to the workspace, as the model and the user saw it."""
    existed: bool
    before: bytes | None
    """Its bytes before the change (None: it did not exist, it was too large to keep, or the change was undone)."""
    too_large: bool
    after_hash: str
    """The SHA-256 of what the tool wrote."""
    after: bytes | None
    """What the tool wrote (None when larger than MAX_SNAPSHOT_BYTES, or undone): shown as what changed since."""
    created_at: float
    undone_at: float | None

    @classmethod
    def of_row(cls, row: Sequence) -> FileSnapshot:
        (id_, conversation_id, message_id, tool_call_id, path, name, existed, before, too_large, after_hash, after,
         created_at, undone_at) = row
        return cls(id_, conversation_id, message_id, tool_call_id, path, name, bool(existed),
                   None if before is None else bytes(before), bool(too_large), after_hash,
                   None if after is None else bytes(after), created_at, undone_at)


SELECTED = ("id", *COLUMNS, "undone_at")


class SnapshotRecorder:
    """Keeps the state of workspace files before the file tools change them, in the conversations' database (in memory
    while the store is: written to the file with the rest once it opens). Nothing is kept when that database does not
    exist (no store), or when the conversation is not stored (`ask --no-save`)."""

    def __init__(self, database: Path) -> None:
        self.database = Path(database)

    def record(self, *, conversation_id: str, message_id: str, tool_call_id: str, path: Path, name: str,
               before: FileState, after: bytes) -> bool:
        """Keep one change (called after the tool wrote the file); False when it was not kept (logged)."""
        if not conversation_id or not message_id:
            return False
        values = (conversation_id, message_id, tool_call_id, str(path), name, int(before.existed), before.data,
                  int(before.too_large), content_hash(after), after if len(after) <= MAX_SNAPSHOT_BYTES else None,
                  time.time())
        try:
            with kept_in_memory(self.database) as memory:  # the store does not move to the file meanwhile
                if memory is None and not self.database.is_file():
                    return False
                db = sqlite3.connect(memory or f"{self.database.resolve().as_uri()}?mode=rw", uri=True, timeout=5.0,
                                     isolation_level=None)
                try:
                    db.execute("PRAGMA foreign_keys=ON")
                    db.execute(INSERT, values)
                finally:
                    db.close()
        except sqlite3.IntegrityError:  # the conversation is not stored: nothing to undo it from
            log.info("file change to %s not kept for undo: the conversation %s is not stored", name, conversation_id)
            return False
        except sqlite3.Error as exc:
            log.warning("file change to %s not kept for undo (it cannot be undone): %s", name, exc)
            return False
        return True


def snapshots_of(db: sqlite3.Connection, conversation_id: str, message_ids: Iterable[str], *,
                 pending: bool = False) -> list[FileSnapshot]:
    """The changes the messages' tool calls made, oldest first; `pending`: only those not undone."""
    ids = list(dict.fromkeys(message_ids))
    found: list[FileSnapshot] = []
    for start in range(0, len(ids), 500):  # SQLite limits the number of parameters
        batch = ids[start : start + 500]
        rows = db.execute(
            f"SELECT {', '.join(SELECTED)} FROM file_snapshots WHERE conversation_id=? "
            f"AND message_id IN ({','.join('?' * len(batch))})" + (" AND undone_at IS NULL" if pending else ""),
            (conversation_id, *batch),
        ).fetchall()
        found.extend(FileSnapshot.of_row(tuple(row)) for row in rows)
    return sorted(found, key=lambda s: s.id)


def changed_messages(db: sqlite3.Connection, conversation_id: str, *, pending: bool = False) -> list[str]:
    """The ids of the conversation's messages whose tool calls changed files, oldest change first."""
    rows = db.execute(
        "SELECT message_id, MAX(id) FROM file_snapshots WHERE conversation_id=?"
        + (" AND undone_at IS NULL" if pending else "") + " GROUP BY message_id ORDER BY 2",
        (conversation_id,),
    ).fetchall()
    return [row[0] for row in rows]


def mark_undone(db: sqlite3.Connection, snapshot_ids: Iterable[int], when: float | None = None) -> None:
    """The changes were undone: kept as such (the file contents are dropped), so they are not undone twice."""
    ids = list(snapshot_ids)
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        db.execute(f"UPDATE file_snapshots SET undone_at=?, before_bytes=NULL, after_bytes=NULL "
                   f"WHERE id IN ({','.join('?' * len(batch))})", (when or time.time(), *batch))
