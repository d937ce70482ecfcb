"""Whether the database can be written: SQLite errors that mean the disk (full, read-only, failing, busy) rather than
a bug, and the current problem, told to listeners (the window's banner) when it starts, changes or ends."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

ProblemKind = Literal["full", "read_only", "busy", "io"]
KINDS_BY_CODE: dict[int, ProblemKind] = {
    13: "full",  # SQLITE_FULL: the disk (or the file's page limit) is full
    8: "read_only",  # SQLITE_READONLY: the file, its folder or the file system is read-only
    5: "busy",  # SQLITE_BUSY: another process (a second app, `ask`) held the write lock past busy_timeout
    6: "busy",  # SQLITE_LOCKED
    10: "io",  # SQLITE_IOERR: the disk failed a read or write
    14: "io",  # SQLITE_CANTOPEN: the file (or its -wal/-shm) cannot be opened
}


@dataclass(frozen=True, slots=True)
class StorageProblem:
    kind: ProblemKind
    detail: str
    """SQLite's own words ("database or disk is full")."""


class StorageUnavailableError(sqlite3.OperationalError):
    """A write that could not be kept for later failed on the disk; `problem` says how."""

    def __init__(self, problem: StorageProblem) -> None:
        super().__init__(tr("The conversation database cannot be written: {detail}").format(detail=problem.detail))
        self.problem = problem


def storage_problem(exc: BaseException) -> StorageProblem | None:
    """The disk problem behind `exc`, or None when it is not one (a constraint, a bug)."""
    if isinstance(exc, StorageUnavailableError):
        return exc.problem
    if not isinstance(exc, sqlite3.Error):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    kind = KINDS_BY_CODE.get(code & 0xFF) if isinstance(code, int) else None
    if kind is None and isinstance(exc, sqlite3.OperationalError):  # a driver without error codes: by the words
        text = str(exc).lower()
        kind = "full" if "disk is full" in text else "read_only" if "readonly" in text else None
    return None if kind is None else StorageProblem(kind, str(exc))


Listener = Callable[[StorageProblem | None], None]


class StorageHealth:
    """Each writer (the store's own connection, the message writer, the indexer) says whether its last write failed
    on the disk; `problem` is the first failing one's, None when all write. A `passive` writer keeps nothing for
    later (its caller was told), so any write that succeeds ends its failure. Listeners hear each change, on the
    thread that caused it (the window queues it to its own)."""

    def __init__(self, passive: tuple[str, ...] = ()) -> None:
        self._lock = threading.Lock()
        self._passive = passive
        self._failing: dict[str, StorageProblem] = {}
        self._listeners: list[Listener] = []
        self.problem: StorageProblem | None = None
        self.failures = 0
        """Writes that failed on the disk so far (for tests)."""

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """`listener(problem)` at each change (None: writes succeed again); returns what unsubscribes it."""
        with self._lock:
            self._listeners.append(listener)
        return lambda: self._unsubscribe(listener)

    def _unsubscribe(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def failed(self, source: str, problem: StorageProblem) -> None:
        with self._lock:
            self.failures += 1
            self._failing[source] = problem
        self._changed()

    def succeeded(self, source: str) -> None:
        if not self._failing:  # the common case: nothing failed, nothing to tell
            return
        with self._lock:
            for name in (source, *self._passive):
                self._failing.pop(name, None)
        self._changed()

    def _changed(self) -> None:
        with self._lock:
            current = next(iter(self._failing.values()), None)
            if current == self.problem:
                return
            self.problem = current
            listeners = list(self._listeners)
        if current is None:
            log.warning("the database can be written again; the writes kept for later are done")
        else:
            log.warning("the database cannot be written (%s: %s); writes are kept and tried again", current.kind, current.detail)
        for listener in listeners:
            try:
                listener(current)
            except Exception:
                log.exception("a storage listener failed")
