"""How the window lays out the history: the sidebar left of the transcript, Ctrl+F / Ctrl+K to search,
and the File menu's history actions."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QMainWindow, QSplitter

from desktop_copilot.qt.common.theme import SIDEBAR_WIDTH, Theme
from desktop_copilot.qt.common.theme_switch import current_theme, themed_style_sheet
from desktop_copilot.qt.history.controller import HistoryController
from desktop_copilot.qt.history.file_actions import install_file_menu

SEARCH_SHORTCUTS = ("Ctrl+F", "Ctrl+K")



@themed_style_sheet
def splitter_style(theme: Theme) -> str:
    """The thin line between the conversation list and the transcript."""
    return f"QSplitter#mainSplitter::handle {{ background: {theme.border}; }}"

def install_history_pane(window: QMainWindow) -> HistoryController:
    history = HistoryController(window)
    central = window.takeCentralWidget()
    splitter = QSplitter(Qt.Orientation.Horizontal, objectName="mainSplitter")
    splitter.setHandleWidth(1)
    splitter.setStyleSheet(splitter_style(current_theme()))
    splitter.addWidget(history.sidebar)
    splitter.addWidget(central)
    splitter.setStretchFactor(1, 1)
    splitter.setCollapsible(1, False)
    splitter.setSizes([SIDEBAR_WIDTH, max(400, window.width() - SIDEBAR_WIDTH)])
    window.setCentralWidget(splitter)
    for sequence in SEARCH_SHORTCUTS:
        shortcut = QShortcut(QKeySequence(sequence), window)
        shortcut.activated.connect(history.sidebar.focus_search)
    history.file_actions = install_file_menu(window, history)
    return history
