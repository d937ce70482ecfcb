"""Shared by the transcript tests: a TranscriptView on a model, shown and ready to paint."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.view import TranscriptView


def show_view(qtbot, model: TranscriptModel, width: int = 600, height: int = 400) -> TranscriptView:
    view = TranscriptView(model)
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.testAttribute(Qt.WidgetAttribute.WA_Mapped))  # repaint() paints from here on
    return view
