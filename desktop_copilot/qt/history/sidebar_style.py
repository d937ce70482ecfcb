"""The sidebar's look: its style sheet and the small icons it paints (New chat, search)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap

from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.common.theme_switch import themed_style_sheet


@themed_style_sheet
def sidebar_style_sheet(theme: Theme) -> str:
    return f"""
        QWidget#sidebar {{ background: {theme.sidebar_background}; }}
        QLabel#sidebarBrand {{ color: {theme.text}; font-size: 12pt; font-weight: 600; padding: 2px 10px; }}
        QPushButton#newChatButton {{
            color: {theme.text}; background: transparent; border: none; border-radius: 10px;
            padding: 7px 10px; text-align: left; font-weight: 600;
        }}
        QPushButton#newChatButton:hover {{ background: {theme.row_hover}; }}
        QLineEdit#searchField {{
            color: {theme.text}; background: {theme.card}; border: 1px solid {theme.border}; border-radius: 10px;
            padding: 6px 8px; selection-background-color: {theme.highlight}; selection-color: {theme.text};
        }}
        QLineEdit#searchField:focus {{ border: 1px solid {theme.focus_border}; }}
        QListView#conversationList, QListView#searchResults {{ background: transparent; border: none; outline: 0; }}
        QLabel#resultsLabel {{ color: {theme.muted}; font-size: 8.5pt; padding: 6px 18px 2px 18px; }}
        QLineEdit#renameEditor {{
            color: {theme.text}; background: {theme.card}; border: 1px solid {theme.accent}; border-radius: 5px;
            padding: 0 4px; selection-background-color: {theme.highlight}; selection-color: {theme.text};
        }}
    """


def _pen(color: str, width: float) -> QPen:
    pen = QPen(QColor(color), width)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    return pen


def painted_icon(kind: str, color: str, size: int = 20) -> QIcon:
    """Small painted icons: `plus` (an accent disc with a plus) and `search` (a magnifier)."""
    pixmap = QPixmap(size * 2, size * 2)
    pixmap.setDevicePixelRatio(2)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if kind == "plus":
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(color))
        painter.drawEllipse(QRectF(1, 1, size - 2, size - 2))
        painter.setPen(_pen("white", 1.8))
        mid = size / 2
        painter.drawLine(QPointF(mid, 6), QPointF(mid, size - 6))
        painter.drawLine(QPointF(6, mid), QPointF(size - 6, mid))
    else:
        painter.setPen(_pen(color, 1.6))
        painter.drawEllipse(QRectF(4, 4, 9, 9))
        painter.drawLine(QPointF(11.8, 11.8), QPointF(16, 16))
    painter.end()
    return QIcon(pixmap)
