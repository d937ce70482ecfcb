"""Keyring calls from the window run on the core's one daemon keyring thread: in order with the keys a send
reads, and one stuck on an unanswered unlock prompt cannot keep the app (on its qasync loop) from quitting."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

STUCK_CALL_ON_QASYNC = """
import asyncio, threading
from PySide6.QtWidgets import QApplication
import qasync
from desktop_copilot.qt.bridge.background import off_gui_thread

app = QApplication(["stuck"])
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)

async def main():
    never = threading.Event()
    try:
        await asyncio.wait_for(off_gui_thread(never.wait), timeout=0.2)
    except TimeoutError:
        print("timed out, quitting")

with loop:
    loop.run_until_complete(main())
"""


def test_a_stuck_keyring_call_does_not_keep_the_app_alive():
    result = subprocess.run([sys.executable, "-c", STUCK_CALL_ON_QASYNC], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "timed out, quitting"


def test_window_and_core_calls_share_the_keyring_thread_in_order(qtbot, qasync_loop):
    from desktop_copilot.core.keys.blocking import in_keyring_thread
    from desktop_copilot.qt.bridge.background import off_gui_thread
    from tests.qt.conftest import run_async

    seen = []

    def note(n):
        seen.append((n, threading.current_thread()))
        return n * n

    async def run():
        calls = [(off_gui_thread if n % 2 else in_keyring_thread)(note, n) for n in range(6)]
        return await asyncio.gather(*calls)

    assert run_async(qtbot, run()) == [0, 1, 4, 9, 16, 25]
    assert [n for n, _ in seen] == list(range(6))
    assert len({thread for _, thread in seen}) == 1 and seen[0][1].daemon
