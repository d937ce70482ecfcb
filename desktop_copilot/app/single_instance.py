"""One window per profile: the first launch holds a lock file in the profile (QLockFile, in QtCore: nothing to load
before the first frame) and watches a requests folder there (QFileSystemWatcher); a second launch on the same
profile leaves a request in it, waits for the window to answer that it came to the front, and exits, so two
windows never edit the same conversations behind each other's back. (The `ask` command shares the database safely through SQLite's locking.)"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from PySide6.QtCore import QLockFile

log = logging.getLogger(__name__)

LOCK_NAME = "window.lock"
REQUESTS_DIR = "window-requests"
REQUEST = ".request"
SHOWN = ".shown"
REACH_TIMEOUT = 10.0
"""Seconds a second launch keeps trying to reach the first window (which may still be building itself)."""


class InstanceLock:
    """The profile's window lock (`data_dir/window.lock`). A lock left by a process that died is taken over
    (QLockFile checks the process id); a living holder keeps it however long it runs."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_NAME
        self._lock = QLockFile(str(self.path))
        self._lock.setStaleLockTime(0)  # never by age: only a dead holder's lock is stale

    def acquire(self) -> bool:
        """True when this launch may open the window: it holds the lock, or the lock cannot be made at all (a
        read-only data folder, a file in its place: the window opens with its conversations kept in memory)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log.warning("no window lock: its folder cannot be made (%s); a second window is not prevented", exc)
            return True
        if self._lock.tryLock(0):
            return True
        if self._lock.error() == QLockFile.LockError.LockFailedError:  # another process holds it
            return False
        log.warning("no window lock: %s cannot be written (%s); a second window is not prevented", self.path,
                    self._lock.error().name)
        return True

    def release(self) -> None:
        self._lock.unlock()


def _requests(data_dir: Path) -> Path:
    return data_dir / REQUESTS_DIR


def show_first_instance(data_dir: Path, timeout: float = REACH_TIMEOUT) -> bool:
    """Asks the window holding the profile's lock to come to the front; True once it said it did. The request is a
    file in `data_dir/window-requests/`, which that window watches; it answers by renaming it to `….shown`."""
    folder = _requests(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    request = folder / f"{os.getpid()}-{time.monotonic_ns()}{REQUEST}"
    shown = request.with_suffix(SHOWN)
    request.write_bytes(b"")
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if shown.exists():
                return True
            time.sleep(0.05)
        return False
    finally:
        for left in (request, shown):
            left.unlink(missing_ok=True)


def listen_for_second_launches(window, data_dir: Path):
    """From the window's start on (app/window_setup.py): a second launch's request brings `window` to the front.
    Returns the QFileSystemWatcher (owned by `window`) watching the requests folder, or None when it cannot watch it
    (the lock still refuses a second window). QtCore only: a local socket would load QtNetwork, 3 MB at idle."""
    from PySide6.QtCore import QFileSystemWatcher

    folder = _requests(data_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():  # answers and requests of launches that are gone
            if old.suffix == SHOWN:
                old.unlink(missing_ok=True)
    except OSError as exc:
        log.warning("second launches cannot reach this window: %s", exc)
        return None
    watcher = QFileSystemWatcher([str(folder)], window)

    def answer(_path: str = "") -> None:
        try:
            requests = [path for path in folder.iterdir() if path.suffix == REQUEST]
        except OSError:
            return
        for request in requests:
            try:
                request.rename(request.with_suffix(SHOWN))
            except OSError:  # the launch gave up and took its request back
                continue
            log.info("a second launch on this profile asked for the window")
            bring_to_front(window)

    watcher.directoryChanged.connect(answer)
    answer()  # a launch that asked while this window was still being built
    return watcher


def bring_to_front(window) -> None:
    from PySide6.QtWidgets import QApplication

    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()
    QApplication.alert(window)
