"""Runs coroutines started from Qt slots on the qasync loop, and blocking keyring calls off the GUI thread."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from PySide6.QtCore import QCoreApplication

from desktop_copilot.core.keys.blocking import in_keyring_thread

log = logging.getLogger(__name__)
T = TypeVar("T")


async def off_gui_thread(func: Callable[..., T], *args: Any) -> T:
    """Run `func` in the one keyring thread (a daemon thread, core.blocking): a locked keychain may prompt
    and block, and calls stay in order, also with the keys a send reads."""
    return await in_keyring_thread(func, *args)


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
        log.error("a background task failed", exc_info=exc)
        if self._on_error is not None:
            self._on_error(QCoreApplication.translate("ChatController", "Something went wrong: {error}").format(error=type(exc).__name__) + ".")
