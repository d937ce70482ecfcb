"""Keyring calls run on a daemon thread: one stuck on an unanswered unlock prompt cannot block quitting."""

from __future__ import annotations

import subprocess
import sys

STUCK_CALL = """
import asyncio, threading
from desktop_copilot.qt.background import off_gui_thread

async def main():
    never = threading.Event()
    try:
        await asyncio.wait_for(off_gui_thread(never.wait), timeout=0.2)
    except TimeoutError:
        print("timed out, quitting")

asyncio.run(main())
"""


def test_a_stuck_keyring_call_does_not_keep_the_process_alive():
    result = subprocess.run([sys.executable, "-c", STUCK_CALL], capture_output=True, text=True, timeout=20)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "timed out, quitting"


def test_calls_run_in_order_and_return_their_results():
    import asyncio

    from desktop_copilot.qt.background import off_gui_thread

    async def run():
        return await asyncio.gather(*(off_gui_thread(lambda n=n: n * n) for n in range(5)))

    assert asyncio.run(run()) == [0, 1, 4, 9, 16]
