"""One window per profile: the first launch holds a lock file in the profile (QLockFile, in QtCore: nothing to load
before the first frame) and, once its window works, listens on a local socket (QtNetwork, loaded then); a second
launch on the same profile asks that window to come to the front and exits, so two windows never edit the same
conversations behind each other's back. (The `ask` command shares the database safely through SQLite's locking.)"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from PySide6.QtCore import QLockFile

log = logging.getLogger(__name__)

LOCK_NAME = "window.lock"
ACTIVATE = b"activate\n"
SHOWN = b"shown\n"
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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return self._lock.tryLock(0)

    def release(self) -> None:
        self._lock.unlock()


def server_name(data_dir: Path) -> str:
    """The local socket's name for a profile (short: a Unix socket path has a length limit)."""
    import hashlib  # not before the first frame: OpenSSL's hashes take ~15 ms to load

    return "desktop-copilot-" + hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:20]


def show_first_instance(data_dir: Path, timeout: float = REACH_TIMEOUT) -> bool:
    """Asks the window holding the profile's lock to come to the front; True once it said it did."""
    from PySide6.QtNetwork import QLocalSocket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        socket = QLocalSocket()
        socket.connectToServer(server_name(data_dir))
        if socket.waitForConnected(500):
            socket.write(ACTIVATE)
            socket.waitForBytesWritten(1000)
            answered = socket.waitForReadyRead(3000) and SHOWN in bytes(socket.readAll().data())
            socket.disconnectFromServer()
            if answered:
                return True
        time.sleep(0.2)
    return False


def listen_for_second_launches(window, data_dir: Path):
    """From the first frame on (app/window_setup.py): a second launch's request brings `window` to the front. Returns
    the QLocalServer (owned by `window`), or None when it could not listen (the lock still refuses a second window)."""
    from PySide6.QtNetwork import QLocalServer

    name = server_name(data_dir)
    server = QLocalServer(window)
    server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
    QLocalServer.removeServer(name)  # a socket left by a crash: this process holds the lock, nobody else listens
    if not server.listen(name):
        log.warning("second launches cannot reach this window: %s", server.errorString())
        return None

    def answer(socket) -> None:
        if ACTIVATE in bytes(socket.readAll().data()):
            log.info("a second launch on this profile asked for the window")
            bring_to_front(window)
            socket.write(SHOWN)
            socket.flush()

    def accept() -> None:
        while (socket := server.nextPendingConnection()) is not None:
            socket.readyRead.connect(lambda socket=socket: answer(socket))
            socket.disconnected.connect(socket.deleteLater)

    server.newConnection.connect(accept)
    return server


def bring_to_front(window) -> None:
    from PySide6.QtWidgets import QApplication

    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()
    QApplication.alert(window)
