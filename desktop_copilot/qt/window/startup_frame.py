"""What the window shows for the moment before its parts are built (app/gui.py builds them right after this first
frame): the conversation list's panel, the header and the composer's box in the theme's colours. No text, nothing to
click; the real widgets replace it in place. Drawn by style sheets only: in PySide6 a QPainter call with a colour
(setPen, setBrush, fillRect) makes Python build the Qt namespace's ~90 enums (~25 ms) before the frame."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QGuiApplication, QPaintEvent, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QVBoxLayout, QWidget

from desktop_copilot.qt.common.theme import DARK_THEME, LIGHT_THEME, THEMES, Theme

HEADER_HEIGHT = 64
"""The menu bar and the header of the complete window, together."""
COMPOSER_HEIGHT = 76
BOTTOM_MARGIN = 14


def first_frame_theme(setting: str) -> Theme:
    """The theme of the first frame: a forced one, or on "auto" the lightness of the system's window colour (asking
    Qt for its colour scheme builds the Qt namespace's enums too; the theme switch, installed right after the frame,
    asks it and corrects the rare difference)."""
    if setting in THEMES:
        return THEMES[setting]
    window = QGuiApplication.palette().color(QPalette.ColorRole.Window)
    return DARK_THEME if window.lightness() < 128 else LIGHT_THEME


def startup_style(theme: Theme) -> str:
    return f"""
        QFrame#startupFrame, QFrame#startupMain {{ background: {theme.background}; }}
        QFrame#startupSidebar {{ background: {theme.sidebar_background}; border-right: 1px solid {theme.border}; }}
        QFrame#startupHeader {{ background: {theme.background}; border-bottom: 1px solid {theme.border}; }}
        QFrame#startupComposer {{ background: {theme.card}; border: 1px solid {theme.input_border}; border-radius: 16px; }}
    """


class StartupFrame(QFrame):
    sig_painted = Signal()
    """Once, after its first paint pass."""

    def __init__(self, sidebar_width: int, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="startupFrame")
        self.setStyleSheet(startup_style(theme))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        if sidebar_width:  # 0: the conversation list is hidden
            sidebar = QFrame(objectName="startupSidebar")
            sidebar.setFixedWidth(sidebar_width + 1)
            row.addWidget(sidebar)
        main = QFrame(objectName="startupMain")
        row.addWidget(main)
        column = QVBoxLayout(main)
        column.setContentsMargins(0, 0, 0, BOTTOM_MARGIN)
        column.setSpacing(0)
        header = QFrame(objectName="startupHeader")
        header.setFixedHeight(HEADER_HEIGHT)
        column.addWidget(header)
        column.addStretch(1)
        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(theme.margin, 0, theme.margin, 0)
        composer_row.addStretch(1)
        composer = QFrame(objectName="startupComposer")
        composer.setFixedHeight(COMPOSER_HEIGHT)
        composer.setMaximumWidth(theme.max_column_width)
        composer.setMinimumWidth(200)
        composer_row.addWidget(composer, 100)
        composer_row.addStretch(1)
        column.addLayout(composer_row)
        self._painted = False

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt name
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self.sig_painted.emit)  # after the rest of this paint pass (the children)
