"""Settings ▸ Prices: the built-in table, your prices typed into the table (added, changed, removed), the problems
said in words, and what the page hands the dialog to save (a real settings file, read back and used to price)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit

from desktop_copilot.core.conversation.models import Message, Usage
from desktop_copilot.core.usage.pricing import PRICES_TAKEN, SHIPPED_PRICES, ModelPrice, cost_of, price_table
from desktop_copilot.core.config.settings import Settings, SettingsFile
from desktop_copilot.qt.settings.prices_page import PricesPage, parse_price, price_text


@pytest.fixture
def page(qtbot) -> PricesPage:
    page = PricesPage(Settings(model_prices={"my-model": ModelPrice(input=1.5, output=6, cache_read=0.15)}))
    qtbot.addWidget(page)
    page.resize(800, 900)
    page.show()
    qtbot.waitExposed(page)
    return page


def cells(table, row: int) -> list[str]:
    return [table.item(row, column).text() for column in range(table.columnCount())]


def type_into(qtbot, table, row: int, column: int, text: str) -> None:
    """Edit a cell as a user does: open its editor, type, press Enter."""
    table.setCurrentCell(row, column)
    table.editItem(table.item(row, column))
    [editor] = [widget for widget in table.viewport().findChildren(QLineEdit) if widget.isVisible()]
    assert editor.text() == table.item(row, column).text()
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: table.item(row, column).text() == text)  # the delegate commits on a queued call


def test_the_built_in_prices_are_listed_with_their_date_and_long_prompt_tiers(page):
    table = page.shipped_table
    assert table.rowCount() == len(SHIPPED_PRICES)
    rows = {cells(table, row)[0]: cells(table, row)[1:] for row in range(table.rowCount())}
    assert rows["claude-sonnet-4-5"] == ["3", "15", "0.3", "3.75", "over 200k: 6 in / 22.5 out"]
    assert rows["gpt-4o-mini"] == ["0.15", "0.6", "0.075", "", ""]  # OpenAI charges nothing apart for cache writes
    assert any(PRICES_TAKEN in label.text() for label in page.findChildren(QLabel))
    assert table.editTriggers() == table.EditTrigger.NoEditTriggers


def test_your_prices_show_what_the_settings_hold(page):
    assert page.overrides_table.rowCount() == 1
    assert cells(page.overrides_table, 0) == ["my-model", "1.5", "6", "0.15", ""]
    assert page.problem() is None
    assert page.edits() == {"model_prices": {"my-model": ModelPrice(input=1.5, output=6, cache_read=0.15)}}


def test_adding_a_price_by_typing_it_and_saving_it(qtbot, page, tmp_path):
    qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    row = page.overrides_table.rowCount() - 1
    type_into(qtbot, page.overrides_table, row, 0, "Lab-Model-7B")
    type_into(qtbot, page.overrides_table, row, 1, "$0.20")
    assert page.problem() == "Give Lab-Model-7B an input and an output price."
    type_into(qtbot, page.overrides_table, row, 2, "0,80")
    assert page.problem() is None
    prices = page.edits()["model_prices"]
    assert prices["lab-model-7b"] == ModelPrice(input=0.2, output=0.8)
    # What the dialog does on OK: the edits over the current settings, saved to the file, read back.
    current = Settings(thinking_enabled=True)
    edited = Settings.model_validate({**current.model_dump(), **page.edits()})
    settings_file = SettingsFile(tmp_path / "settings.json")
    settings_file.save(edited)
    loaded = settings_file.load()
    assert loaded.thinking_enabled and loaded.model_prices == prices
    message = Message.assistant("lab-model-7b", "lab")
    message.usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert cost_of(message) is None
    assert cost_of(message, price_table(loaded.model_prices)).total == pytest.approx(1.0)


@pytest.mark.parametrize(("row_cells", "problem"), [
    (["", "1", "2", "", ""], "Row 2 of your prices has no model id."),
    (["x-model", "1", "lots", "", ""], 'The price "lots" of x-model is not a number of dollars from 0 to 100,000.'),
    (["x-model", "-1", "2", "", ""], 'The price "-1" of x-model is not a number of dollars from 0 to 100,000.'),
    (["x-model", "1", "2", "nan", ""], 'The price "nan" of x-model is not a number of dollars from 0 to 100,000.'),
    (["MY-MODEL", "1", "2", "", ""], "MY-MODEL has two prices; keep one."),
])
def test_problems_are_said_in_words(page, row_cells, problem):
    row = page.add_override()
    for column, text in enumerate(row_cells):
        page.overrides_table.item(row, column).setText(text)
    assert page.problem() == problem
    assert "x-model" not in page.edits()["model_prices"]


def test_an_empty_row_is_ignored_and_rows_can_be_removed(qtbot, page):
    page.add_override()
    assert page.problem() is None and list(page.edits()["model_prices"]) == ["my-model"]
    page.overrides_table.selectRow(0)
    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    assert page.overrides_table.rowCount() == 1 and page.edits() == {"model_prices": {}}


def test_a_built_in_price_can_be_copied_into_your_prices_once(qtbot, page):
    models = list(SHIPPED_PRICES)
    page.shipped_table.setCurrentCell(models.index("deepseek-chat"), 0)
    qtbot.mouseClick(page.override_button, Qt.MouseButton.LeftButton)
    row = page.overrides_table.rowCount() - 1
    assert cells(page.overrides_table, row) == ["deepseek-chat", "0.28", "0.42", "0.028", ""]
    type_into(qtbot, page.overrides_table, row, 2, "0.5")
    assert page.edits()["model_prices"]["deepseek-chat"] == ModelPrice(input=0.28, output=0.5, cache_read=0.028)
    assert page.override_selected() == row  # again: the same row is selected, not a second one
    assert page.overrides_table.rowCount() == 2


def test_price_text_and_parsing():
    assert [price_text(v) for v in (3, 0.075, 22.5, None, 0)] == ["3", "0.075", "22.5", "", "0"]
    assert [parse_price(t) for t in ("", " 3 ", "$0.30", "0,30")] == [None, 3.0, 0.3, 0.3]
    for bad in ("inf", "1e9", "abc", "-0.5"):
        with pytest.raises(ValueError):
            parse_price(bad)
