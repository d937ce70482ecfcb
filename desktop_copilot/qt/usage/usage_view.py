"""The Usage window (View ▸ Usage): tokens and cost today, in 7 and 30 days and in all, a bar per day of the last
30 days, and a table per model with its tokens by kind and cost ("price unknown" where no price is known)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.usage.pricing import PRICES_TAKEN, PriceSource, PriceTable, price_table
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.storage.usage_queries import UsageRow, usage_rows
from desktop_copilot.core.usage.totals import ModelUsage, Period, UsageTotals, per_day, per_model, rows_in, rows_totals
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.common.theme_switch import themed_style_sheet
from desktop_copilot.qt.usage.chart import ChartBar, DailyChart
from desktop_copilot.qt.usage.words import cost_text, format_cost, format_tokens

CHART_DAYS = 30
COLUMNS = ("model", "provider", "input", "cache_read", "cache_write", "output", "reasoning", "cost")


class UsageTile(QFrame):
    """One period's totals: its name, the tokens in and out, and the cost."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="usageTile")
        self.title = PlainLabel(title, objectName="tileTitle")
        self.tokens = PlainLabel(objectName="tileTokens")
        self.cost = PlainLabel(objectName="tileCost")
        column = QVBoxLayout(self)
        column.setContentsMargins(14, 10, 14, 10)
        column.setSpacing(2)
        for label in (self.title, self.cost, self.tokens):
            column.addWidget(label)

    def show_totals(self, totals: UsageTotals) -> None:
        counts = totals.counts
        self.tokens.setText(self.tr("{input} in · {output} out").format(input=format_tokens(counts.input), output=format_tokens(counts.output)))
        self.cost.setText(cost_text(totals))
        self.setToolTip(self.tr("{count} of {replies} replies have no known price: the cost shown leaves them out.").format(
            count=totals.unpriced, replies=totals.replies) if totals.some_unpriced else "")


class UsageView(QDialog):
    """Reads the database once per `refresh` (one query) and shows it three ways."""

    def __init__(self, runtime: Runtime, store: Store | None, parent: QWidget | None = None, *,
                 today: Callable[[], date] = date.today, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent, objectName="usageView")
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.setWindowTitle(self.tr("Usage"))
        self.resize(820, 640)
        self.runtime, self.store, self.today, self.theme = runtime, store, today, theme
        self.rows: list[UsageRow] = []
        self.tiles = {period: UsageTile(title) for period, title in self._period_titles().items()}
        self.chart = DailyChart(theme=theme)
        self.chart_mode = QComboBox(objectName="chartMode")
        self.chart_mode.addItem(self.tr("Cost"), "cost")
        self.chart_mode.addItem(self.tr("Tokens"), "tokens")
        self.table_period = QComboBox(objectName="tablePeriod")
        for period, title in self._period_titles().items():
            self.table_period.addItem(title, period)
        self.table_period.setCurrentIndex(list(Period).index(Period.MONTH))
        self.table = QTableWidget(0, len(COLUMNS), objectName="modelTable")
        self.table.setHorizontalHeaderLabels([self.tr("Model"), self.tr("Provider"), self.tr("Input"), self.tr("Cache read"),
                                              self.tr("Cache write"), self.tr("Output"), self.tr("Thinking"), self.tr("Cost")])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.note = PlainLabel(objectName="usageNote", wordWrap=True)
        self.chart_note = PlainLabel(self.tr("Grey bars: days with replies from models without a known price (their cost is left out)."),
                                     objectName="usageNote", wordWrap=True)
        self.refresh_button = QPushButton(self.tr("Refresh"), objectName="refreshUsage")
        self._layout()
        self.setStyleSheet(_style(theme))
        self.chart_mode.currentIndexChanged.connect(lambda _i: self._show_chart())
        self.table_period.currentIndexChanged.connect(lambda _i: self._show_table())
        self.refresh_button.clicked.connect(self.refresh)
        self.refresh()

    def _period_titles(self) -> dict[Period, str]:
        return {Period.TODAY: self.tr("Today"), Period.WEEK: self.tr("Last 7 days"), Period.MONTH: self.tr("Last 30 days"),
                Period.ALL: self.tr("All time")}

    def _layout(self) -> None:
        tiles = QGridLayout()
        tiles.setSpacing(10)
        for column, tile in enumerate(self.tiles.values()):
            tiles.addWidget(tile, 0, column)
        chart_head = QHBoxLayout()
        chart_head.addWidget(PlainLabel(self.tr("Per day, last {days} days").format(days=CHART_DAYS), objectName="sectionTitle"), 1)
        chart_head.addWidget(self.chart_mode)
        table_head = QHBoxLayout()
        table_head.addWidget(PlainLabel(self.tr("Per model"), objectName="sectionTitle"), 1)
        table_head.addWidget(self.table_period)
        foot = QHBoxLayout()
        foot.addWidget(self.note, 1)
        foot.addWidget(self.refresh_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(20, 16, 20, 16)
        column.setSpacing(10)
        column.addLayout(tiles)
        column.addLayout(chart_head)
        column.addWidget(self.chart)
        column.addWidget(self.chart_note)
        column.addLayout(table_head)
        column.addWidget(self.table, 1)
        column.addLayout(foot)

    @property
    def prices(self) -> PriceTable:
        settings = self.runtime.settings
        return price_table(settings.model_prices if settings is not None else None)

    def refresh(self) -> None:
        """Read the stored replies again (one query) and show them."""
        table = self.prices
        self.rows = usage_rows(self.store.connection, prompt_bands=table.prompt_bands) if self.store is not None else []
        today = self.today()
        for period, tile in self.tiles.items():
            tile.show_totals(rows_totals(rows_in(self.rows, period, today), table))
        self._show_chart()
        self._show_table()
        self.note.setText(self.tr("Costs use the built-in prices of {date} and yours from Settings ▸ Prices; replies replaced by "
                                  "an edit or a regeneration count too. Local models are free.").format(date=PRICES_TAKEN)
                          if self.store is not None else self.tr("No conversations are stored, so there is no usage to show."))

    # --- the chart -----------------------------------------------------------------------

    def chart_bars(self) -> list[ChartBar]:
        """One bar per day of the last `CHART_DAYS` days, oldest first (days without replies are 0)."""
        today = self.today()
        days = per_day(rows_in(self.rows, Period.MONTH, today), self.prices)
        by_cost = self.chart_mode.currentData() == "cost"
        bars = []
        for offset in range(CHART_DAYS - 1, -1, -1):
            day = today - timedelta(days=offset)
            totals = days.get(day, UsageTotals())
            if by_cost:
                bars.append(ChartBar(day, totals.cost, cost_text(totals), flagged=totals.some_unpriced))
            else:
                bars.append(ChartBar(day, float(totals.counts.total), self.tr("{count} tokens").format(count=f"{totals.counts.total:,}")))
        return bars

    def _show_chart(self) -> None:
        bars = self.chart_bars()
        highest = max((bar.value for bar in bars), default=0.0)
        by_cost = self.chart_mode.currentData() == "cost"
        top = (format_cost(highest) if by_cost else format_tokens(int(highest))) if highest > 0 else ""
        self.chart.set_bars(bars, top)
        self.chart_note.setVisible(any(bar.flagged for bar in bars))

    # --- the table -----------------------------------------------------------------------

    def model_usage(self) -> list[ModelUsage]:
        period = Period(self.table_period.currentData())
        return per_model(rows_in(self.rows, period, self.today()), self.prices)

    def _show_table(self) -> None:
        models = self.model_usage()
        self.table.setRowCount(len(models))
        for row, usage in enumerate(models):
            counts = usage.totals.counts
            values = [usage.model or self.tr("(unknown model)"), self._provider_label(usage.provider), counts.fresh_input,
                      counts.cache_read, counts.cache_write, counts.output, counts.reasoning, self._cost_cell(usage)]
            for column, value in enumerate(values):
                item = QTableWidgetItem(f"{value:,}" if isinstance(value, int) else value)
                if isinstance(value, int) or column == len(COLUMNS) - 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == len(COLUMNS) - 1 and usage.price_source is None:
                    item.setToolTip(self.tr("No price is known for this model. Add one in Settings ▸ Prices."))
                elif column == len(COLUMNS) - 1 and usage.price_source is PriceSource.OVERRIDE:
                    item.setToolTip(self.tr("Priced with your price from Settings ▸ Prices."))
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    def _cost_cell(self, usage: ModelUsage) -> str:
        if usage.price_source is None and usage.totals.replies:
            return self.tr("price unknown")
        return cost_text(usage.totals)

    def _provider_label(self, provider_id: str) -> str:
        if provider_id in PROVIDERS:
            return PROVIDERS[provider_id].label
        settings = self.runtime.settings
        for custom in settings.custom_providers if settings is not None else []:
            if custom.id == provider_id:
                return custom.label
        return provider_id


@themed_style_sheet
def _style(theme: Theme) -> str:
    return f"""
        QFrame#usageTile {{ background: {theme.card}; border: 1px solid {theme.border}; border-radius: 10px; }}
        QLabel#tileTitle {{ color: {theme.muted}; }}
        QLabel#tileCost {{ font-size: 16pt; font-weight: 600; color: {theme.text}; }}
        QLabel#tileTokens {{ color: {theme.muted}; }}
        QLabel#sectionTitle {{ font-weight: 600; color: {theme.text}; }}
        QLabel#usageNote {{ color: {theme.muted}; }}
    """


def open_usage_view(parent_window: QWidget, runtime: Runtime, store: Store | None) -> UsageView:
    """Show the Usage window of `parent_window` (one per window: opening it again refreshes and raises it)."""
    view = parent_window.findChild(UsageView)
    if view is None:
        view = UsageView(runtime, store, parent_window)
    else:
        view.refresh()
    view.show()
    view.raise_()
    view.activateWindow()
    return view
