"""Writing a small file so that a crash leaves either the old or the new one, never half of either; and keeping a
damaged one aside instead of overwriting it."""

from __future__ import annotations

import os
import tempfile
from datetime import datetime
from pathlib import Path


def write_atomically(path: Path, text: str, *, private: bool = False) -> None:
    """Writes a temporary file beside `path`, syncs it and renames it over `path` (mode 0600 when `private`)."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        if private and os.name == "posix":
            os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    fsync_dir(folder)


def fsync_dir(folder: Path) -> None:
    """Makes a rename in `folder` durable (POSIX; a no-op elsewhere)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def move_aside(path: Path) -> Path:
    """Renames `path` to `<name>.broken-<time>` (with -1, -2… when taken) beside it and returns the new path; the
    file is never deleted. Raises OSError when it cannot be renamed."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.broken-{stamp}")
    counter = 1
    while aside.exists():
        aside, counter = path.with_name(f"{path.name}.broken-{stamp}-{counter}"), counter + 1
    os.replace(path, aside)
    return aside
