"""Runs coroutines started from Qt slots on the qasync loop, and blocking keyring calls off the GUI thread."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


class _DaemonWorker:
    """One daemon thread running calls in order. Unlike a ThreadPoolExecutor, whose threads are
    joined at exit, a keyring call stuck on an unanswered unlock prompt cannot keep the app from quitting."""

    def __init__(self, name: str) -> None:
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._serve, name=name, daemon=True).start()

    def submit(self, func: Callable[..., T], *args: Any) -> Future:
        future: Future = Future()
        self._calls.put((func, args, future))
        return future

    def _serve(self) -> None:
        while True:
            func, args, future = self._calls.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(func(*args))
            except BaseException as exc:  # handed to the awaiting coroutine
                future.set_exception(exc)


_keyring_worker: _DaemonWorker | None = None


async def off_gui_thread(func: Callable[..., T], *args: Any) -> T:
    """Run `func` in the one keyring thread: a locked keychain may prompt and block, and calls stay in order."""
    global _keyring_worker
    if _keyring_worker is None:
        _keyring_worker = _DaemonWorker("keyring")
    return await asyncio.wrap_future(_keyring_worker.submit(func, *args))


class BackgroundTasks:
    """Holds the tasks a widget started; a failure is logged and handed to `on_error`, never to sys.excepthook."""

    def __init__(self, on_error: Callable[[str], None] | None = None) -> None:
        self._tasks: set[asyncio.Task] = set()
        self._on_error = on_error

    def start(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task:
        task = asyncio.get_event_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    def cancel_all(self) -> None:
        """Cancels every task but the one calling (e.g. the OK task that closes the dialog)."""
        current = asyncio.current_task() if asyncio.get_event_loop().is_running() else None
        for task in list(self._tasks):
            if task is not current:
                task.cancel()

    async def wait(self) -> None:
        if self._tasks:
            await asyncio.wait(list(self._tasks))

    def _finished(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        exc = task.exception()
        log.error("a settings task failed", exc_info=exc)
        if self._on_error is not None:
            self._on_error(f"Something went wrong: {type(exc).__name__}.")
