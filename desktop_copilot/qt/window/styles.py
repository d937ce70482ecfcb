"""The Qt style sheet of the main window, built from the theme."""

from __future__ import annotations

from desktop_copilot.qt.common.theme import Theme


def window_style_sheet(theme: Theme) -> str:
    return f"""
        QMainWindow, QWidget#central, QWidget#bottomArea, QAbstractItemView#transcript {{
            background: {theme.background};
        }}
        QWidget#header {{
            background: {theme.background};
            border-bottom: 1px solid {theme.border};
        }}
        QLabel#conversationTitle {{ color: {theme.text}; font-weight: 600; font-size: 11pt; }}
        QFrame#composer {{
            background: {theme.card}; border: 1px solid #ddd7cb; border-radius: 16px;
        }}
        QPlainTextEdit#prompt {{
            background: transparent; color: {theme.text}; font-size: 11pt; border: none;
            selection-background-color: #f3d9cc; selection-color: {theme.text};
        }}
        QLabel#composerHint {{ color: #a8a29e; font-size: 8.5pt; background: transparent; border: none; }}
        QPushButton#sendButton {{
            background: {theme.accent}; color: white; border: none; border-radius: 17px;
            padding: 6px 18px; font-weight: 600;
        }}
        QPushButton#sendButton:hover {{ background: #b5573a; }}
        QPushButton#sendButton:disabled {{ background: #e8c4b5; color: #fdf6f2; }}
        QPushButton#sendButton[stop="true"] {{ background: {theme.text}; }}
        QPushButton#sendButton[stop="true"]:hover {{ background: #44403c; }}
        QFrame#errorBanner {{
            background: {theme.error_background}; border: 1px solid {theme.error_border}; border-radius: 10px;
        }}
        QLabel#errorText {{ color: {theme.error_text}; background: transparent; border: none; }}
        QLabel#errorIcon {{
            color: white; background: {theme.error_text}; border-radius: 10px; font-weight: 700;
        }}
        QToolButton#errorClose {{ color: {theme.error_text}; background: transparent; border: none; padding: 2px 6px; }}
        QToolButton#errorClose:hover {{ background: #f8d7d7; border-radius: 6px; }}
        QMenuBar {{ background: {theme.background}; color: {theme.text}; border-bottom: 1px solid {theme.border}; }}
        QMenuBar::item {{ background: transparent; padding: 4px 10px; border-radius: 6px; }}
        QMenuBar::item:selected {{ background: {theme.row_hover}; }}
        QMenu {{ background: {theme.card}; color: {theme.text}; border: 1px solid {theme.border}; padding: 5px; }}
        QMenu::item {{ padding: 6px 28px 6px 14px; border-radius: 6px; }}
        QMenu::item:selected {{ background: {theme.row_hover}; color: {theme.text}; }}
        QMenu::item:disabled {{ color: #a8a29e; }}
        QMenu::separator {{ height: 1px; background: {theme.border}; margin: 4px 8px; }}
        QStatusBar {{ background: {theme.background}; color: {theme.muted}; border-top: 1px solid {theme.border}; }}
        QStatusBar QLabel#usageLabel {{ color: {theme.muted}; padding-right: 12px; }}
        QScrollBar:vertical {{ background: transparent; width: 10px; margin: 2px; }}
        QScrollBar::handle:vertical {{ background: #d6d1c4; border-radius: 3px; min-height: 40px; }}
        QScrollBar::handle:vertical:hover {{ background: #bdb6a6; }}
        QScrollBar::add-line:vertical, QScrollBar::sub-line:vertical {{ height: 0px; }}
        QScrollBar::add-page:vertical, QScrollBar::sub-page:vertical {{ background: transparent; }}
    """
