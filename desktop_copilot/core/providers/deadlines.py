"""How long a reply may keep the app waiting: for its response to begin, and between two pieces of its stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Awaitable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Literal, TypeVar

from desktop_copilot.core.words import tr

T = TypeVar("T")

Phase = Literal["first_byte", "idle"]


@dataclass(frozen=True, slots=True)
class StreamDeadlines:
    """Seconds a provider may be silent: before its response begins (`first_byte`, per request, retries of a
    busy answer included), and between two reads of its body once it has begun (`idle`)."""

    first_byte: float = 60.0
    idle: float = 120.0

    def __post_init__(self) -> None:
        if not (self.first_byte > 0 and self.idle > 0):
            raise ValueError(f"stream deadlines must be positive seconds, not {self.first_byte!r} and {self.idle!r}")


DEFAULT_DEADLINES = StreamDeadlines()
LOCAL_DEADLINES = StreamDeadlines(first_byte=300.0, idle=120.0)
"""A local server (Ollama) loads the model from disk before its first byte: minutes on a slow machine."""


class StreamTimeout(Exception):
    """The provider was silent longer than its deadline allows."""

    def __init__(self, phase: Phase, seconds: float) -> None:
        self.phase = phase
        self.seconds = seconds
        what = "no response began" if phase == "first_byte" else "nothing more arrived"
        super().__init__(f"{what} for {seconds:g} s")

    def describe(self, provider: str, *, started: bool) -> str:
        """A sentence for the user: what happened and what to do (`provider` as a noun in a sentence, "the
        Anthropic API", "Gemini"; `started`: part of the reply had arrived)."""
        subject, seconds = provider[:1].upper() + provider[1:], f"{self.seconds:g}"
        if self.phase == "first_byte":
            return tr("{Subject} did not answer within {seconds} s. The server may be overloaded or unreachable; "
                      "Retry, or check the connection and the base URL.").format(Subject=subject, seconds=seconds)
        if not started:
            return tr("{Subject} began its response but sent nothing for {seconds} s, so the app stopped waiting. "
                      "Retry in a little while.").format(Subject=subject, seconds=seconds)
        return tr("The reply from {noun} stalled: nothing arrived for {seconds} s, so the app stopped waiting. "
                  "The partial reply was kept; Continue picks it up.").format(noun=provider, seconds=seconds)

    def as_error(self, provider: str, *, started: bool):  # -> events.Error (imported here: core.events is heavier)
        from desktop_copilot.core.conversation.events import Error

        return Error(reason="interrupted" if started else "error", message=self.describe(provider, started=started))


async def first_byte(deadlines: StreamDeadlines, opening: Awaitable[T]) -> T:
    """`opening` (the request until its response headers), or StreamTimeout after `deadlines.first_byte` s."""
    try:
        async with asyncio.timeout(deadlines.first_byte):
            return await opening
    except TimeoutError:
        raise StreamTimeout("first_byte", deadlines.first_byte) from None


async def open_within(deadlines: StreamDeadlines, stack: AbstractAsyncContextManager, opening: AbstractAsyncContextManager[T]) -> T:
    """Enter `opening` on the exit `stack` (a contextlib.AsyncExitStack) within the first-byte deadline."""
    return await first_byte(deadlines, stack.enter_async_context(opening))  # type: ignore[attr-defined]


async def idle_watched(deadlines: StreamDeadlines, source: AsyncIterable[T]) -> AsyncIterator[T]:
    """The items of `source`, or StreamTimeout when one takes longer than `deadlines.idle` s to arrive.

    One timer per stream rather than one per read: each read only notes when it began, and the timer, when it
    fires, looks again and sleeps on if the read now awaited began later. Time the consumer spends between reads
    does not count; the timer cancels the task only while it awaits `source`."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    seconds = deadlines.idle
    state = _Watch(loop.time())

    def check() -> None:
        if task.done():
            return
        due = state.began + seconds
        if not state.waiting:  # the consumer holds the task: look again one deadline later
            state.timer = loop.call_at(loop.time() + seconds, check)
        elif loop.time() >= due:
            state.expired = True
            task.cancel()
        else:  # the read now awaited began after the one this timer was set for
            state.timer = loop.call_at(due, check)

    state.timer = loop.call_at(state.began + seconds, check)
    reads = aiter(source)
    try:
        while True:
            state.began = loop.time()
            state.waiting = True
            try:
                item = await anext(reads)
            except StopAsyncIteration:
                return
            except asyncio.CancelledError:
                if state.expired and task.uncancel() == 0:
                    raise StreamTimeout("idle", seconds) from None
                raise
            finally:
                state.waiting = False
            yield item
    finally:
        state.timer.cancel()


class _Watch:
    __slots__ = ("began", "waiting", "expired", "timer")

    def __init__(self, began: float) -> None:
        self.began = began
        self.waiting = False
        self.expired = False
        self.timer: asyncio.TimerHandle = None  # type: ignore[assignment]
