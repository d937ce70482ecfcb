"""Small drawing helpers shared by the transcript part painters: elapsed times, pills, chevrons, wrapped text."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPen, QPolygonF, QTextLayout, QTextOption

from desktop_copilot.qt.common.core_words import core_text
from desktop_copilot.qt.common.theme import Badge

def format_seconds(seconds: float, *, precise: bool = False) -> str:
    """`0.4 s`/`4 s` below a minute (one decimal when `precise` and under 10 s), then `1 m 5 s`."""
    seconds = max(0.0, seconds)
    if seconds < 10 and precise:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{int(seconds)} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} m {rest} s"


def _wrap_option() -> QTextOption:
    """Lines break between words; a word longer than the line (a URL, a path) anywhere. The flags cannot say this:
    with TextWordWrap | TextWrapAnywhere, Qt breaks anywhere, even inside a word that would fit on the next line."""
    option = QTextOption(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    return option


def wrapped_height(font: QFont, text: str, width: int) -> int:
    if not text:
        return 0
    layout = QTextLayout(text.replace("\n", "\u2028"), font)
    layout.setTextOption(_wrap_option())
    layout.beginLayout()
    height = 0.0
    while (line := layout.createLine()).isValid():
        line.setLineWidth(max(1, width))
        line.setPosition(QPointF(0, height))
        height += line.height()
    layout.endLayout()
    return math.ceil(height)


def draw_wrapped(painter: QPainter, rect: QRect, text: str, font: QFont, color: QColor) -> None:
    painter.setFont(font)
    painter.setPen(color)
    painter.drawText(QRectF(rect), text, _wrap_option())


def fill_rounded(painter: QPainter, rect: QRect | QRectF, radius: float, fill: QColor, border: QColor | None = None) -> None:
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(border, 1) if border is not None else Qt.PenStyle.NoPen)
    painter.setBrush(fill)
    painter.drawRoundedRect(QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5), radius, radius)
    painter.restore()


def badge_size(badge: Badge, font: QFont) -> tuple[int, int]:
    metrics = QFontMetrics(font)
    return metrics.horizontalAdvance(core_text(badge.text)) + 16, metrics.height() + 4


def draw_badge(painter: QPainter, right: int, center_y: int, badge: Badge, font: QFont) -> int:
    """Draw the pill so that it ends at `right`; return its left edge."""
    width, height = badge_size(badge, font)
    rect = QRect(right - width, center_y - height // 2, width, height)
    fill_rounded(painter, rect, height / 2, QColor(badge.background))
    painter.setFont(font)
    painter.setPen(QColor(badge.foreground))
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), core_text(badge.text))
    return rect.left()


def draw_chevron(painter: QPainter, x: float, center_y: float, expanded: bool, color: QColor, size: float = 4.5) -> None:
    """A small filled triangle: pointing right when collapsed, down when expanded."""
    if expanded:
        points = [QPointF(x - size, center_y - size / 2), QPointF(x + size, center_y - size / 2), QPointF(x, center_y + size / 1.2)]
    else:
        points = [QPointF(x - size / 2, center_y - size), QPointF(x - size / 2, center_y + size), QPointF(x + size / 1.2, center_y)]
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    path = QPainterPath()
    path.addPolygon(QPolygonF(points))
    painter.drawPath(path)
    painter.restore()
