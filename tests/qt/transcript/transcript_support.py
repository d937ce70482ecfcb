"""Shared by the transcript tests: a TranscriptView on a model, shown and ready to paint; a tail renderer that renders
when told."""

from __future__ import annotations

import weakref

from PySide6.QtCore import QPoint, Qt

from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.parts.tail_renderer import render_tail
from desktop_copilot.qt.transcript.view import TranscriptView


def show_view(qtbot, model: TranscriptModel, width: int = 600, height: int = 400) -> TranscriptView:
    view = TranscriptView(model)
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.testAttribute(Qt.WidgetAttribute.WA_Mapped))  # repaint() paints from here on
    return view


def hotspot_point(view: TranscriptView, row: int, action: str) -> QPoint:
    """Where (viewport coordinates) row `row` paints its hotspot `action` (scrolled into view first); for a whole-row
    hotspot (a compaction marker's toggle) a point near its left end, clear of the buttons on its right."""
    index = view.transcript.index(row, 0)
    view.scrollTo(index)
    view.viewport().repaint()
    layout = view.delegate.layout(index)
    part = layout.parts[0]
    area = layout.part_rect(part, view.delegate.env.column(view.visualRect(index)))
    inner = next(h for h in part.hotspots if h.action == action).rect.translated(area.topLeft())
    return QPoint(inner.left() + 6, inner.center().y()) if inner.width() == area.width() else inner.center()


class Later:
    """Renders what was asked only when told (`release`), as the worker does between two updates."""

    def __init__(self) -> None:
        self.asked: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.done: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def submit(self, owner, start, text, theme) -> None:
        self.asked[owner] = (start, text, theme)

    def take(self, owner):
        return self.done.pop(owner, None)

    def forget(self, owner) -> None:
        self.asked.pop(owner, None)
        self.done.pop(owner, None)

    def release(self) -> None:
        for owner, (start, text, theme) in list(self.asked.items()):
            self.done[owner] = render_tail(start, text, theme)
        self.asked.clear()
