"""The theme in effect and switching it live: light or dark from `Settings.theme` ("auto", "light" or "dark") and
the system's colour scheme. A switch sets the application palette, rebuilds every open widget's style sheet that a
`themed_style_sheet` builder made, hands the new theme to each widget and item delegate that keeps one, and repaints."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6 import QtWidgets
from PySide6.QtWidgets import QApplication, QWidget

from desktop_copilot.qt.common.theme import DARK_THEME, DEFAULT_THEME, LIGHT_THEME, THEMES, Theme

if TYPE_CHECKING:  # touching PySide6's Qt namespace builds its ~90 enums (~25 ms): not before the first frame
    from PySide6.QtCore import Qt

log = logging.getLogger(__name__)

THEME_CHOICES = ("auto", "light", "dark")
"""Settings.theme values: follow the system, or force one."""
FORCED_SETTINGS = ("light", "dark")
_STYLE_SHEET_BUILDERS: list[Callable[[Theme], str]] = []
_switch: ThemeSwitch | None = None


def theme_for(setting: str, scheme: Qt.ColorScheme) -> Theme:
    """The theme for a setting and the system's scheme ("auto" follows the scheme; an unknown scheme is light)."""
    from PySide6.QtCore import Qt

    if setting in FORCED_SETTINGS:
        return THEMES[setting]
    return DARK_THEME if scheme == Qt.ColorScheme.Dark else LIGHT_THEME


def themed_style_sheet(build: Callable[[Theme], str]) -> Callable[[Theme], str]:
    """Marks a style-sheet builder: a widget whose style sheet it built for one theme gets it rebuilt for the next."""
    _STYLE_SHEET_BUILDERS.append(build)
    return build


def theme_switch() -> ThemeSwitch | None:
    """The application's switch, once `install_theme_switch` made it."""
    return _switch


def current_theme() -> Theme:
    """The theme in effect (the light one until a switch is installed): what new widgets should be built with."""
    return _switch.theme if _switch is not None else DEFAULT_THEME


def install_theme_switch(app: QGuiApplication, setting: str = "auto") -> ThemeSwitch:
    """Makes the application's switch (replacing an earlier one), applies its theme and follows the system's scheme."""
    global _switch
    if _switch is not None:
        _switch.close()
    _switch = ThemeSwitch(app, setting)
    return _switch


def palette_for(theme: Theme, base: QPalette) -> QPalette:
    """`base` with the theme's colours in the roles unstyled widgets (labels, message boxes, menus) paint with."""
    palette = QPalette(base)
    roles = {
        QPalette.ColorRole.Window: theme.background,
        QPalette.ColorRole.WindowText: theme.text,
        QPalette.ColorRole.Base: theme.card,
        QPalette.ColorRole.AlternateBase: theme.sidebar_background,
        QPalette.ColorRole.Text: theme.text,
        QPalette.ColorRole.Button: theme.button,
        QPalette.ColorRole.ButtonText: theme.text,
        QPalette.ColorRole.BrightText: theme.on_accent,
        QPalette.ColorRole.ToolTipBase: theme.card,
        QPalette.ColorRole.ToolTipText: theme.text,
        QPalette.ColorRole.PlaceholderText: theme.faint,
        QPalette.ColorRole.Link: theme.accent,
        QPalette.ColorRole.LinkVisited: theme.accent,
        QPalette.ColorRole.Light: theme.button_hover,
        QPalette.ColorRole.Midlight: theme.border,
        QPalette.ColorRole.Mid: theme.button_border,
        QPalette.ColorRole.Dark: theme.scrollbar_hover,
    }
    for role, value in roles.items():
        palette.setColor(role, QColor(value))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(theme.faint))
    return palette


def _with_theme(obj: object, theme: Theme) -> None:
    """Hands `theme` to an object that keeps one: its `apply_theme(theme)` (a transcript delegate's also drops the
    documents and row layouts that baked the old colours in), else its `theme` attribute."""
    if callable(apply := getattr(obj, "apply_theme", None)):
        apply(theme)
    elif isinstance(getattr(obj, "theme", None), Theme):
        obj.theme = theme


def _views_and_delegates(widget: QWidget) -> Iterator[object]:
    yield widget
    if isinstance(widget, QtWidgets.QAbstractItemView) and widget.itemDelegate() is not None:
        yield widget.itemDelegate()


class ThemeSwitch(QObject):
    """Which theme is in effect, and the one place that changes it."""

    sig_theme_changed = Signal(object)
    """The new Theme, after every open widget has it."""

    def __init__(self, app: QGuiApplication, setting: str = "auto") -> None:
        super().__init__(app)
        self.app = app
        self.setting = setting if setting in THEME_CHOICES else "auto"
        self._base_palette = QPalette(app.palette())
        self._apply_scheme_request()
        self.theme = theme_for(self.setting, app.styleHints().colorScheme())
        app.styleHints().colorSchemeChanged.connect(self.on_system_scheme)
        self.apply()

    def on_system_scheme(self, scheme: Qt.ColorScheme) -> None:
        """The system's colour scheme changed: followed when the setting is "auto"."""
        if self.setting == "auto":
            self._switch_to(theme_for("auto", scheme))

    def set_setting(self, setting: str) -> None:
        """"auto", "light" or "dark" (anything else counts as "auto"); applied at once."""
        self.setting = setting if setting in THEME_CHOICES else "auto"
        self._apply_scheme_request()
        self._switch_to(theme_for(self.setting, self.app.styleHints().colorScheme()))

    def _apply_scheme_request(self) -> None:
        """Asks Qt for the forced scheme (native dialogs and title bars follow where the platform can), or for the system's."""
        from PySide6.QtCore import Qt

        hints = self.app.styleHints()
        if self.setting in FORCED_SETTINGS:
            hints.setColorScheme(Qt.ColorScheme.Light if self.setting == "light" else Qt.ColorScheme.Dark)
        else:
            hints.unsetColorScheme()

    def _switch_to(self, theme: Theme) -> None:
        if theme is not self.theme:
            self.theme = theme
            self.apply()

    def apply(self) -> None:
        """Brings the palette and every open widget to the current theme (also for widgets built with another one)."""
        theme = self.theme
        log.info("theme: %s (setting %s)", theme.name, self.setting)
        self.app.setPalette(palette_for(theme, self._base_palette))
        rebuilt = {build(other): build(theme) for build in _STYLE_SHEET_BUILDERS for other in THEMES.values() if other is not theme}
        for widget in QApplication.allWidgets():
            if (sheet := widget.styleSheet()) and (new_sheet := rebuilt.get(sheet)) is not None:
                widget.setStyleSheet(new_sheet)
            for obj in _views_and_delegates(widget):
                _with_theme(obj, theme)
            if isinstance(widget, QtWidgets.QAbstractItemView):
                widget.viewport().update()
            widget.update()
        self.sig_theme_changed.emit(theme)

    def close(self) -> None:
        """Brings open widgets back to the default theme, stops following the system and gives the application its own
        palette and scheme back (tests, a new switch)."""
        global _switch
        self._switch_to(DEFAULT_THEME)
        self.app.styleHints().colorSchemeChanged.disconnect(self.on_system_scheme)
        self.app.styleHints().unsetColorScheme()
        self.app.setPalette(self._base_palette)
        if _switch is self:
            _switch = None
        self.setParent(None)
