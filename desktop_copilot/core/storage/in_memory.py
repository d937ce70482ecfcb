"""The store kept in memory when its database file cannot be opened or created at start (a read-only or full disk, a
file in the place of the data folder, a damaged file that cannot be moved aside): why (`Unopened`), the memory
database every connection of the store shares (SQLite's memdb VFS), what a readable file already holds read into it
(`read_file_into`), what changes in it from then on (`track_changes`, for memory_merge.py to write into the file once
that opens), and which file it stands for in this process (`kept_in_memory`)."""

from __future__ import annotations

import errno
import itertools
import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from desktop_copilot.core.storage.health import storage_problem
from desktop_copilot.core.storage.integrity import UnmovableDamageError
from desktop_copilot.core.storage.schema import SCHEMA_VERSION

log = logging.getLogger(__name__)

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


def read_file_into(db: sqlite3.Connection, path: Path) -> bool:
    """Copy what the database file `path` holds into the new, empty memory database of `db` (True), when SQLite can
    read it though it cannot open it for writing (a read-only folder or file, a full disk). False when there is no
    file, it was written by a newer version, or it cannot be read (it is left as it is)."""
    if not path.is_file() or path.stat().st_size == 0:
        return False
    data: bytearray | None = None
    for mode in ("mode=ro", "mode=ro&immutable=1"):  # immutable: the file alone, when SQLite cannot make its -shm file
        try:
            source = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True)
            try:
                if source.execute("PRAGMA user_version").fetchone()[0] > SCHEMA_VERSION:
                    return False
                data = bytearray(source.serialize())  # with what its -wal holds, when SQLite can read that
            finally:
                source.close()
            break
        except sqlite3.Error as exc:
            log.info("the conversation database %s cannot be read (%s)", path, exc)
    if data is None:
        return False
    if data[18:20] == b"\x02\x02":  # the header's "WAL" mark, which a memory database cannot open
        data[18:20] = b"\x01\x01"
    plain = sqlite3.connect(":memory:")  # deserialized into `db`'s own connection, the memory would no longer be shared
    try:
        plain.deserialize(data)
        del data
        plain.backup(db)
    finally:
        plain.close()
    return True


TRACKED = {"conversations": "id", "messages": "conversation_id", "archived_tails": "conversation_id",
           "compactions": "conversation_id", "file_snapshots": "conversation_id", "search_keys": "conversation_id"}
"""The tables whose changes `memory_changes` keeps, by their conversation column (a search key by its message id)."""
TRACKING = ("memory_changes", "memory_read")
"""The memory database's own tables (never copied)."""
_TRACKING_TABLES = """
CREATE TABLE IF NOT EXISTS memory_changes (
    kind TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (kind, conversation_id, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memory_read (id TEXT PRIMARY KEY) WITHOUT ROWID
"""


def track_changes(db: sqlite3.Connection, read: bool) -> None:
    """In the memory database, from now on: every row written or deleted, of every connection, noted in
    `memory_changes` (kind: the table; the conversation; the row's id, a search key's message id); and in
    `memory_read`, the conversations `read` from the file (`read_file_into`)."""
    for statement in _TRACKING_TABLES.split(";"):
        db.execute(statement)
    for table, conversation in TRACKED.items():
        key = "message_id" if table == "search_keys" else "id"
        for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
            # not INSERT OR IGNORE: the statement that fires a trigger imposes its own conflict handling (an upsert's)
            db.execute(f"""CREATE TRIGGER IF NOT EXISTS memory_{table}_{event.lower()} AFTER {event} ON {table}
                           BEGIN INSERT INTO memory_changes SELECT '{table}', {row}.{conversation}, CAST({row}.{key} AS TEXT)
                               WHERE NOT EXISTS (SELECT 1 FROM memory_changes WHERE kind='{table}'
                                   AND conversation_id={row}.{conversation} AND id=CAST({row}.{key} AS TEXT)); END""")
    if read:
        db.execute("INSERT OR IGNORE INTO memory_read SELECT id FROM conversations")


_kept_lock = threading.RLock()
_kept: dict[Path, str] = {}


def keep_in_memory(path: Path, memory: str, kept: bool = True) -> None:
    """The memory database `memory` stands for the database file `path` in this process (`kept` False: no longer)."""
    with _kept_lock:
        if kept:
            _kept[path.resolve()] = memory
        elif _kept.get(path.resolve()) == memory:  # another store's for the same file (tests) stays
            del _kept[path.resolve()]


@contextmanager
def kept_in_memory(path: Path) -> Iterator[str | None]:
    """While open: the memory database that stands for the database file `path` in this process, None when the file
    is the database; a store does not move from memory to the file meanwhile (`moving_to_file`)."""
    if not _kept:  # no store in memory (the usual case): none comes to be for a file that opened
        yield None
        return
    with _kept_lock:
        yield _kept.get(path.resolve())


@contextmanager
def moving_to_file() -> Iterator[None]:
    """Held while a store kept in memory is written into its file (and `keep_in_memory(path, None)` once it is): a
    write through `kept_in_memory` meanwhile waits, then goes where the store is."""
    with _kept_lock:
        yield
