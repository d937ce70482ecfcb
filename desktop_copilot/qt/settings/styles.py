"""The settings dialog's style sheet, built from the chat window's theme, and a helper for `kind` styles."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from desktop_copilot.qt.common.theme import Theme

OK_TEXT, OK_BACKGROUND = "#15803d", "#e8f5ec"
WARN_TEXT, WARN_BACKGROUND, WARN_BORDER = "#92400e", "#fdf4e3", "#f1d9a8"
INFO_TEXT, INFO_BACKGROUND = "#1d4ed8", "#e8effd"
ARROWS = ":/qt-project.org/styles/commonstyle/images"


def set_kind(widget: QWidget, kind: str) -> None:
    """Sets the `kind` property the style sheet keys on, and re-applies the style."""
    widget.setProperty("kind", kind)
    widget.style().unpolish(widget)
    widget.style().polish(widget)
    widget.updateGeometry()  # padding may have changed


def settings_style_sheet(theme: Theme) -> str:
    return f"""
        QDialog#settingsDialog, QDialog#endpointForm, QWidget#settingsPage, QScrollArea#pageScroll, QWidget#pageBody {{
            background: {theme.background}; color: {theme.text};
        }}
        QListWidget#settingsNav {{
            background: #f3f1ea; border: none; border-right: 1px solid {theme.border};
            padding: 14px 8px; outline: none; font-size: 10.5pt;
        }}
        QListWidget#settingsNav::item {{ padding: 8px 12px; border-radius: 8px; color: {theme.text}; margin: 1px 0; }}
        QListWidget#settingsNav::item:hover {{ background: #ebe7dc; }}
        QListWidget#settingsNav::item:selected {{ background: #e4dfd2; color: {theme.text}; font-weight: 600; }}
        QLabel#pageTitle {{ font-size: 15pt; font-weight: 600; color: {theme.text}; }}
        QLabel#pageSubtitle, QLabel#hint {{ color: {theme.muted}; }}
        QLabel#pageIntro {{
            background: {INFO_BACKGROUND}; color: #1e3a8a; border: 1px solid #c7d7fa; border-radius: 10px;
            padding: 10px 12px;
        }}
        QLabel#keyringNotice {{
            color: {theme.muted}; background: #f3f1ea; border: 1px solid {theme.border}; border-radius: 10px;
            padding: 8px 12px;
        }}
        QLabel#keyringNotice[kind="warning"] {{ background: {WARN_BACKGROUND}; color: {WARN_TEXT}; border-color: {WARN_BORDER}; }}
        QFrame#keyCard, QFrame#toolCard, QFrame#settingsGroup, QFrame#providerCard {{
            background: {theme.card}; border: 1px solid {theme.border}; border-radius: {theme.radius}px;
        }}
        QFrame#keyCard QLabel, QFrame#toolCard QLabel, QFrame#settingsGroup QLabel, QFrame#providerCard QLabel {{
            background: transparent;
        }}
        QFrame#providerCard QWidget#providerHeader, QFrame#providerCard QWidget#providerBody,
        QFrame#keyEmbedded {{ background: transparent; border: none; }}
        QLabel#keyTitle, QLabel#groupTitle, QLabel#providerName {{ font-weight: 600; font-size: 11pt; }}
        QLabel#defaultTag {{
            border-radius: 9px; padding: 1px 8px; font-size: 8.5pt; color: {theme.accent}; background: #fbeee8;
            border: 1px solid #f1d3c6;
        }}
        QToolButton#detailsButton {{ border: none; background: transparent; padding: 2px; }}
        QToolButton#detailsButton:hover {{ background: #f0ede4; border-radius: 6px; }}
        QLabel#toolName {{ font-weight: 600; font-family: monospace; font-size: 10.5pt; }}
        QLabel#keyState, QLabel#toolState {{
            border-radius: 9px; padding: 2px 10px; font-size: 9pt; color: {theme.muted}; background: #f0ede4;
            border: 1px solid #e4dfd2;
        }}
        QLabel#keyState[kind="keyring"], QLabel#toolState[kind="on"] {{
            color: {OK_TEXT}; background: {OK_BACKGROUND}; border-color: #cdebd6;
        }}
        QLabel#keyState[kind="environment"] {{ color: {INFO_TEXT}; background: {INFO_BACKGROUND}; border-color: #c7d7fa; }}
        QLabel#keyState[kind="session"], QLabel#toolState[kind="needs_key"] {{
            color: {WARN_TEXT}; background: {WARN_BACKGROUND}; border-color: {WARN_BORDER};
        }}
        QLabel#keyMessage, QLabel#hint {{ color: {theme.muted}; }}
        QLabel#hint[kind="error"] {{ color: {theme.error_text}; }}
        QLabel#keyMessage[kind="ok"] {{ color: {OK_TEXT}; }}
        QLabel#keyMessage[kind="error"] {{ color: {theme.error_text}; }}
        QLabel#keyMessage[kind="warning"] {{ color: {WARN_TEXT}; }}
        QLabel#keyLink, QLabel#hint {{ font-size: 9pt; color: {theme.muted}; }}
        QLabel#toolDescription {{ color: {theme.muted}; }}
        QLabel#toolNote {{ color: {WARN_TEXT}; }}
        QLineEdit, QComboBox, QSpinBox {{
            background: {theme.card}; border: 1px solid #d9d3c7; border-radius: 8px; padding: 5px 8px;
            selection-background-color: #f3d9cc; selection-color: {theme.text}; min-height: 20px;
        }}
        QPlainTextEdit {{ background: {theme.card}; border: 1px solid #d9d3c7; border-radius: 8px; padding: 3px 4px; }}
        QLineEdit:focus, QComboBox:focus, QSpinBox:focus, QPlainTextEdit:focus {{ border: 1px solid {theme.accent}; }}
        QLineEdit:disabled, QSpinBox:disabled {{ color: #a8a29e; background: #f5f3ee; }}
        QComboBox::drop-down {{ border: none; width: 24px; }}
        QComboBox::down-arrow, QSpinBox::down-arrow {{ image: url({ARROWS}/arrow-down-16.png); width: 10px; height: 10px; }}
        QSpinBox::up-arrow {{ image: url({ARROWS}/arrow-up-16.png); width: 10px; height: 10px; }}
        QSpinBox::up-arrow:disabled, QSpinBox::down-arrow:disabled {{ image: none; }}
        QSpinBox QLineEdit, QComboBox QLineEdit {{ border: none; padding: 0; background: transparent; min-height: 0; }}
        QSpinBox::up-button, QSpinBox::down-button {{
            subcontrol-origin: border; width: 20px; border: none; background: transparent; margin-right: 3px;
        }}
        QSpinBox::up-button {{ subcontrol-position: top right; margin-top: 3px; }}
        QSpinBox::down-button {{ subcontrol-position: bottom right; margin-bottom: 3px; }}
        QSpinBox::up-button:hover, QSpinBox::down-button:hover {{ background: #f0ede4; border-radius: 4px; }}
        QComboBox QAbstractItemView {{
            background: {theme.card}; border: 1px solid {theme.border}; selection-background-color: #f0ede4;
            selection-color: {theme.text}; outline: none;
        }}
        QPushButton {{
            background: {theme.card}; color: {theme.text}; border: 1px solid #d9d3c7; border-radius: 8px;
            padding: 5px 14px; min-width: 56px;
        }}
        QPushButton:hover {{ background: #f5f2ec; }}
        QPushButton:disabled {{ color: #b5aea3; background: #f7f5f0; border-color: #e7e2d8; }}
        QPushButton#primaryButton, QDialogButtonBox QPushButton:default {{
            background: {theme.accent}; color: white; border: 1px solid {theme.accent}; font-weight: 600;
        }}
        QPushButton#primaryButton:hover, QDialogButtonBox QPushButton:default:hover {{ background: #b5573a; }}
        QPushButton#primaryButton:disabled {{ background: #eed3c8; border-color: #eed3c8; color: #fdf6f2; }}
        QToolButton#showKey {{
            background: {theme.card}; border: 1px solid #d9d3c7; border-radius: 8px; padding: 5px 10px;
            color: {theme.text}; min-width: 36px;
        }}
        QToolButton#showKey:hover {{ background: #f5f2ec; }}
        QToolButton#showKey:checked {{ color: {theme.accent}; border-color: {theme.accent}; }}
        QToolButton#showKey:disabled {{ color: #b5aea3; background: #f7f5f0; border-color: #e7e2d8; }}
        QWidget#buttonBar {{ background: {theme.background}; border-top: 1px solid {theme.border}; }}
        QScrollArea#pageScroll {{ border: none; }}
    """
