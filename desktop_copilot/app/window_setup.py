"""The window's working parts, built around its first frame (app/gui.py): the runtime, the store, the controller and
the conversation open at the last close; then the provider SDK warmed and the MCP servers started in the background,
the loop run until the window closes, and an orderly shutdown (run cancelled, HTTP clients, MCP servers and store
closed)."""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop_copilot.app.collector import StreamingCollector
from desktop_copilot.app.single_instance import listen_for_second_launches
from desktop_copilot.core.bootstrap import build_runtime, open_store
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.logs.logging_setup import install_crash_logging, unexpected_error_text
from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.bridge.controller import ChatController
from desktop_copilot.qt.common.theme_switch import install_theme_switch
from desktop_copilot.qt.settings.entry import start_mcp_servers, start_startup_notices
from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.window.main_window import MainWindow, stored_settings

log = logging.getLogger(__name__)

SIGNAL_POLL_MS = 300
EXIT_AFTER_SHOW_ENV = "DESKTOP_COPILOT_EXIT_AFTER_SHOW"


def create_main_window(runtime: Runtime, store: Store, conversation: Conversation | None = None) -> MainWindow:
    """The composed window (controller, model, session); tests call this with a loopback runtime."""
    window = MainWindow()
    attach_session(window, runtime, store, conversation)
    return window


def attach_session(window: MainWindow, runtime: Runtime, store: Store, conversation: Conversation | None = None) -> None:
    """Builds `window`'s parts around a new controller and session (its menus include File ▸ Settings…, Ctrl+,).
    Without `conversation` it shows the one open when the window last closed, else the most recent stored one,
    opened lazily (a 10,000-message conversation shows at once), or a new one."""
    session = ChatSession(runtime, conversation or Conversation(), store)
    window.attach(ChatController(session, TranscriptModel()))
    collector = StreamingCollector(window)  # no full collection walks the whole process mid-reply
    window.controller.sig_busy_changed.connect(collector.busy_changed)
    window.sig_closed.connect(collector.release)
    if conversation is None and (reopened := conversation_to_reopen(runtime, store)):
        window.history.open(reopened)


def conversation_to_reopen(runtime: Runtime, store: Store) -> str | None:
    """The conversation open when the window last closed while it is still stored, else the most recent one."""
    remembered = stored_settings(runtime).open_conversation_id
    if remembered and store.load_conversation_header(remembered) is not None:
        return remembered
    return store.latest_conversation_id()


def warm_provider_import(controller: ChatController) -> None:
    """Imports the SDK of the provider the next message goes to in a background thread, so the first send does not
    wait for it (the Anthropic SDK: ~2 s of CPU, ~60 MB), when a key for it is there. Called when the user starts
    typing or picks a model: an idle window never loads one."""
    runtime = controller.session.runtime
    try:
        spec = runtime.spec(controller.provider_id)
        from desktop_copilot.core.providers.factory import SDK_MODULES

        module = SDK_MODULES[spec.wire]
    except Exception:  # an unknown provider: the send says so
        return
    if module in sys.modules:
        return

    def run() -> None:
        try:
            if spec.key_name and not runtime.lookup_for([spec.key_name]).has(spec.key_name):  # the send will ask for the key instead
                return
            importlib.import_module(module)
        except Exception:  # the first send reports the real problem
            log.debug("warming the %s import failed", module, exc_info=True)

    threading.Thread(target=run, name="warm-imports", daemon=True).start()


def start_on_first_use(window: MainWindow) -> None:
    """What the first message needs starts when the user begins one, not at launch, so an idle window loads no SDK
    and spawns no MCP server: at the composer's first change, the provider's SDK is warmed and the MCP servers start;
    a reply started without typing (Regenerate, Retry) starts the servers too, and so does the settings dialog
    (qt/settings/entry.py). Picking another model warms its SDK."""
    edit = window.composer.edit

    def first_edit() -> None:
        edit.textChanged.disconnect(first_edit)
        warm_provider_import(window.controller)
        start_mcp_servers(window)

    edit.textChanged.connect(first_edit)
    window.controller.sig_busy_changed.connect(lambda busy: busy and start_mcp_servers(window))
    window.controller.sig_model_changed.connect(lambda *_: warm_provider_import(window.controller))


async def _run_until_closed(window: MainWindow, closed: asyncio.Future) -> None:
    await closed
    await window.controller.aclose()
    await window.background.aclose()
    # Readers left before their end (an HTTP stream read up to a reply's last line) are closed while the loop still
    # runs: closed later by the garbage collector, their cleanup would await on a loop that is gone.
    await asyncio.get_running_loop().shutdown_asyncgens()


def run_until_closed(window: MainWindow, loop: asyncio.AbstractEventLoop) -> None:
    """Run the loop until the window closes (or Ctrl+C in the terminal closes it), then cancel any
    run and close the HTTP clients."""
    closed: asyncio.Future = loop.create_future()
    window.sig_closed.connect(lambda: closed.done() or closed.set_result(None))
    previous = signal.signal(signal.SIGINT, lambda *_: window.close())
    wake = QTimer(window, interval=SIGNAL_POLL_MS)  # lets Python run its signal handlers
    wake.timeout.connect(lambda: None)
    wake.start()
    try:
        loop.run_until_complete(_run_until_closed(window, closed))
    finally:
        wake.stop()
        signal.signal(signal.SIGINT, previous)


def install_error_reporting(window: MainWindow) -> Callable[[], None]:
    """Uncaught exceptions in Qt and qasync slots and in worker threads are logged with their traceback and
    shown in the window's banner; the app keeps running. Returns the function that takes the hooks out."""

    def report(exc: BaseException) -> None:
        try:
            window.sig_unexpected_error.emit(unexpected_error_text(exc))  # queued when raised on another thread
        except RuntimeError:  # the window is already gone
            pass

    return install_crash_logging(report)


def _nothing() -> None:
    pass


def create_event_loop(app: QApplication) -> asyncio.AbstractEventLoop:
    """The app's qasync loop on `app` (qt/bridge/event_loop.py: cancelled timers leave Qt at once), set as the current
    asyncio loop (not `qasync.run`: on Python 3.11 that swaps the event-loop policy for the whole process, DESIGN §5)."""
    from desktop_copilot.qt.bridge.event_loop import AppEventLoop  # qasync, after PySide6 so it binds to it

    loop = AppEventLoop(app)
    asyncio.set_event_loop(loop)
    return loop


def run_window(app: QApplication, window: MainWindow) -> int:
    """Builds the working window into `window` (shown with its first frame) and runs it until it closes."""
    if not window.isVisible():  # closed during its first frame
        return 0
    loop = create_event_loop(app)
    runtime = build_runtime(check_keyring=False)  # the keyring is asked once the window is up
    theme_switch = install_theme_switch(app, stored_settings(runtime).theme)  # the palette; follows the system's scheme
    store = open_store(runtime.paths, runtime.warnings)
    undo_hooks: Callable[[], None] = _nothing
    try:
        store.mark_unfinished_interrupted()
        attach_session(window, runtime, store)
        listen_for_second_launches(window, runtime.paths.data_dir)  # a second launch shows this window
        undo_hooks = install_error_reporting(window)
        if theme_switch.theme.dark:
            theme_switch.apply()  # the parts built with the default (light) theme, in the dark one
        start_startup_notices(window)  # warnings in the banner; no provider ready to answer: the welcome
        start_on_first_use(window)
        if os.environ.get(EXIT_AFTER_SHOW_ENV) == "1":  # packaging smoke test: shown, now shut down normally
            QTimer.singleShot(500, window.close)
        run_until_closed(window, loop)
        return 0
    finally:
        runtime.stop_mcp()
        undo_hooks()
        store.close()  # tries once more what a full or read-only disk kept waiting; says in the log what it could not
        loop.close()
        asyncio.set_event_loop(None)
