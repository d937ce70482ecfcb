"""The Qt fixtures of tests/qt (a qasync loop that qtbot drives, garbage collected on the GUI thread) for the soak, with
the loop the app runs on (qt/bridge/event_loop.AppEventLoop)."""

import pytest
import qasync

from desktop_copilot.qt.bridge.event_loop import AppEventLoop
from tests.qt.conftest import _collect_on_the_gui_thread, qasync_loop  # noqa: F401 - fixtures


@pytest.fixture(autouse=True)
def _app_loop(monkeypatch):
    monkeypatch.setattr(qasync, "QEventLoop", AppEventLoop)
