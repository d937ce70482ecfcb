"""Regression guard for PySide6 6.12.0 on CPython 3.11, which drops a reference to None on every
void-returning call until the process aborts in none_dealloc (DESIGN.md §5)."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel


def test_none_refcount_is_stable_across_void_calls(qtbot):
    label = QLabel()
    qtbot.addWidget(label)
    label.setText("warm-up")
    before = sys.getrefcount(None)
    for n in range(1000):
        label.setText(f"text {n}")
        label.update()
    after = sys.getrefcount(None)
    assert abs(after - before) < 50, f"refcount of None moved from {before} to {after}"
