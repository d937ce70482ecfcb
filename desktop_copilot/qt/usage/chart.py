"""A small bar chart of one value per day, painted with QPainter: a bar per day, the highest value on the left,
the first and last day under the axis, a marked bar where part of the value is unknown, a tooltip per bar."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from PySide6.QtCore import QCoreApplication, QDate, QEvent, QLocale, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QToolTip, QWidget

from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme

COLOURS = {"chart_bar": "accent", "chart_bar_flagged": "muted", "chart_axis": "border", "chart_label": "muted"}
"""The theme colours the chart paints with, and the existing theme colour each falls back to."""


def theme_colour(theme: Theme, name: str) -> QColor:
    """`name` from the theme, or the colour it falls back to while the theme has no such name."""
    return QColor(getattr(theme, name, None) or getattr(theme, COLOURS[name]))


@dataclass(frozen=True, slots=True)
class ChartBar:
    day: date
    value: float
    label: str
    """What the bar's tooltip says about the value ("$0.42", "12.3k tokens")."""
    flagged: bool = False
    """Part of the value is unknown (replies without a price): the bar is painted in the flagged colour."""


class DailyChart(QWidget):
    """Bars for consecutive days, scaled to the highest; an empty chart says so."""

    PADDING_LEFT = 56
    PADDING_RIGHT = 8
    PADDING_TOP = 10
    PADDING_BOTTOM = 22
    GAP = 0.25
    """The space between bars, as a share of a bar's slot."""

    def __init__(self, parent: QWidget | None = None, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent)
        self.theme = theme
        self.bars: list[ChartBar] = []
        self.top_label = ""
        self.setMinimumHeight(140)
        self.setAccessibleName(self.tr("Usage per day"))

    def sizeHint(self) -> QSize:
        return QSize(560, 170)

    def set_bars(self, bars: list[ChartBar], top_label: str = "") -> None:
        """Show `bars` (oldest first); `top_label` names the highest value at the top of the axis."""
        self.bars = list(bars)
        self.top_label = top_label
        self.update()

    def plot_area(self) -> QRectF:
        return QRectF(self.PADDING_LEFT, self.PADDING_TOP, max(self.width() - self.PADDING_LEFT - self.PADDING_RIGHT, 1),
                      max(self.height() - self.PADDING_TOP - self.PADDING_BOTTOM, 1))

    def bar_rect(self, index: int) -> QRectF:
        """Where bar `index` is painted (an empty rectangle on the axis for a zero value)."""
        area = self.plot_area()
        slot = area.width() / max(len(self.bars), 1)
        highest = max((bar.value for bar in self.bars), default=0.0)
        value = self.bars[index].value
        height = max(area.height() * value / highest, 1.0) if highest > 0 and value > 0 else 0.0  # a tiny value stays visible
        left = area.left() + index * slot + slot * self.GAP / 2
        return QRectF(left, area.bottom() - height, slot * (1 - self.GAP), height)

    def bar_at(self, x: float) -> int | None:
        area = self.plot_area()
        if not self.bars or not area.left() <= x < area.right():
            return None
        return min(int((x - area.left()) / (area.width() / len(self.bars))), len(self.bars) - 1)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        area = self.plot_area()
        painter.setFont(self.theme.font("small"))
        if not any(bar.value > 0 for bar in self.bars):
            painter.setPen(theme_colour(self.theme, "chart_label"))
            painter.drawText(area, int(Qt.AlignmentFlag.AlignCenter), self.tr("Nothing used in these days"))
        for index, bar in enumerate(self.bars):
            rect = self.bar_rect(index)
            if rect.height() > 0:
                painter.fillRect(rect, theme_colour(self.theme, "chart_bar_flagged" if bar.flagged else "chart_bar"))
        painter.setPen(theme_colour(self.theme, "chart_axis"))
        painter.drawLine(QPointF(area.left(), area.bottom() + 0.5), QPointF(area.right(), area.bottom() + 0.5))
        painter.setPen(theme_colour(self.theme, "chart_label"))
        if self.top_label:
            painter.drawText(QRectF(0, area.top() - 4, self.PADDING_LEFT - 6, 18),
                             int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop), self.top_label)
        if self.bars:
            below = QRectF(area.left(), area.bottom() + 4, area.width(), self.PADDING_BOTTOM - 4)
            painter.drawText(below, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop), _day(self.bars[0].day))
            painter.drawText(below, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop), _day(self.bars[-1].day))
        painter.end()

    def tooltip_at(self, x: float) -> str:
        index = self.bar_at(x)
        if index is None:
            return ""
        bar = self.bars[index]
        text = f"{bar.day.isoformat()}: {bar.label}"
        return text + ("\n" + self.tr("Some replies have no known price.") if bar.flagged else "")

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self.tooltip_at(event.pos().x())
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)


def _day(day: date) -> str:
    """"Mar 2" (month and day in the interface language: QLocale's default)."""
    return QLocale().toString(QDate(day.year, day.month, day.day), QCoreApplication.translate("UsageChart", "MMM d", "a day on the chart (QDate format)"))
