"""The store kept in memory when its database file cannot be opened or created at start (a read-only or full disk, a
file in the place of the data folder, a damaged file that cannot be moved aside): why (`Unopened`), the memory
database every connection of the store shares (SQLite's memdb VFS), and what it holds copied into the file once that
opens, beside whatever the file already holds."""

from __future__ import annotations

import errno
import itertools
import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from desktop_copilot.core.storage.health import storage_problem
from desktop_copilot.core.storage.integrity import UnmovableDamageError
from desktop_copilot.core.storage.keyed_worker import rollback

UnopenedKind = Literal["read_only", "full", "not_a_folder", "damaged", "io"]
_KINDS_BY_ERRNO: dict[int, UnopenedKind] = {
    errno.EROFS: "read_only", errno.EACCES: "read_only", errno.EPERM: "read_only",
    errno.ENOSPC: "full", getattr(errno, "EDQUOT", errno.ENOSPC): "full",
    errno.ENOTDIR: "not_a_folder", errno.EEXIST: "not_a_folder",
}
_names = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Unopened:
    """Why the database file could not be opened or created."""

    kind: UnopenedKind
    detail: str
    """The system's or SQLite's own words."""
    where: Path
    """The data folder; for "not_a_folder", the file that stands where a folder should be."""


def unopened(path: Path, exc: BaseException) -> Unopened:
    """What kept the database file `path` from opening, from the error its opening raised."""
    folder = path.parent
    if isinstance(exc, UnmovableDamageError):
        return Unopened("damaged", str(exc.strerror or exc), folder)
    if isinstance(exc, OSError):
        kind = _KINDS_BY_ERRNO.get(exc.errno or 0, "io")
        return Unopened(kind, str(exc.strerror or exc), _file_in_the_way(folder) if kind == "not_a_folder" else folder)
    problem = storage_problem(exc)
    kind = problem.kind if problem is not None and problem.kind in ("read_only", "full") else "io"
    if kind == "io" and folder.is_dir() and not os.access(folder, os.W_OK):
        kind = "read_only"  # SQLite says only "unable to open database file"
    elif kind == "io" and _no_room(folder):
        kind = "full"  # SQLite says "disk I/O error" when it cannot make the -shm file
    elif isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        kind = "damaged"  # "file is not a database", "database disk image is malformed"
    return Unopened(kind, str(exc), folder)


MIN_ROOM = 1024 * 1024
"""Bytes free under which a disk that fails to open the file is taken to be full."""


def _no_room(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free < MIN_ROOM
    except OSError:
        return False


def _file_in_the_way(folder: Path) -> Path:
    for candidate in (folder, *folder.parents):
        if candidate.exists() and not candidate.is_dir():
            return candidate
    return folder


def memory_uri() -> str:
    """A new memory database's name, which every connection of one store opens (with `uri=True`) to share it."""
    return f"file:/desktop-copilot-memory-{os.getpid()}-{next(_names)}?vfs=memdb"


COPIED = ("conversations", "messages", "archived_tails", "compactions", "search_pending", "file_snapshots")
"""The tables copied row by row (with `search_keys` and `search_index`, copied together: their ids are the file's)."""
NEW_IDS = {"file_snapshots": "id"}
"""Columns the file numbers itself."""


def copy_into_file(memory: str, path: Path) -> int:
    """Copy the conversations of the memory database `memory` into the database file `path` (at the same schema
    version, its store open) in one transaction, with their messages, versions, compactions, file snapshots and search
    rows; a conversation the file already holds stays as it is there. Returns how many conversations were copied."""
    # The file is the main database: an attached one is opened with the main one's VFS (memdb would make it empty).
    db = sqlite3.connect(path.resolve().as_uri(), uri=True, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA busy_timeout=5000")
        db.execute("ATTACH DATABASE ? AS memory", (memory,))
        db.execute("BEGIN IMMEDIATE")
        try:
            moved = json.dumps([row[0] for row in db.execute(
                "SELECT id FROM memory.conversations WHERE id NOT IN (SELECT id FROM main.conversations)")])
            for table in COPIED:
                columns = ", ".join(name for name in _columns(db, table) if name != NEW_IDS.get(table))
                key = "id" if table == "conversations" else "conversation_id"
                db.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM memory.{table} "
                           f"WHERE {key} IN (SELECT value FROM json_each(?))", (moved,))
            _copy_search_rows(db, moved)
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise
        return len(json.loads(moved))
    finally:
        db.close()


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    """The columns both databases have (the same ones, at the same schema version)."""
    on_disk = {row[1] for row in db.execute(f"PRAGMA main.table_info({table})")}
    return [row[1] for row in db.execute(f"PRAGMA memory.table_info({table})") if row[1] in on_disk]


def _copy_search_rows(db: sqlite3.Connection, moved: str) -> None:
    db.execute("""INSERT INTO main.search_keys (conversation_id, message_id)
                  SELECT conversation_id, message_id FROM memory.search_keys
                  WHERE conversation_id IN (SELECT value FROM json_each(?))""", (moved,))
    db.execute("""INSERT INTO main.search_index (rowid, conversation_id, message_id, body)
                  SELECT d.id, k.conversation_id, k.message_id, s.body
                  FROM memory.search_keys AS k JOIN memory.search_index AS s ON s.rowid = k.id
                  JOIN main.search_keys AS d ON d.conversation_id = k.conversation_id AND d.message_id = k.message_id
                  WHERE k.conversation_id IN (SELECT value FROM json_each(?))""", (moved,))
