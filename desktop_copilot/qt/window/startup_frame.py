"""What the window shows for the moment before its parts are built (app/gui.py builds them right after this first
frame): the conversation list's panel, the header and the composer's box in the theme's colours. No text, nothing to
click; the real widgets replace it in place."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from desktop_copilot.qt.common.theme_switch import current_theme

HEADER_HEIGHT = 52
COMPOSER_HEIGHT = 96
COMPOSER_RADIUS = 16
BOTTOM_MARGIN = 14


class StartupFrame(QWidget):
    def __init__(self, sidebar_width: int, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="startupFrame")
        self.sidebar_width = sidebar_width
        """0 when the conversation list is hidden."""

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt name
        theme = current_theme()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        width, height = self.width(), self.height()
        painter.fillRect(0, 0, width, height, theme.color("background"))
        left = 0
        if self.sidebar_width:
            painter.fillRect(0, 0, self.sidebar_width, height, theme.color("sidebar_background"))
            painter.fillRect(self.sidebar_width, 0, 1, height, theme.color("border"))
            left = self.sidebar_width + 1
        painter.fillRect(left, HEADER_HEIGHT - 1, width - left, 1, theme.color("border"))
        column = max(0, min(theme.max_column_width, width - left - 2 * theme.margin))
        box = QRectF(left + (width - left - column) / 2, height - BOTTOM_MARGIN - COMPOSER_HEIGHT, column, COMPOSER_HEIGHT)
        painter.setPen(QPen(theme.color("input_border"), 1))
        painter.setBrush(theme.color("card"))
        painter.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), COMPOSER_RADIUS, COMPOSER_RADIUS)
