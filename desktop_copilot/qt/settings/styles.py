"""The settings dialog's style sheet, built from the chat window's theme, and a helper for `kind` styles."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.common.theme_switch import themed_style_sheet

ARROWS = ":/qt-project.org/styles/commonstyle/images"


def set_kind(widget: QWidget, kind: str) -> None:
    """Sets the `kind` property the style sheet keys on, and re-applies the style."""
    widget.setProperty("kind", kind)
    widget.style().unpolish(widget)
    widget.style().polish(widget)
    widget.updateGeometry()  # padding may have changed


@themed_style_sheet
def settings_style_sheet(theme: Theme) -> str:
    return f"""
        QDialog#settingsDialog, QDialog#endpointForm, QDialog#welcomeDialog, QWidget#settingsPage, QScrollArea#pageScroll, QWidget#pageBody {{
            background: {theme.background}; color: {theme.text};
        }}
        QListWidget#settingsNav {{
            background: {theme.sidebar_background}; border: none; border-right: 1px solid {theme.border};
            padding: 14px 8px; outline: none; font-size: 10.5pt;
        }}
        QListWidget#settingsNav::item {{ padding: 8px 12px; border-radius: 8px; color: {theme.text}; margin: 1px 0; }}
        QListWidget#settingsNav::item:hover {{ background: {theme.row_hover}; }}
        QListWidget#settingsNav::item:selected {{ background: {theme.row_selected}; color: {theme.text}; font-weight: 600; }}
        QLabel#pageTitle {{ font-size: 15pt; font-weight: 600; color: {theme.text}; }}
        QLabel#pageSubtitle, QLabel#hint {{ color: {theme.muted}; }}
        QLabel#keyringNotice {{
            color: {theme.muted}; background: {theme.sidebar_background}; border: 1px solid {theme.border}; border-radius: 10px;
            padding: 8px 12px;
        }}
        QLabel#keyringNotice[kind="warning"] {{ background: {theme.warn_background}; color: {theme.warn_text}; border-color: {theme.warn_border}; }}
        QFrame#keyCard, QFrame#toolCard, QFrame#settingsGroup, QFrame#providerCard {{
            background: {theme.card}; border: 1px solid {theme.border}; border-radius: {theme.radius}px;
        }}
        QFrame#keyCard QLabel, QFrame#toolCard QLabel, QFrame#settingsGroup QLabel, QFrame#providerCard QLabel {{
            background: transparent;
        }}
        QFrame#providerCard QWidget#providerHeader, QFrame#providerCard QWidget#providerBody,
        QFrame#keyEmbedded {{ background: transparent; border: none; }}
        QLabel#keyTitle, QLabel#groupTitle, QLabel#providerName {{ font-weight: 600; font-size: 11pt; }}
        QLabel#sectionTitle {{ font-weight: 600; font-size: 9.5pt; color: {theme.muted}; padding: 6px 0 0 2px; }}
        QLabel#serverState {{ font-size: 9pt; color: {theme.muted}; }}
        QLabel#serverState[kind="running"] {{ color: {theme.ok_text}; }}
        QLabel#defaultTag {{
            border-radius: 9px; padding: 1px 8px; font-size: 8.5pt; color: {theme.accent}; background: {theme.accent_soft};
            border: 1px solid {theme.accent_soft_border};
        }}
        QToolButton#detailsButton {{ border: none; background: transparent; padding: 2px; }}
        QToolButton#detailsButton:hover {{ background: {theme.button_hover}; border-radius: 6px; }}
        QLabel#toolName {{ font-weight: 600; font-family: monospace; font-size: 10.5pt; }}
        QLabel#keyState, QLabel#toolState {{
            border-radius: 9px; padding: 2px 10px; font-size: 9pt; color: {theme.muted}; background: {theme.button_hover};
            border: 1px solid {theme.row_selected};
        }}
        QLabel#keyState[kind="keyring"], QLabel#toolState[kind="on"] {{
            color: {theme.ok_text}; background: {theme.ok_background}; border-color: {theme.ok_border};
        }}
        QLabel#keyState[kind="environment"] {{ color: {theme.info_text}; background: {theme.info_background}; border-color: {theme.info_border}; }}
        QLabel#keyState[kind="session"], QLabel#toolState[kind="needs_key"] {{
            color: {theme.warn_text}; background: {theme.warn_background}; border-color: {theme.warn_border};
        }}
        QLabel#keyMessage, QLabel#hint {{ color: {theme.muted}; }}
        QLabel#hint[kind="error"] {{ color: {theme.error_text}; }}
        QLabel#keyMessage[kind="ok"] {{ color: {theme.ok_text}; }}
        QLabel#keyMessage[kind="error"] {{ color: {theme.error_text}; }}
        QLabel#keyMessage[kind="warning"] {{ color: {theme.warn_text}; }}
        QLabel#keyLink, QLabel#hint {{ font-size: 9pt; color: {theme.muted}; }}
        QLabel#toolDescription {{ color: {theme.muted}; }}
        QLabel#toolNote {{ color: {theme.warn_text}; }}
        QLineEdit, QComboBox, QAbstractSpinBox {{
            background: {theme.card}; border: 1px solid {theme.input_border}; border-radius: 8px; padding: 5px 8px;
            selection-background-color: {theme.highlight}; selection-color: {theme.text}; min-height: 20px;
        }}
        QPlainTextEdit {{ background: {theme.card}; border: 1px solid {theme.input_border}; border-radius: 8px; padding: 3px 4px; }}
        QLineEdit:focus, QComboBox:focus, QAbstractSpinBox:focus, QPlainTextEdit:focus {{ border: 1px solid {theme.accent}; }}
        QLineEdit:disabled, QAbstractSpinBox:disabled {{ color: {theme.faint}; background: {theme.disabled_background}; }}
        QComboBox::drop-down {{ border: none; width: 24px; }}
        QComboBox::down-arrow, QAbstractSpinBox::down-arrow {{ image: url({ARROWS}/arrow-down-16.png); width: 10px; height: 10px; }}
        QAbstractSpinBox::up-arrow {{ image: url({ARROWS}/arrow-up-16.png); width: 10px; height: 10px; }}
        QAbstractSpinBox::up-arrow:disabled, QAbstractSpinBox::down-arrow:disabled {{ image: none; }}
        QAbstractSpinBox QLineEdit, QComboBox QLineEdit {{ border: none; padding: 0; background: transparent; min-height: 0; }}
        QAbstractSpinBox::up-button, QAbstractSpinBox::down-button {{
            subcontrol-origin: border; width: 20px; border: none; background: transparent; margin-right: 3px;
        }}
        QAbstractSpinBox::up-button {{ subcontrol-position: top right; margin-top: 3px; }}
        QAbstractSpinBox::down-button {{ subcontrol-position: bottom right; margin-bottom: 3px; }}
        QAbstractSpinBox::up-button:hover, QAbstractSpinBox::down-button:hover {{ background: {theme.button_hover}; border-radius: 4px; }}
        QComboBox QAbstractItemView {{
            background: {theme.card}; border: 1px solid {theme.border}; selection-background-color: {theme.row_hover};
            selection-color: {theme.text}; outline: none;
        }}
        QPushButton {{
            background: {theme.card}; color: {theme.text}; border: 1px solid {theme.input_border}; border-radius: 8px;
            padding: 5px 14px; min-width: 56px;
        }}
        QPushButton:hover {{ background: {theme.button_hover}; }}
        QDialog#welcomeDialog QPushButton:focus {{ border: 1px solid {theme.accent}; }}
        QPushButton:disabled {{ color: {theme.faint}; background: {theme.disabled_background}; border-color: {theme.border}; }}
        QPushButton#primaryButton, QDialogButtonBox QPushButton:default {{
            background: {theme.accent}; color: {theme.on_accent}; border: 1px solid {theme.accent}; font-weight: 600;
        }}
        QPushButton#primaryButton:hover, QDialogButtonBox QPushButton:default:hover {{ background: {theme.accent_hover}; }}
        QPushButton#primaryButton:disabled {{ background: {theme.accent_disabled}; border-color: {theme.accent_disabled}; color: {theme.on_accent_disabled}; }}
        QToolButton#showKey {{
            background: {theme.card}; border: 1px solid {theme.input_border}; border-radius: 8px; padding: 5px 10px;
            color: {theme.text}; min-width: 36px;
        }}
        QToolButton#showKey:hover {{ background: {theme.button_hover}; }}
        QToolButton#showKey:checked {{ color: {theme.accent}; border-color: {theme.accent}; }}
        QToolButton#showKey:disabled {{ color: {theme.faint}; background: {theme.disabled_background}; border-color: {theme.border}; }}
        QWidget#buttonBar {{ background: {theme.background}; border-top: 1px solid {theme.border}; }}
        QScrollArea#pageScroll {{ border: none; }}
    """
