"""GUI entry point: QApplication on a qasync loop, the window shown before any provider SDK is imported,
the conversation open at the last close (or the latest) reopened, and an orderly shutdown (run cancelled, HTTP clients
and store closed)."""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from desktop_copilot import resources
from desktop_copilot.core.bootstrap import build_runtime, open_store, start_mcp
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.logs import (
    configure_logging,
    current_log_file,
    install_crash_logging,
    log_shutdown,
    log_startup,
    unexpected_error_text,
)
from desktop_copilot.core.models import Conversation
from desktop_copilot.core.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store
from desktop_copilot.i18n import install_translator
from desktop_copilot.qt.bridge.controller import ChatController
from desktop_copilot.qt.common.theme_switch import install_theme_switch
from desktop_copilot.qt.window.main_window import MainWindow, stored_settings
from desktop_copilot.qt.settings.entry import start_startup_notices
from desktop_copilot.qt.transcript.model import TranscriptModel

log = logging.getLogger(__name__)

WARM_IMPORT_DELAY_MS = 800
"""After the window is up, the provider SDK (about 1 s to import) is imported in a background thread."""
SIGNAL_POLL_MS = 300
EXIT_AFTER_SHOW_ENV = "DESKTOP_COPILOT_EXIT_AFTER_SHOW"


def create_main_window(runtime: Runtime, store: Store | None, conversation: Conversation | None = None) -> MainWindow:
    """The composed window (controller, model, session); tests call this with a loopback runtime.
    Without `conversation` it shows the one open when the window last closed, else the most recent stored one,
    opened lazily (a 10,000-message conversation shows at once), or a new one."""
    session = ChatSession(runtime, conversation or Conversation(), store)
    controller = ChatController(session, TranscriptModel())
    window = MainWindow(controller)  # its menus include File ▸ Settings… (Ctrl+,)
    if conversation is None and store is not None and (reopened := conversation_to_reopen(runtime, store)):
        window.history.open(reopened)
    return window


def conversation_to_reopen(runtime: Runtime, store: Store) -> str | None:
    """The conversation open when the window last closed while it is still stored, else the most recent one."""
    remembered = stored_settings(runtime).open_conversation_id
    if remembered and store.load_conversation_header(remembered) is not None:
        return remembered
    return store.latest_conversation_id()


MCP_START_DELAY_MS = 300
"""The MCP servers start this long after the window shows, so their thread's SDK import (about 2 s of CPU) does not
compete with the first paint."""

PROVIDER_MODULES = {"anthropic": "anthropic", "chat_completions": "openai", "gemini": "httpx", "ollama": "httpx"}
"""What a provider of each wire format imports on its first request (its SDK, or httpx)."""


def _warm_provider_import(runtime: Runtime) -> None:
    """Import the default provider's SDK in a background thread, so the first send does not wait for it."""
    try:
        module = PROVIDER_MODULES[runtime.spec(runtime.config.provider).wire]
    except Exception:  # an unknown default provider: the first send says so
        return

    def run() -> None:
        try:
            importlib.import_module(module)
        except Exception:  # the first send reports the real problem
            log.debug("warming the %s import failed", module, exc_info=True)

    threading.Thread(target=run, name="warm-imports", daemon=True).start()


def _start_mcp_servers(window: MainWindow, runtime: Runtime) -> None:
    """Start the MCP servers of mcp.json on their own thread once the window is up; a problem goes to the banner."""
    try:
        start_mcp(runtime)
    except Exception as exc:  # the window works without them
        log.exception("the MCP servers could not be started")
        window.banner.show_error(QCoreApplication.translate("App", "The MCP servers could not be started: {problem}").format(problem=exc))
        return
    if runtime.mcp_config is not None and runtime.mcp_config.problem:
        window.banner.show_error(runtime.mcp_config.problem)


async def _run_until_closed(window: MainWindow, closed: asyncio.Future) -> None:
    await closed
    await window.controller.aclose()


def create_application(argv: Sequence[str] | None = None) -> tuple[QApplication, asyncio.AbstractEventLoop]:
    """The QApplication and its qasync loop, set as the current asyncio loop (not `qasync.run`:
    on Python 3.11 that swaps the event-loop policy for the whole process, DESIGN §5)."""
    args = list(sys.argv if argv is None else [sys.argv[0] if sys.argv else "desktop-copilot", *argv])
    app = QApplication.instance() or QApplication(args)
    app.setApplicationName("Desktop Copilot")
    app.setApplicationDisplayName("Desktop Copilot")
    app.setQuitOnLastWindowClosed(False)
    import qasync  # after PySide6, so qasync binds to it

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    return app, loop


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


def _set_app_icon(app: QApplication) -> None:
    icon = QIcon()
    for path in resources.app_icon():
        icon.addFile(str(path))
    app.setWindowIcon(icon)
    app.setDesktopFileName("desktop-copilot")  # the Wayland app id, matching the .desktop entry


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


def _qt_description(app: QApplication) -> str:
    import PySide6
    from PySide6.QtCore import qVersion

    return f"PySide6 {PySide6.__version__}, Qt {qVersion()}, platform {app.platformName()}"


def main(argv: Sequence[str] | None = None) -> int:
    if current_log_file() is None:  # started as desktop-copilot-gui, not through the command line
        configure_logging(AppPaths.resolve())
    undo_hooks: Callable[[], None] = _nothing
    code = None
    try:
        app, loop = create_application(argv)
        log_startup("window", _qt_description(app))
        _set_app_icon(app)
        runtime = build_runtime(check_keyring=False)  # the keyring is asked once the window is up
        language = install_translator(app, stored_settings(runtime).language)  # before any widget is built
        log.info("interface language: %s", language)
        theme_switch = install_theme_switch(app, stored_settings(runtime).theme)  # the palette, and follows the system's scheme
        store = open_store(runtime.paths, runtime.warnings)
        store.mark_unfinished_interrupted()
        try:
            window = create_main_window(runtime, store)
            undo_hooks = install_error_reporting(window)
            theme_switch.apply()  # dark before the first frame, when dark is in effect
            window.show()
            start_startup_notices(window)  # warnings in the banner; no Anthropic key: the settings dialog
            QTimer.singleShot(WARM_IMPORT_DELAY_MS, lambda: _warm_provider_import(runtime))
            QTimer.singleShot(MCP_START_DELAY_MS, lambda: _start_mcp_servers(window, runtime))
            if os.environ.get(EXIT_AFTER_SHOW_ENV) == "1":  # packaging smoke test: shown, now shut down normally
                QTimer.singleShot(500, window.close)
            run_until_closed(window, loop)
            code = 0
        finally:
            runtime.stop_mcp()
            undo_hooks()
            store.close()
            loop.close()
            asyncio.set_event_loop(None)
    except Exception:
        log.exception("the window stopped on an error")
        raise
    finally:
        log_shutdown("window", code)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
