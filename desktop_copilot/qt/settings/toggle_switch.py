"""A small on/off switch (a checkable button painted as a pill) in the theme's accent colour."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QAbstractButton, QWidget

from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme


class ToggleSwitch(QAbstractButton):
    def __init__(self, parent: QWidget | None = None, *, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent)
        self.theme = theme
        self.setCheckable(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        return QSize(38, 22)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        track = QRectF(1, 2, 36, 20)
        on = self.isChecked()
        color = self.theme.color("accent") if on else self.theme.color("button_border")
        if not self.isEnabled():
            color = self.theme.color("border")
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawRoundedRect(track, 10, 10)
        if self.hasFocus():
            painter.setPen(self.theme.color("accent").darker(130))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(track.adjusted(-1, -1, 1, 1), 11, 11)
            painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.theme.color("card"))
        knob = 16
        x = track.right() - knob - 2 if on else track.left() + 2
        painter.drawEllipse(QRectF(x, track.top() + 2, knob, knob))
