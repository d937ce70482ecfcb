"""Colours, fonts and spacing of the chat UI in one place (a light, Claude-Desktop-like palette)."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QFont, QFontDatabase

from desktop_copilot.core.models import ToolCallStatus
from desktop_copilot.core.tools.base import Risk


@dataclass(frozen=True, slots=True)
class Badge:
    text: str
    foreground: str
    background: str


TOOL_BADGES: dict[ToolCallStatus, Badge] = {
    ToolCallStatus.PENDING: Badge("Pending", "#57534e", "#e7e5e4"),
    ToolCallStatus.AWAITING_APPROVAL: Badge("Needs approval", "#9a3412", "#ffedd5"),
    ToolCallStatus.RUNNING: Badge("Running", "#1d4ed8", "#dbeafe"),
    ToolCallStatus.DONE: Badge("Done", "#15803d", "#dcfce7"),
    ToolCallStatus.ERROR: Badge("Error", "#b91c1c", "#fee2e2"),
    ToolCallStatus.CANCELLED: Badge("Cancelled", "#a16207", "#fef3c7"),
}

_AMBER = ("#92400e", "#fde68a")
RISK_BADGES: dict[Risk, Badge] = {
    Risk.DESTRUCTIVE: Badge(Risk.DESTRUCTIVE.label, "#ffffff", "#b91c1c"),
    Risk.WRITES: Badge(Risk.WRITES.label, *_AMBER),
    Risk.OPEN_WORLD: Badge(Risk.OPEN_WORLD.label, *_AMBER),
    Risk.UNKNOWN: Badge(Risk.UNKNOWN.label, *_AMBER),
    Risk.READ_ONLY: Badge(Risk.READ_ONLY.label, "#15803d", "#dcfce7"),
}
"""The pill an approval card shows for a tool's risk: destructive red, other side effects amber."""


def _font(point_size: float, *, bold: bool = False, fixed: bool = False) -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont) if fixed else QFont()
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font


@dataclass(frozen=True)
class Theme:
    background: str = "#faf9f5"
    text: str = "#1f1e1d"
    muted: str = "#78716c"
    border: str = "#e7e2d8"
    user_bubble: str = "#efece3"
    card: str = "#ffffff"
    code_background: str = "#f3f1eb"
    quote_bar: str = "#d6d1c4"
    accent: str = "#c96442"
    error_text: str = "#991b1b"
    error_background: str = "#fdecec"
    error_border: str = "#f5c2c2"
    sidebar_background: str = "#f3f1ea"
    row_hover: str = "#ebe8df"
    row_selected: str = "#e3dfd3"
    highlight: str = "#f6d9c9"
    """Search-match and jump-to-message highlight."""
    diff_added: str = "#15803d"
    diff_removed: str = "#b91c1c"
    button: str = "#ffffff"
    button_hover: str = "#f3f1eb"
    button_pressed: str = "#e2ddd1"
    button_border: str = "#d6d1c4"
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


DEFAULT_THEME = Theme()
