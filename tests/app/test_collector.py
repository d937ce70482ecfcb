"""The window's collector (app/collector.py): what was alive when a reply started is frozen while it streams, let go
and collected once the window idles after it, at once when the window closes, and at the next reply's start when replies
kept it frozen too long; garbage made meanwhile is collected then."""

from __future__ import annotations

import gc
import weakref

import pytest
from PySide6.QtCore import QObject

from desktop_copilot.app import collector
from desktop_copilot.app.collector import StreamingCollector


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def made(qapp):
    parent = QObject()
    made = StreamingCollector(parent)
    yield made
    made.release()
    assert gc.get_freeze_count() == 0


def test_a_reply_freezes_and_the_idle_window_lets_go_and_collects(qtbot, made):
    kept = Cycle()
    gc.collect()
    made.busy_changed(True)
    assert made.frozen and gc.get_freeze_count() > 0
    watched = weakref.ref(kept)
    del kept
    gc.collect()
    assert watched() is not None  # frozen: a full pass mid-reply does not walk it
    made.busy_changed(False)
    qtbot.waitUntil(lambda: not made.frozen, timeout=collector.IDLE_COLLECT_MS + 2000)
    assert watched() is None and gc.get_freeze_count() == 0


def test_replies_close_together_let_go_once_frozen_too_long(made, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(collector.time, "monotonic", lambda: now[0])
    kept = Cycle()
    made.busy_changed(True)
    watched = weakref.ref(kept)
    del kept
    made.busy_changed(False)
    now[0] += collector.MOST_FROZEN_S / 2
    made.busy_changed(True)  # another reply before the idle pass: still frozen
    assert watched() is not None
    made.busy_changed(False)
    now[0] += collector.MOST_FROZEN_S
    made.busy_changed(True)
    assert watched() is None and made.frozen


def test_young_garbage_is_collected_before_it_is_frozen(made):
    young = Cycle()
    watched = weakref.ref(young)
    del young
    made.busy_changed(True)
    assert watched() is None


def test_closing_the_window_lets_go_at_once(made):
    made.busy_changed(True)
    made.release()
    assert not made.frozen and gc.get_freeze_count() == 0
