"""GUI entry point: the window's first frame painted before anything heavy loads (only Qt, the window's frame, the
theme and the translation: no pydantic, store, Markdown, Pygments or SDK), then its working parts built in place
(app/window_setup.py) and run until it closes. A second launch on the same profile brings the open window to the
front instead (app/single_instance.py)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from desktop_copilot.qt.common import pyside_import_check

pyside_import_check.install()  # before the modules the window loads next: PySide6 would read each one's source

from desktop_copilot import resources  # noqa: E402 - after the import check
from desktop_copilot.app.single_instance import InstanceLock, show_first_instance  # noqa: E402
from desktop_copilot.core.config.first_frame_settings import read_first_frame_settings  # noqa: E402
from desktop_copilot.core.logs.logging_setup import configure_logging, current_log_file, log_shutdown, log_startup  # noqa: E402
from desktop_copilot.core.config.paths import AppPaths  # noqa: E402
from desktop_copilot.qt.i18n import install_translator  # noqa: E402
from desktop_copilot.qt.window.main_window import MainWindow  # noqa: E402

log = logging.getLogger(__name__)

FIRST_PAINT_TIMEOUT_MS = 1500
"""How long start-up waits for the first frame to be painted before building the rest anyway (a window started
minimized is not painted)."""


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    """The QApplication (or the one already made: tests, benchmarks), named for the desktop."""
    args = list(sys.argv if argv is None else [sys.argv[0] if sys.argv else "desktop-copilot", *argv])
    app = QApplication.instance() or QApplication(args)
    app.setApplicationName("Desktop Copilot")
    app.setApplicationDisplayName("Desktop Copilot")
    app.setQuitOnLastWindowClosed(False)
    icon = QIcon()
    for path in resources.app_icon():
        icon.addFile(str(path))
    app.setWindowIcon(icon)
    app.setDesktopFileName("desktop-copilot")  # the Wayland app id, matching the .desktop entry
    return app


def show_first_frame(app: QApplication, settings_file: Path) -> MainWindow:
    """The window's frame at its last size and place, in the theme and language of settings.json, shown and painted."""
    first = read_first_frame_settings(settings_file)
    language = install_translator(app, first.language)  # before any widget is built
    log.info("interface language: %s", language)
    window = MainWindow(first_frame=first)
    waiting = QEventLoop()
    window.centralWidget().sig_painted.connect(waiting.quit)
    window.sig_closed.connect(waiting.quit)  # closed before it painted
    QTimer.singleShot(FIRST_PAINT_TIMEOUT_MS, waiting.quit)
    window.show()
    waiting.exec()
    return window


def _qt_description(app: QApplication) -> str:
    import PySide6
    from PySide6.QtCore import qVersion

    return f"PySide6 {PySide6.__version__}, Qt {qVersion()}, platform {app.platformName()}"


def main(argv: Sequence[str] | None = None) -> int:
    paths = AppPaths.resolve()
    if current_log_file() is None:  # started as desktop-copilot-gui, not through the command line
        configure_logging(paths)
    code = None
    lock = None
    try:
        app = create_application(argv)
        log_startup("window", _qt_description(app))
        lock = InstanceLock(paths.data_dir)
        if not lock.acquire():  # this profile's window is open: show it instead of a second one
            lock = None
            code = _second_launch(paths)
            return code
        window = show_first_frame(app, paths.settings_file)
        from desktop_copilot.app.window_setup import run_window  # the rest loads after the first frame

        code = run_window(app, window)
    except Exception:
        log.exception("the window stopped on an error")
        raise
    finally:
        if lock is not None:
            lock.release()
        log_shutdown("window", code)
    return 0


def _second_launch(paths: AppPaths) -> int:
    """0 when the window already open on this profile came to the front, 1 when it could not be reached."""
    if show_first_instance(paths.data_dir):
        log.info("Desktop Copilot is already open on this profile: its window was brought to the front")
        print("Desktop Copilot is already open; its window was brought to the front.", file=sys.stderr)
        return 0
    log.warning("Desktop Copilot is already open on this profile, but its window did not answer")
    print(f"Desktop Copilot is already open with the profile in {paths.data_dir.parent} (its window did not answer); "
          "a second window was not opened.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
