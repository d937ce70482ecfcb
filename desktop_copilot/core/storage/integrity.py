"""The database's health at start: `PRAGMA quick_check`, and a damaged file kept aside, never deleted."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from desktop_copilot.core.words import tr

_IN_USE_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
"""Another process holds the file; that is not damage."""
_DAMAGE_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
"""What SQLite says of a damaged file when it opens or reads it ("database disk image is malformed", "file is not a
database"). Any other refusal (the file or its folder read-only, a full disk, another process holding it) is not damage:
a healthy file moved aside for it would take the user's history out of sight."""


class DamagedDatabaseError(RuntimeError):
    """The database failed its integrity check; it was renamed aside (see `kept_at`)."""

    def __init__(self, path: Path, kept_at: Path, detail: str) -> None:
        super().__init__(tr("The conversation database was damaged ({detail}). It was kept at {kept_at} and a new one was "
                            "started.").format(detail=detail, kept_at=kept_at))
        self.path, self.kept_at = path, kept_at


def integrity_problem(path: Path) -> str | None:
    """None when the file is absent, cannot be read now (busy in another process, a read-only folder or full disk that
    keeps SQLite from making its -shm file) or passes `PRAGMA quick_check`; else what is wrong."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    for immutable in (False, True):  # immutable: the file alone, when SQLite cannot make its -shm file
        try:
            with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro{'&immutable=1' if immutable else ''}", uri=True) as db:
                result = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
            db.close()
        except sqlite3.DatabaseError as exc:
            code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
            if code in _DAMAGE_CODES and not (immutable and _has_wal(path)):
                return str(exc)
            if code in _IN_USE_CODES:
                return None
            continue
        if result == ["ok"] or (immutable and _has_wal(path)):  # without its -wal, the file may lack what it needs
            return None
        return "; ".join(result[:3])
    return None


def _has_wal(path: Path) -> bool:
    wal = path.with_name(path.name + "-wal")
    return wal.exists() and wal.stat().st_size > 0


class UnmovableDamageError(OSError):
    """The database failed its integrity check and could not be renamed aside (its folder takes no change)."""


def keep_aside(path: Path, problem: str) -> DamagedDatabaseError:
    """Rename the damaged file (and its -wal/-shm) to `…damaged-YYYYmmdd-HHMMSS`; the error says where.
    UnmovableDamageError when the file cannot be renamed."""
    kept_at = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        path.rename(kept_at)
    except OSError as exc:
        raise UnmovableDamageError(exc.errno, tr("damaged ({problem}) and could not be moved aside: {error}").format(
            problem=problem, error=exc.strerror),
                                   str(path)) from exc
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(kept_at.with_name(kept_at.name + suffix))
    return DamagedDatabaseError(path, kept_at, problem)
