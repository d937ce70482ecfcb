"""The Prices page: the user's own model prices (model id and four prices in USD per million tokens, rows added and
removed), which win over the built-in table shown below them; applied on OK/Apply as `Settings.model_prices`."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.usage.pricing import PRICES_TAKEN, SHIPPED_PRICES, ModelPrice, Rates
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.qt.common.plain_label import PlainLabel

PRICE_FIELDS = ("input", "output", "cache_read", "cache_write")
MAX_PRICE = 100_000.0
"""No model costs this much per million tokens: a bigger number is a typing mistake."""


def price_text(value: float | None) -> str:
    """3 -> "3", 0.075 -> "0.075", None -> "" (a table cell)."""
    return "" if value is None else f"{value:.6f}".rstrip("0").rstrip(".")


def parse_price(text: str) -> float | None:
    """A typed price: "", "3", "0.30", "$0.30", "0,30"; None when empty. ValueError for anything else."""
    cleaned = text.strip().removeprefix("$").strip().replace(",", ".")
    if not cleaned:
        return None
    value = float(cleaned)
    if math.isnan(value) or not 0 <= value <= MAX_PRICE:
        raise ValueError(cleaned)
    return value


def _group(title: str, hint: str, body: list[QWidget | QHBoxLayout]) -> QFrame:
    frame = QFrame(objectName="settingsGroup")
    column = QVBoxLayout(frame)
    column.setContentsMargins(16, 14, 16, 14)
    column.setSpacing(8)
    column.addWidget(PlainLabel(title, objectName="groupTitle"))
    column.addWidget(PlainLabel(hint, objectName="hint", wordWrap=True))
    for part in body:
        if isinstance(part, QHBoxLayout):
            column.addLayout(part)
        else:
            column.addWidget(part)
    return frame


class PricesPage(QWidget):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.overrides_table = QTableWidget(0, 5, objectName="priceOverrides")
        self.overrides_table.setHorizontalHeaderLabels([self.tr("Model id"), self.tr("Input"), self.tr("Output"),
                                                         self.tr("Cache read"), self.tr("Cache write")])
        self.overrides_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.overrides_table.setMinimumHeight(150)
        self.add_button = QPushButton(self.tr("Add price"), objectName="addPrice")
        self.remove_button = QPushButton(self.tr("Remove"), objectName="removePrice")
        self.remove_button.setToolTip(self.tr("Remove the selected prices: the built-in price (if any) applies again"))
        self.shipped_table = QTableWidget(0, 6, objectName="shippedPrices")
        self.shipped_table.setHorizontalHeaderLabels([self.tr("Model"), self.tr("Input"), self.tr("Output"), self.tr("Cache read"),
                                                       self.tr("Cache write"), self.tr("Long prompts")])
        self.shipped_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.shipped_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.shipped_table.setMinimumHeight(260)
        self.override_button = QPushButton(self.tr("Set my own price"), objectName="overrideShipped")
        self.override_button.setToolTip(self.tr("Copy the selected built-in price into your prices to change it"))
        for table in (self.overrides_table, self.shipped_table):
            table.verticalHeader().setVisible(False)
            table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self._fill_shipped()
        for model, price in sorted(settings.model_prices.items()):
            self.add_override(model, price)
        self._layout()
        self.add_button.clicked.connect(lambda: self.add_override())
        self.remove_button.clicked.connect(self.remove_selected)
        self.override_button.clicked.connect(self.override_selected)

    def _layout(self) -> None:
        own_buttons = QHBoxLayout()
        own_buttons.addWidget(self.add_button)
        own_buttons.addWidget(self.remove_button)
        own_buttons.addStretch(1)
        shipped_buttons = QHBoxLayout()
        shipped_buttons.addWidget(self.override_button)
        shipped_buttons.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addWidget(_group(self.tr("Your prices"), self.tr(
            "USD per million tokens. A price here wins over the built-in one, for the model id and its dated versions "
            "(claude-sonnet-4-5 also prices claude-sonnet-4-5-20250929). An empty cache price charges those tokens as input."),
            [self.overrides_table, own_buttons]))
        column.addWidget(_group(self.tr("Built-in prices"), self.tr(
            "As the providers published them in {date}; prices change, so check yours. Models not listed show "
            "\"price unknown\" until you add them above; local models (Ollama) are free.").format(date=PRICES_TAKEN),
            [self.shipped_table, shipped_buttons]))
        column.addStretch(1)

    def _fill_shipped(self) -> None:
        self.shipped_table.setRowCount(len(SHIPPED_PRICES))
        for row, (model, price) in enumerate(SHIPPED_PRICES.items()):
            cells = [model, *(price_text(_rate(price, name)) for name in PRICE_FIELDS), self._long_prompt_text(price)]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if 0 < column < 5:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.shipped_table.setItem(row, column, item)
        self.shipped_table.resizeColumnsToContents()
        self.shipped_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    def _long_prompt_text(self, price: ModelPrice) -> str:
        tier = price.long_prompt
        if tier is None:
            return ""
        return self.tr("over {tokens}k: {input} in / {output} out").format(
            tokens=price.long_prompt_from // 1000, input=price_text(tier.input), output=price_text(tier.output))

    # --- your prices ------------------------------------------------------------------------

    def add_override(self, model: str = "", price: Rates | None = None) -> int:
        """A row for `model` at `price` (an empty row to fill in without them); returns the row, which gets focus."""
        row = self.overrides_table.rowCount()
        self.overrides_table.insertRow(row)
        cells = [model, *(price_text(_rate(price, name)) if price is not None else "" for name in PRICE_FIELDS)]
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if column:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.overrides_table.setItem(row, column, item)
        self.overrides_table.setCurrentCell(row, 0 if not model else 1)
        return row

    def remove_selected(self) -> None:
        rows = sorted({index.row() for index in self.overrides_table.selectedIndexes()}, reverse=True)
        if not rows and self.overrides_table.currentRow() >= 0:
            rows = [self.overrides_table.currentRow()]
        for row in rows:
            self.overrides_table.removeRow(row)

    def override_selected(self) -> int | None:
        """Copy the selected built-in price into your prices (or select the row that already has that model)."""
        row = self.shipped_table.currentRow()
        if row < 0:
            return None
        model = self.shipped_table.item(row, 0).text()
        for existing in range(self.overrides_table.rowCount()):
            if self._cell(existing, 0).strip().lower() == model:
                self.overrides_table.setCurrentCell(existing, 1)
                return existing
        return self.add_override(model, SHIPPED_PRICES[model])

    def _cell(self, row: int, column: int) -> str:
        item = self.overrides_table.item(row, column)
        return item.text() if item is not None else ""

    def _read(self) -> tuple[dict[str, ModelPrice], str | None]:
        """The prices as typed, and the first problem (None: all rows are good). Empty rows are left out."""
        prices: dict[str, ModelPrice] = {}
        for row in range(self.overrides_table.rowCount()):
            model = self._cell(row, 0).strip()
            texts = [self._cell(row, column) for column in range(1, 5)]
            if not model and not any(t.strip() for t in texts):
                continue
            if not model:
                return prices, self.tr("Row {row} of your prices has no model id.").format(row=row + 1)
            if model.lower() in prices:
                return prices, self.tr("{model} has two prices; keep one.").format(model=model)
            values = {}
            for name, text in zip(PRICE_FIELDS, texts):
                try:
                    values[name] = parse_price(text)
                except ValueError:
                    return prices, self.tr("The price \"{text}\" of {model} is not a number of dollars from 0 to 100,000.").format(
                        text=text.strip()[:20], model=model)
            if values["input"] is None or values["output"] is None:
                return prices, self.tr("Give {model} an input and an output price.").format(model=model)
            prices[model.lower()] = ModelPrice(**values)
        return prices, None

    def problem(self) -> str | None:
        """What keeps your prices from being saved, in words (None: nothing)."""
        return self._read()[1]

    def edits(self) -> dict:
        """The field this page edits: `model_prices` (the rows that are good; see `problem` for the others)."""
        return {"model_prices": self._read()[0]}


def _rate(price: Rates, name: str) -> float | None:
    return getattr(price, name)
