"""An exception nobody caught (a Qt slot, a qasync slot, a worker thread) is logged with its traceback and shown
in the banner, and the window keeps working; Help ▸ Open log folder opens the profile's log folder."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QTimer, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from qasync import asyncSlot

from desktop_copilot.app.window_setup import install_error_reporting
from tests.qt.conftest import make_window, qasync_loop  # noqa: F401 - fixtures are used by name
from tests.support.log_support import logging_to_profile, read_log

pytestmark = pytest.mark.qt_no_exception_capture  # the app's hook is under test, not pytest-qt's


@pytest.fixture
def reporting_window(make_window):  # noqa: F811
    with logging_to_profile() as path:
        window = make_window()
        undo = install_error_reporting(window)
        try:
            yield window, path
        finally:
            undo()


def broken_slot() -> None:
    raise ZeroDivisionError("the divisor went missing")


def test_an_exception_in_a_qt_slot_is_logged_and_shown_and_the_app_keeps_running(qtbot, reporting_window):
    window, path = reporting_window
    QTimer.singleShot(0, broken_slot)
    qtbot.waitUntil(lambda: window.banner.text() != "", timeout=5000)
    assert window.banner.text() == (
        f"Something went wrong: ZeroDivisionError: the divisor went missing. Details are in the log: {path}")
    text = read_log(path)
    assert "ERROR" in text and "Uncaught exception\nTraceback (most recent call last):" in text
    assert 'in broken_slot\n    raise ZeroDivisionError("the divisor went missing")' in text
    window.banner.dismiss()  # still alive: the next failure shows too, and typing still works
    window.composer.set_text("still here")
    assert window.composer.text() == "still here" and window.isVisible()


def test_an_exception_in_a_qasync_slot_is_reported(qtbot, reporting_window):
    window, path = reporting_window

    class Worker(QObject):
        @asyncSlot()
        async def go(self) -> None:
            raise KeyError("missing conversation")

    worker = Worker(window)
    QTimer.singleShot(0, worker.go)
    qtbot.waitUntil(lambda: "KeyError" in window.banner.text(), timeout=5000)
    assert "Something went wrong: KeyError: 'missing conversation'." in window.banner.text()
    assert "in go\n    raise KeyError" in read_log(path)


def test_an_exception_in_a_worker_thread_reaches_the_banner_through_the_gui_thread(qtbot, reporting_window):
    window, path = reporting_window
    def work() -> None:
        raise OSError("disk went away")

    thread = threading.Thread(target=work, name="export-worker")
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: "OSError" in window.banner.text(), timeout=5000)  # queued to the GUI thread
    assert window.banner.text().startswith("Something went wrong: OSError: disk went away.")
    assert "Uncaught exception in thread export-worker" in read_log(path)


class UrlRecorder(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def record(self, url: QUrl) -> None:
        self.urls.append(url)


def help_action(window, text: str):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Help")
    return next(a for a in help_menu.actions() if a.text() == text)


def test_help_open_log_folder_opens_the_profile_log_folder(qtbot, reporting_window):
    window, path = reporting_window
    recorder = UrlRecorder()
    QDesktopServices.setUrlHandler("file", recorder, "record")  # the real opener, without a file manager
    try:
        help_action(window, "Open log folder").trigger()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [Path(url.toLocalFile()) for url in recorder.urls] == [path.parent]
    assert window.banner.isHidden()


def test_when_the_folder_cannot_be_opened_the_banner_says_where_it_is(qtbot, reporting_window):
    window, path = reporting_window
    opened: list[Path] = []
    window.open_folder = lambda folder: opened.append(folder) or False
    help_action(window, "Open log folder").trigger()
    assert opened == [path.parent]
    assert window.banner.text() == f"Could not open the log folder. It is at {path.parent}"


def test_a_run_that_fails_with_a_key_in_its_words_shows_and_logs_it_masked(qtbot, reporting_window):
    from desktop_copilot.core.keys.secrets import Secret

    window, path = reporting_window
    key = Secret("sk-proj-banner-" + "7Qx2" * 10).reveal()

    async def run(_emit, _confirm) -> None:
        raise RuntimeError(f"the gateway said: Incorrect API key provided: {key}")

    assert window.controller.start_run(run)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5000)
    assert window.banner.text() == "Something went wrong: RuntimeError: the gateway said: Incorrect API key provided: [redacted …7Qx2]"
    assert key not in read_log(path) and "Incorrect API key provided: [redacted" in read_log(path)
