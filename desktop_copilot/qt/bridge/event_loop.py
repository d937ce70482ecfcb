"""The app's asyncio loop on Qt: qasync's, except that a cancelled timer leaves Qt's timers at once. qasync keeps each
`call_later` handle and its Qt timer until the delay is over, also when it was cancelled, and every read of an HTTP
stream arms a 600 s timeout (httpx's, through anyio), so a busy stream left thousands registered for ten minutes."""

from __future__ import annotations  # noqa: I001 - qasync after PySide6

import asyncio
from typing import Any

from PySide6.QtCore import QObject, QTimerEvent

import qasync  # after PySide6, so qasync binds to it


class _TimerHandle(asyncio.Handle):
    """A handle that takes its Qt timer off when it is cancelled."""

    __slots__ = ("_timer_id", "_timers")

    def cancel(self) -> None:
        super().cancel()
        timers, self._timers = self._timers, None
        if timers is not None:
            timers.drop(self._timer_id)


class _Timers(QObject):
    """One Qt timer per handle (qasync's _SimpleTimer, plus `drop`), on the loop's thread."""

    def __init__(self) -> None:
        super().__init__()
        self._handles: dict[int, asyncio.Handle] = {}
        self._stopped = False

    @property
    def pending(self) -> int:
        """Handles whose Qt timer is still registered."""
        return len(self._handles)

    def add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        timer_id = self.startTimer(int(max(0, delay) * 1000))
        self._handles[timer_id] = handle
        if isinstance(handle, _TimerHandle):
            handle._timers, handle._timer_id = self, timer_id
        return handle

    def drop(self, timer_id: int) -> None:
        if self._handles.pop(timer_id, None) is not None:
            self.killTimer(timer_id)

    def timerEvent(self, event: QTimerEvent) -> None:
        timer_id = event.timerId()
        self.killTimer(timer_id)
        handle = self._handles.pop(timer_id, None)
        if handle is None or self._stopped or handle.cancelled():
            return
        if isinstance(handle, _TimerHandle):
            handle._timers = None  # it ran: cancelling it later has nothing to take off
        handle._run()

    def stop(self) -> None:
        self._stopped = True

    def set_debug(self, enabled: bool) -> None:
        """qasync times callbacks in debug mode; this loop does not."""


class AppEventLoop(qasync.QEventLoop):
    """qasync's QEventLoop whose cancelled timers are unregistered when they are cancelled, not when they would have
    fired. Built and closed as qasync's (`AppEventLoop(app)`, `already_running=True` in tests)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer = _Timers()

    @property
    def pending_timers(self) -> int:
        return self._timer.pending

    def call_later(self, delay: float, callback: Any, *args: Any, context: Any = None) -> asyncio.Handle:
        if asyncio.iscoroutinefunction(callback):
            raise TypeError("coroutines cannot be used with call_later")
        if not callable(callback):
            raise TypeError(f"callback must be callable: {type(callback).__name__}")
        return self._add_callback(_TimerHandle(callback, args, self, context=context), delay)


def pending_timers(loop: asyncio.AbstractEventLoop) -> int | None:
    """How many Qt timers `loop` has registered for its handles (None for a loop that does not say)."""
    if isinstance(loop, AppEventLoop):
        return loop.pending_timers
    callbacks = getattr(getattr(loop, "_timer", None), "_SimpleTimer__callbacks", None)  # plain qasync
    return len(callbacks) if callbacks is not None else None
