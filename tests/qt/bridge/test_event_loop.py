"""The app's loop (qt/bridge/event_loop.py) takes a cancelled timer off Qt's timers when it is cancelled: timeouts that
did not fire (httpx's 600 s one per read of a stream, the tools' and the streams' deadlines) are not kept for their
whole delay, and everything else runs as on qasync's loop."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import qasync

from desktop_copilot.qt.bridge.event_loop import AppEventLoop, pending_timers
from tests.qt.conftest import run_async
from tests.support.loopback import ScriptedResponse


@pytest.fixture(autouse=True)
def _app_loop(monkeypatch):
    """qasync_loop (tests/qt/conftest.py) builds an AppEventLoop."""
    monkeypatch.setattr(qasync, "QEventLoop", AppEventLoop)


def test_a_cancelled_timer_is_taken_off_at_once_and_never_runs(qtbot, qasync_loop):
    assert isinstance(qasync_loop, AppEventLoop)
    ran: list[str] = []
    base = pending_timers(qasync_loop)
    later = qasync_loop.call_later(600, ran.append, "later")
    soon = qasync_loop.call_later(0.01, ran.append, "soon")
    assert pending_timers(qasync_loop) == base + 2
    later.cancel()
    assert pending_timers(qasync_loop) == base + 1
    qtbot.waitUntil(lambda: ran == ["soon"], timeout=2000)
    assert pending_timers(qasync_loop) == base
    soon.cancel()  # after it ran: nothing to take off
    later.cancel()
    assert pending_timers(qasync_loop) == base
    qtbot.wait(50)
    assert ran == ["soon"]


def test_callbacks_run_in_order_and_timeouts_still_fire(qtbot, qasync_loop):
    order: list[int] = []
    qasync_loop.call_soon(order.append, 1)
    qasync_loop.call_soon(order.append, 2)
    qasync_loop.call_later(0.02, order.append, 3)

    async def too_slow() -> str:
        try:
            async with asyncio.timeout(0.05):
                await asyncio.sleep(5)
        except TimeoutError:
            return "timed out"
        return "finished"

    assert run_async(qtbot, too_slow()) == "timed out"
    qtbot.waitUntil(lambda: order == [1, 2, 3], timeout=2000)


def test_a_finished_block_with_a_long_timeout_leaves_no_timer(qtbot, qasync_loop):
    base = pending_timers(qasync_loop)

    async def quick() -> None:
        for _ in range(50):
            async with asyncio.timeout(600):
                await asyncio.sleep(0)
            await asyncio.wait_for(asyncio.sleep(0), timeout=600)

    run_async(qtbot, quick())
    assert pending_timers(qasync_loop) <= base


def test_reading_a_long_http_stream_leaves_no_timer_behind(qtbot, qasync_loop, loopback):
    """httpx arms a 600 s timeout for every read (anyio's fail_after); each is cancelled when the read returns."""
    loopback.enqueue("/stream", ScriptedResponse(chunks=[b"x" * 10] * 300, delay=0.001))
    base = pending_timers(qasync_loop)

    async def read() -> int:
        async with httpx.AsyncClient(timeout=600) as client:
            reads = 0
            async with client.stream("GET", loopback.url + "/stream") as response:
                async for _chunk in response.aiter_raw():
                    reads += 1
            return reads

    reads = run_async(qtbot, read(), timeout=20000)
    assert reads > 20  # many reads, each with its own timeout
    qtbot.wait(20)
    assert pending_timers(qasync_loop) <= base + 2, f"{pending_timers(qasync_loop) - base} timers left after {reads} reads"


def test_the_app_runs_on_this_loop(qapp, monkeypatch):
    from desktop_copilot.app import window_setup

    monkeypatch.undo()  # the app's own choice, not the fixture's
    loop = window_setup.create_event_loop(qapp)
    try:
        assert isinstance(loop, AppEventLoop)
    finally:
        loop.close()
        asyncio.set_event_loop(None)
