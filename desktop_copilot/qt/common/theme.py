"""Colours, fonts and spacing of the chat UI in one place: a light (Claude-Desktop-like) and a dark palette with the
same colour names, the status and risk pills of each, and the Pygments style of each for code."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QColor

from desktop_copilot.core.conversation.statuses import ToolCallStatus
from desktop_copilot.core.tools.risk import Risk

if TYPE_CHECKING:  # QFont loads with the first font asked for, not before the window's first frame
    from PySide6.QtGui import QFont


@dataclass(frozen=True, slots=True)
class Badge:
    text: str
    foreground: str
    background: str


TOOL_BADGES: dict[ToolCallStatus, Badge] = {
    ToolCallStatus.PENDING: Badge(QT_TRANSLATE_NOOP("CoreMessages", "Pending"), "#57534e", "#e7e5e4"),
    ToolCallStatus.AWAITING_APPROVAL: Badge(QT_TRANSLATE_NOOP("CoreMessages", "Needs approval"), "#9a3412", "#ffedd5"),
    ToolCallStatus.RUNNING: Badge(QT_TRANSLATE_NOOP("CoreMessages", "Running"), "#1d4ed8", "#dbeafe"),
    ToolCallStatus.DONE: Badge(QT_TRANSLATE_NOOP("CoreMessages", "Done"), "#15803d", "#dcfce7"),
    ToolCallStatus.ERROR: Badge(QT_TRANSLATE_NOOP("CoreMessages", "Error"), "#b91c1c", "#fee2e2"),
    ToolCallStatus.CANCELLED: Badge(QT_TRANSLATE_NOOP("CoreMessages", "Cancelled"), "#854d0e", "#fef3c7"),
}
"""The light theme's status pills of a tool card."""

_AMBER = ("#92400e", "#fde68a")
RISK_BADGES: dict[Risk, Badge] = {
    Risk.DESTRUCTIVE: Badge(Risk.DESTRUCTIVE.label, "#ffffff", "#b91c1c"),
    Risk.WRITES: Badge(Risk.WRITES.label, *_AMBER),
    Risk.OPEN_WORLD: Badge(Risk.OPEN_WORLD.label, *_AMBER),
    Risk.UNKNOWN: Badge(Risk.UNKNOWN.label, *_AMBER),
    Risk.READ_ONLY: Badge(Risk.READ_ONLY.label, "#15803d", "#dcfce7"),
}
"""The pill an approval card shows for a tool's risk (light theme): destructive red, other side effects amber."""

DARK_TOOL_BADGES: dict[ToolCallStatus, Badge] = {
    status: Badge(TOOL_BADGES[status].text, foreground, background)
    for status, (foreground, background) in {
        ToolCallStatus.PENDING: ("#d6d3d1", "#44403c"),
        ToolCallStatus.AWAITING_APPROVAL: ("#fdba74", "#4a2511"),
        ToolCallStatus.RUNNING: ("#93c5fd", "#172b4d"),
        ToolCallStatus.DONE: ("#86efac", "#14331f"),
        ToolCallStatus.ERROR: ("#fca5a5", "#4c1d1d"),
        ToolCallStatus.CANCELLED: ("#fcd34d", "#422d0b"),
    }.items()
}
_DARK_AMBER = ("#fcd34d", "#4a3510")
DARK_RISK_BADGES: dict[Risk, Badge] = {
    Risk.DESTRUCTIVE: Badge(Risk.DESTRUCTIVE.label, "#ffffff", "#b91c1c"),
    Risk.WRITES: Badge(Risk.WRITES.label, *_DARK_AMBER),
    Risk.OPEN_WORLD: Badge(Risk.OPEN_WORLD.label, *_DARK_AMBER),
    Risk.UNKNOWN: Badge(Risk.UNKNOWN.label, *_DARK_AMBER),
    Risk.READ_ONLY: Badge(Risk.READ_ONLY.label, "#86efac", "#14331f"),
}


def _font(point_size: float, *, bold: bool = False, fixed: bool = False) -> QFont:
    from PySide6.QtGui import QFont, QFontDatabase

    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont) if fixed else QFont()
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font


@dataclass(frozen=True)
class Theme:
    """The light theme by default; DARK_THEME sets every colour again. Colour fields are `#rrggbb` strings."""

    name: str = "light"
    dark: bool = False
    background: str = "#faf9f5"
    text: str = "#1f1e1d"
    muted: str = "#716a65"
    faint: str = "#a8a29e"
    """Hints and disabled text (not for anything that must be read)."""
    border: str = "#e7e2d8"
    input_border: str = "#d9d3c7"
    user_bubble: str = "#efece3"
    card: str = "#ffffff"
    code_background: str = "#f3f1eb"
    inline_code: str = "#9a3412"
    """Text of `inline code`."""
    quote_bar: str = "#d6d1c4"
    accent: str = "#c96442"
    accent_hover: str = "#b5573a"
    accent_disabled: str = "#e8c4b5"
    on_accent: str = "#ffffff"
    """Text on an accent fill (the Send button, the New chat disc)."""
    on_accent_disabled: str = "#fdf6f2"
    accent_soft: str = "#fbeee8"
    """A tag's fill in the accent's hue (Settings' "Default" tag), with accent text."""
    accent_soft_border: str = "#f1d3c6"
    focus_border: str = "#d9a58f"
    error_text: str = "#991b1b"
    error_background: str = "#fdecec"
    error_border: str = "#f5c2c2"
    ok_text: str = "#166534"
    ok_background: str = "#e8f5ec"
    ok_border: str = "#cdebd6"
    warn_text: str = "#92400e"
    warn_background: str = "#fdf4e3"
    warn_border: str = "#f1d9a8"
    info_text: str = "#1d4ed8"
    info_strong: str = "#1e3a8a"
    """Body text on an info fill (a page's introduction)."""
    info_background: str = "#e8effd"
    info_border: str = "#c7d7fa"
    sidebar_background: str = "#f3f1ea"
    row_hover: str = "#ebe8df"
    row_selected: str = "#e3dfd3"
    highlight: str = "#f6d9c9"
    """Search-match, jump-to-message and text-field selection highlight (text stays `text`)."""
    diff_added: str = "#166534"
    diff_removed: str = "#b91c1c"
    button: str = "#ffffff"
    button_hover: str = "#f3f1eb"
    button_pressed: str = "#e2ddd1"
    button_border: str = "#d6d1c4"
    disabled_background: str = "#f6f4ef"
    stop_hover: str = "#44403c"
    """The Stop button (filled with `text`) under the pointer."""
    scrollbar: str = "#d6d1c4"
    scrollbar_hover: str = "#bdb6a6"
    chart_bar: str = "#c96442"
    chart_bar_flagged: str = "#a8a29e"
    """A day's bar whose cost is partly unknown."""
    chart_axis: str = "#e7e2d8"
    chart_label: str = "#716a65"
    meter_warn: str = "#d97706"
    meter_full: str = "#dc2626"
    """The context meter's bar from 70 % and from 90 % of the window (its figures take `warn_text` and `error_text`)."""
    code_style: str = "xcode"
    """The Pygments style of highlighted code (its token colours; the background is `code_background`)."""
    tool_badges: Mapping[ToolCallStatus, Badge] = field(default_factory=lambda: TOOL_BADGES, compare=False)
    risk_badges: Mapping[Risk, Badge] = field(default_factory=lambda: RISK_BADGES, compare=False)
    base_point_size: float = 10.5
    margin: int = 24
    """Horizontal margin of the transcript column."""
    max_column_width: int = 820
    """The reading column does not grow wider than this, however wide the window."""
    block_spacing: int = 10
    row_spacing: int = 18
    radius: int = 12
    fonts: dict[str, QFont] = field(default_factory=dict, compare=False)

    def color(self, name: str) -> QColor:
        return QColor(getattr(self, name))

    def scaled(self, factor: float) -> Theme:
        """This theme with its text `factor` times as large (the transcript's zoom); itself at 1."""
        if abs(factor - 1.0) < 1e-3:
            return self
        return replace(self, base_point_size=round(self.base_point_size * factor, 2), fonts={})

    def font(self, kind: str = "body") -> QFont:
        """`body`, `small`, `small_bold`, `label` (bold body) or `mono`; created once per theme."""
        if kind not in self.fonts:
            size = self.base_point_size
            self.fonts[kind] = {
                "body": lambda: _font(size),
                "small": lambda: _font(size - 1.5),
                "small_bold": lambda: _font(size - 1.5, bold=True),
                "label": lambda: _font(size, bold=True),
                "mono": lambda: _font(size - 1, fixed=True),
            }[kind]()
        return self.fonts[kind]


def color_names() -> list[str]:
    """The names of every colour a theme defines (the `#rrggbb` fields)."""
    return [item.name for item in fields(Theme) if isinstance(item.default, str) and item.default.startswith("#")]


SIDEBAR_WIDTH = 280
"""The conversation list's width until the user drags it (the window's first frame and its splitter)."""

LIGHT_THEME = Theme()
DARK_THEME = Theme(
    name="dark",
    dark=True,
    background="#262624",
    text="#ece9e1",
    muted="#a8a29e",
    faint="#78716c",
    border="#3a3935",
    input_border="#4a4843",
    user_bubble="#3a3935",
    card="#30302d",
    code_background="#1c1b19",
    inline_code="#f0a37e",
    quote_bar="#57534e",
    accent="#d97757",
    accent_hover="#e08a6d",
    accent_disabled="#6b4536",
    on_accent="#1c1b19",
    on_accent_disabled="#a8a29e",
    accent_soft="#4a2e22",
    accent_soft_border="#6b4536",
    focus_border="#b8694d",
    error_text="#fca5a5",
    error_background="#3f1f1f",
    error_border="#7f2d2d",
    ok_text="#86efac",
    ok_background="#14331f",
    ok_border="#1f5131",
    warn_text="#fcd34d",
    warn_background="#3a2c10",
    warn_border="#5c4516",
    info_text="#93c5fd",
    info_strong="#dbeafe",
    info_background="#172b4d",
    info_border="#24457a",
    sidebar_background="#1f1e1c",
    row_hover="#34332f",
    row_selected="#403e39",
    highlight="#6b3f2c",
    diff_added="#86efac",
    diff_removed="#fca5a5",
    button="#30302d",
    button_hover="#3a3935",
    button_pressed="#45433f",
    button_border="#4a4843",
    disabled_background="#2c2b28",
    stop_hover="#d6d3d1",
    scrollbar="#4a4843",
    scrollbar_hover="#605d57",
    chart_bar="#d97757",
    chart_bar_flagged="#78716c",
    chart_axis="#4a4843",
    chart_label="#a8a29e",
    meter_warn="#f59e0b",
    meter_full="#f87171",
    code_style="github-dark",
    tool_badges=DARK_TOOL_BADGES,
    risk_badges=DARK_RISK_BADGES,
)
THEMES: dict[str, Theme] = {"light": LIGHT_THEME, "dark": DARK_THEME}
DEFAULT_THEME = LIGHT_THEME
"""The theme widgets are built with until the theme switch (qt/common/theme_switch.py) says otherwise."""
