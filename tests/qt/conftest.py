"""Qt test fixtures: a qasync event loop that pytest-qt's `qtbot.waitUntil` drives, and app factories.

pytest-qt knows nothing about asyncio. Like qasync's own tests, we make a `QEventLoop` for the
test's QApplication; created with `already_running=True` it counts as the running asyncio loop,
so every time Qt processes events (as `qtbot.waitUntil` does) asyncio callbacks run too.
"""

from __future__ import annotations

import asyncio
import gc

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication

import qasync  # noqa: E402 - after PySide6, so qasync binds to it
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store


@pytest.fixture
def qasync_loop(qapp: QApplication, qtbot):
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        qtbot.waitUntil(lambda: all(task.done() for task in pending), timeout=5000)
    closing = loop.create_task(loop.shutdown_asyncgens())  # as the app does at close (window_setup.run_until_closed)
    qtbot.waitUntil(closing.done, timeout=5000)
    loop._QEventLoop__is_running = False  # not stop(): that calls app.exit(), which breaks later qWait()s
    try:
        qapp.aboutToQuit.disconnect(loop._after_run_forever)
    except (RuntimeError, TypeError):
        pass
    asyncio.events._set_running_loop(None)
    loop.close()
    asyncio.set_event_loop(None)
    # A worker thread (the keyring thread, the MCP thread) may have called call_soon_threadsafe: its queued
    # signal, delivered after the timer below is deleted, would reach call_soon on a deleted object and fail a
    # later test. Deliver what is queued now, while the timer lives, and drop later calls: nobody awaits the
    # closed loop any more.
    qapp.sendPostedEvents()
    loop._QEventLoop__call_soon_signaller.blockSignals(True)
    # The loop's timer object is a parentless QObject: delete it here, on the GUI thread, with its timers.
    # Left to the garbage collector, it may die on a worker thread (the keyring thread, an executor thread),
    # where Qt cannot unregister its timers, and a later timer event then reaches freed memory.
    shiboken6.delete(loop._timer)


@pytest.fixture(autouse=True)
def _collect_on_the_gui_thread():
    """Widgets and models a test left in reference cycles are freed here, on the GUI thread, not by a
    collection that happens to run on another thread later (Qt objects must die on their own thread)."""
    yield
    gc.collect()


def run_async(qtbot, coro, timeout: int = 5000):
    """Run `coro` to completion on the qasync loop by letting Qt process events."""
    task = asyncio.get_event_loop().create_task(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def window_replies(window) -> list:
    """The assistant messages the window's transcript holds."""
    from desktop_copilot.core.conversation.models import Role

    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def send_and_wait(qtbot, window, text: str) -> None:
    """Sends `text` as the user does and waits until its reply is in and the window is idle again."""
    count = len(window_replies(window))
    assert window.send(text)
    qtbot.waitUntil(lambda: len(window_replies(window)) == count + 1 and not window.controller.busy, timeout=15000)


@pytest.fixture
def loopback_env(loopback, monkeypatch):
    """Keys and base URLs pointing the real Anthropic adapter and the Tavily tool at the loopback server."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-loopback-test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-loopback-test-key")
    monkeypatch.setenv("TAVILY_BASE_URL", loopback.url)
    return loopback


@pytest.fixture
def make_window(qtbot, qasync_loop):
    """Builds the real main window on a fresh store; closes runs and HTTP clients afterwards."""
    from desktop_copilot.app.window_setup import create_main_window

    made = []

    def make(runtime: Runtime | None = None):
        """`runtime`: e.g. bootstrap.build_runtime()'s, with the key store and settings the dialog edits."""
        runtime = runtime or Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
        store = Store(runtime.paths.database)
        window = create_main_window(runtime, store)
        qtbot.addWidget(window)
        window.resize(900, 700)
        window.show()
        qtbot.waitExposed(window)
        made.append((window, store))
        return window

    yield make
    for window, store in made:
        run_async(qtbot, window.controller.aclose())
        store.close()


@pytest.fixture
def dark(qapp):
    """The dark theme switched on for one test (and off again after it)."""
    from desktop_copilot.qt.common.theme import DEFAULT_THEME
    from desktop_copilot.qt.common.theme_switch import current_theme, install_theme_switch, theme_switch

    installed = install_theme_switch(qapp, "dark")
    yield installed
    if (switch := theme_switch()) is not None:
        switch.close()
    assert current_theme() is DEFAULT_THEME
