"""Awaiting a blocking call (a keyring read that may wait on an unlock prompt) without blocking the event loop."""

from __future__ import annotations

import asyncio
import atexit
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

EXIT_GRACE_S = 1.0
"""How long quitting waits for a call still running on the keyring thread. A keyring read is a few D-Bus calls taking
milliseconds, and leaving one unanswered can bring the user's gnome-keyring down (it aborts when a client leaves with a
property read unanswered: an upstream race); a call still running past this waits on an unlock prompt, and goes."""


class DaemonWorker:
    """One daemon thread running calls in order and handing each result to the loop that awaits it.

    Unlike asyncio.to_thread or a ThreadPoolExecutor, whose threads are joined at interpreter exit, a call
    stuck on an unanswered unlock prompt cannot keep the process from quitting. Plain asyncio and qasync
    loops both work: the result comes back through `loop.call_soon_threadsafe`.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()

    async def call(self, func: Callable[..., T], *args: Any) -> T:
        """`func(*args)` on the worker thread; cancelling the await abandons the result (a call already
        running cannot be interrupted, one still queued is skipped)."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._start()
        self._calls.put((func, args, loop, future))
        return await future

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                self._thread.start()

    def wait_idle(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the call running now, if any, to return; whether none is running."""
        return self._idle.wait(timeout)

    def _serve(self) -> None:
        while True:
            func, args, loop, future = self._calls.get()
            if future.cancelled():  # only ever turns True, so reading it from here is safe
                continue
            result, error = None, None
            self._idle.clear()
            try:
                result = func(*args)
            except BaseException as exc:  # handed to the awaiting coroutine
                error = exc
            finally:
                self._idle.set()
            try:
                loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:  # the loop closed while the call was blocked: nobody is waiting
                pass
            del func, args, loop, future, result, error


def _settle(future: asyncio.Future, result: Any, error: BaseException | None) -> None:
    if future.done():  # cancelled while the call ran
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


_keyring = DaemonWorker("keyring")


@atexit.register
def _let_the_keyring_call_finish() -> None:
    """At exit, the keyring call running now, if any, gets EXIT_GRACE_S to return before the thread is dropped."""
    _keyring.wait_idle(EXIT_GRACE_S)


async def in_keyring_thread(func: Callable[..., T], *args: Any) -> T:
    """Run `func(*args)` on the process's one keyring thread, so keyring calls never block the event
    loop (or the GUI thread it runs on) and happen in the order they were asked for."""
    return await _keyring.call(func, *args)
