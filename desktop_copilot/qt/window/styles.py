"""The Qt style sheet of the main window, built from the theme (rebuilt by the theme switch)."""

from __future__ import annotations

from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.common.theme_switch import themed_style_sheet


@themed_style_sheet
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
            background: {theme.card}; border: 1px solid {theme.input_border}; border-radius: 16px;
        }}
        QPlainTextEdit#prompt {{
            background: transparent; color: {theme.text}; font-size: 11pt; border: none;
            selection-background-color: {theme.highlight}; selection-color: {theme.text};
        }}
        QLabel#composerHint {{ color: {theme.faint}; font-size: 8.5pt; background: transparent; border: none; }}
        QPushButton#sendButton {{
            background: {theme.accent}; color: {theme.on_accent}; border: none; border-radius: 17px;
            padding: 6px 18px; font-weight: 600;
        }}
        QPushButton#sendButton:hover {{ background: {theme.accent_hover}; }}
        QPushButton#sendButton:disabled {{ background: {theme.accent_disabled}; color: {theme.on_accent_disabled}; }}
        QPushButton#sendButton[stop="true"] {{ background: {theme.text}; color: {theme.background}; }}
        QPushButton#sendButton[stop="true"]:hover {{ background: {theme.stop_hover}; }}
        QFrame#errorBanner {{
            background: {theme.error_background}; border: 1px solid {theme.error_border}; border-radius: 10px;
        }}
        QLabel#errorText {{ color: {theme.error_text}; background: transparent; border: none; }}
        QLabel#errorIcon {{
            color: {theme.error_background}; background: {theme.error_text}; border-radius: 10px; font-weight: 700;
        }}
        QToolButton#toolsButton {{ color: {theme.muted}; background: transparent; border: 1px solid {theme.border};
            border-radius: 8px; min-height: 32px; padding: 0 8px; }}
        QToolButton#toolsButton:hover {{ color: {theme.text}; background: {theme.user_bubble}; }}
        QToolButton#toolsButton::menu-indicator, QToolButton#conversationMenuButton::menu-indicator {{ image: none; width: 0; }}
        QToolButton#askSeveralButton {{ color: {theme.muted}; background: transparent; border: 1px solid {theme.border};
            border-radius: 8px; min-width: 30px; min-height: 32px; font-size: 16px; }}
        QToolButton#askSeveralButton:hover {{ color: {theme.text}; background: {theme.user_bubble}; }}
        QToolButton#askSeveralButton:disabled {{ color: {theme.faint}; }}
        QToolButton#errorClose {{ color: {theme.error_text}; background: transparent; border: none; padding: 2px 6px; }}
        QToolButton#errorClose:hover {{ background: {theme.error_border}; border-radius: 6px; }}
        QMenuBar {{ background: {theme.background}; color: {theme.text}; border-bottom: 1px solid {theme.border}; }}
        QMenuBar::item {{ background: transparent; padding: 4px 10px; border-radius: 6px; }}
        QMenuBar::item:selected {{ background: {theme.row_hover}; }}
        QMenu {{ background: {theme.card}; color: {theme.text}; border: 1px solid {theme.border}; padding: 5px; }}
        QMenu::item {{ padding: 6px 28px 6px 14px; border-radius: 6px; }}
        QMenu::item:selected {{ background: {theme.row_hover}; color: {theme.text}; }}
        QMenu::item:disabled {{ color: {theme.faint}; }}
        QMenu::separator {{ height: 1px; background: {theme.border}; margin: 4px 8px; }}
        QStatusBar {{ background: {theme.background}; color: {theme.muted}; border-top: 1px solid {theme.border}; }}
        QStatusBar QLabel#usageLabel {{ color: {theme.muted}; padding-right: 12px; }}
        QScrollBar:vertical {{ background: transparent; width: 10px; margin: 2px; }}
        QScrollBar::handle:vertical {{ background: {theme.scrollbar}; border-radius: 3px; min-height: 40px; }}
        QScrollBar::handle:vertical:hover {{ background: {theme.scrollbar_hover}; }}
        QScrollBar::add-line:vertical, QScrollBar::sub-line:vertical {{ height: 0px; }}
        QScrollBar::add-page:vertical, QScrollBar::sub-page:vertical {{ background: transparent; }}
    """
