"""Blocking calls awaited on a daemon thread: in order, results and errors handed back, never keeping the process alive."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest

from desktop_copilot.core.keys.blocking import DaemonWorker, in_keyring_thread

STUCK_CALL = """
import asyncio, threading
from desktop_copilot.core.keys.blocking import in_keyring_thread

async def main():
    never = threading.Event()
    try:
        await asyncio.wait_for(in_keyring_thread(never.wait), timeout=0.2)
    except TimeoutError:
        print("timed out, quitting")

asyncio.run(main())
"""


FINISHING_CALL = """
import asyncio, time
from desktop_copilot.core.keys.blocking import in_keyring_thread

def read_then_say():
    time.sleep(0.3)  # a keyring read still running when the app quits
    print("the call finished", flush=True)

async def main():
    asyncio.ensure_future(in_keyring_thread(read_then_say))
    await asyncio.sleep(0.05)
    print("quitting", flush=True)

asyncio.run(main())
"""


def test_quitting_lets_a_call_still_running_finish_first():
    """Dropped in the middle of a keyring read, its D-Bus connection would leave a property read unanswered, which can
    bring gnome-keyring down."""
    result = subprocess.run([sys.executable, "-c", FINISHING_CALL], capture_output=True, text=True, timeout=20)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["quitting", "the call finished"]


def test_a_stuck_call_does_not_keep_the_process_alive():
    result = subprocess.run([sys.executable, "-c", STUCK_CALL], capture_output=True, text=True, timeout=20)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "timed out, quitting"


@pytest.mark.asyncio
async def test_calls_run_in_order_on_one_daemon_thread():
    seen = []

    def square(n):
        seen.append(threading.current_thread())
        return n * n

    assert await asyncio.gather(*(in_keyring_thread(square, n) for n in range(5))) == [0, 1, 4, 9, 16]
    assert len(set(seen)) == 1 and seen[0].daemon and seen[0] is not threading.current_thread()


@pytest.mark.asyncio
async def test_an_error_reaches_the_awaiting_coroutine():
    def fail():
        raise LookupError("locked")

    with pytest.raises(LookupError, match="locked"):
        await in_keyring_thread(fail)


@pytest.mark.asyncio
async def test_a_cancelled_call_still_queued_is_skipped_and_a_running_one_is_abandoned():
    worker = DaemonWorker("test-worker")
    release, ran = threading.Event(), []
    running = asyncio.ensure_future(worker.call(release.wait))
    queued = asyncio.ensure_future(worker.call(ran.append, "queued"))
    await asyncio.sleep(0.05)
    running.cancel()
    queued.cancel()
    await asyncio.gather(running, queued, return_exceptions=True)
    release.set()
    assert await worker.call(ran.append, "after") is None
    assert ran == ["after"]
