"""The Usage window on a real database: the period tiles, the bar per day (painted pixels checked), the table per model
with "price unknown" and "free (local)", the user's prices, refresh and one window per parent."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Usage
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.usage.pricing import ModelPrice
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.config.settings import CustomProvider, Settings
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.usage.chart import ChartBar, DailyChart, theme_colour
from desktop_copilot.qt.usage.usage_view import CHART_DAYS, UsageView, open_usage_view


def noon(days_ago: int) -> float:
    return datetime.combine(date.today() - timedelta(days=days_ago), time(12)).timestamp()


def reply(provider: str, model: str, days_ago: int, **usage: int) -> Message:
    message = Message.assistant(model, provider)
    message.usage, message.status, message.created_at = Usage(**usage), MessageStatus.COMPLETED, noon(days_ago)
    return message


@pytest.fixture
def runtime() -> Runtime:
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
    runtime.settings = Settings(custom_providers=[CustomProvider(id="lab", label="Lab server", base_url="http://127.0.0.1:9")])
    return runtime


@pytest.fixture
def store(runtime):
    store = Store(runtime.paths.database)
    conversation = Conversation()
    store.save_conversation(conversation)
    for seq, message in enumerate([
        Message.user("hello"),
        reply("anthropic", "claude-sonnet-4-5-20250929", 0, input_tokens=100_000, output_tokens=180_000),  # $0.30 + $2.70
        reply("lab", "mystery-model", 0, input_tokens=2_000, output_tokens=300),  # no price
        reply("openai", "gpt-4.1", 3, input_tokens=1_000_000, output_tokens=0, cache_read_tokens=500_000),  # $1.00 + $0.25
        reply("ollama", "llama3.2", 10, input_tokens=40_000, output_tokens=4_000),  # free
        reply("openai", "gpt-4o", 100, input_tokens=2_000_000, output_tokens=0),  # $5, outside 30 days
    ]):
        store.save_message(conversation.id, seq, message)
    yield store
    store.close()


@pytest.fixture
def view(qtbot, runtime, store) -> UsageView:
    parent = QWidget()
    qtbot.addWidget(parent)
    view = open_usage_view(parent, runtime, store)
    view.resize(900, 700)
    qtbot.waitExposed(view)
    yield view  # the parent lives as long as the test


def table_rows(view: UsageView) -> list[list[str]]:
    table = view.table
    return [[table.item(row, column).text() for column in range(table.columnCount())] for row in range(table.rowCount())]


def test_tiles_show_each_period_with_unknown_prices_said(view):
    tiles = {period.value: (tile.cost.text(), tile.tokens.text()) for period, tile in view.tiles.items()}
    assert tiles == {
        "today": ("$3.00 + unknown", "102k in · 180.3k out"),
        "7 days": ("$4.25 + unknown", "1.1M in · 180.3k out"),
        "30 days": ("$4.25 + unknown", "1.1M in · 184.3k out"),
        "all": ("$9.25 + unknown", "3.1M in · 184.3k out"),
    }
    assert "1 of 2 replies" in view.tiles[next(iter(view.tiles))].toolTip()


def test_the_table_per_model_marks_unknown_and_local_prices(view):
    assert table_rows(view) == [  # the last 30 days, most expensive first
        ["claude-sonnet-4-5-20250929", "Anthropic", "100,000", "0", "0", "180,000", "0", "$3.00"],
        ["gpt-4.1", "OpenAI", "500,000", "500,000", "0", "0", "0", "$1.25"],
        ["llama3.2", "Ollama", "40,000", "0", "0", "4,000", "0", "free (local)"],
        ["mystery-model", "Lab server", "2,000", "0", "0", "300", "0", "price unknown"],
    ]
    assert "Settings ▸ Prices" in view.table.item(3, 7).toolTip()
    view.table_period.setCurrentIndex(view.table_period.findData("all"))
    assert [row[0] for row in table_rows(view)][:2] == ["gpt-4o", "claude-sonnet-4-5-20250929"]
    view.table_period.setCurrentIndex(view.table_period.findData("today"))
    assert [row[0] for row in table_rows(view)] == ["claude-sonnet-4-5-20250929", "mystery-model"]


def test_your_prices_price_the_unknown_model(view, runtime):
    runtime.settings = runtime.settings.model_copy(update={"model_prices": {"mystery-model": ModelPrice(input=1000, output=1000)}})
    view.refresh()
    assert view.tiles[next(iter(view.tiles))].cost.text() == "$5.30"  # 3.00 + 2,300 tokens at $1,000 per million
    assert table_rows(view)[-1][-1] != "price unknown"


def _pixel(chart: DailyChart, index: int, from_top: float) -> QColor:
    """The colour painted inside bar `index`, `from_top` of the way down from the plot's top."""
    image = chart.grab().toImage()
    rect, area = chart.bar_rect(index), chart.plot_area()
    return image.pixelColor(int(rect.center().x()), int(area.top() + area.height() * from_top))


def test_the_chart_paints_a_bar_per_day_scaled_to_the_highest(view):
    chart = view.chart
    bars = chart.bars
    assert len(bars) == CHART_DAYS and bars[-1].day == date.today() and bars[0].day == date.today() - timedelta(days=CHART_DAYS - 1)
    assert [round(bar.value, 2) for bar in bars if bar.value] == [1.25, 3.0]
    accent, flagged = theme_colour(DEFAULT_THEME, "chart_bar"), theme_colour(DEFAULT_THEME, "chart_bar_flagged")
    assert bars[-1].flagged and not bars[-4].flagged  # today has a reply without a price
    assert view.chart_note.isVisible()
    assert _pixel(chart, CHART_DAYS - 1, 0.05) == flagged  # today's bar is the highest: it reaches the top
    assert _pixel(chart, CHART_DAYS - 4, 0.95) == accent  # three days ago: $1.25, low but painted
    assert _pixel(chart, CHART_DAYS - 4, 0.4) not in (accent, flagged)  # ...and only 1.25/3 of the height
    assert _pixel(chart, CHART_DAYS - 2, 0.95) not in (accent, flagged)  # yesterday: nothing
    assert "Some replies have no known price" in chart.tooltip_at(chart.bar_rect(CHART_DAYS - 1).center().x())
    assert chart.tooltip_at(chart.bar_rect(CHART_DAYS - 4).center().x()).endswith(": $1.25")


def test_the_chart_can_show_tokens_and_local_use_appears_there(view):
    chart = view.chart
    assert chart.bars[-11].value == 0  # the local model cost nothing
    view.chart_mode.setCurrentIndex(view.chart_mode.findData("tokens"))
    assert chart.bars[-11].value == 44_000 and chart.bars[-1].value == 282_300
    assert _pixel(chart, CHART_DAYS - 11, 0.97) == theme_colour(DEFAULT_THEME, "chart_bar")
    assert chart.top_label == "1M"
    assert not view.chart_note.isVisible()  # no bar is flagged when tokens are counted


def test_an_empty_chart_says_so(qtbot):
    chart = DailyChart()
    qtbot.addWidget(chart)
    chart.resize(400, 160)
    chart.set_bars([ChartBar(date.today(), 0.0, "$0.00")])
    image = chart.grab().toImage()
    assert image.pixelColor(200, 60) != theme_colour(DEFAULT_THEME, "chart_bar")
    assert chart.bar_rect(0).height() == 0 and chart.bar_at(-5) is None


def test_refresh_reads_new_replies_and_opening_again_reuses_the_window(qtbot, view, runtime, store):
    conversation = Conversation()
    store.save_conversation(conversation)
    store.save_message(conversation.id, 0, reply("deepseek", "deepseek-chat", 0, input_tokens=1_000_000, output_tokens=0))
    again = open_usage_view(view.parentWidget(), runtime, store)
    assert again is view
    assert view.tiles[next(iter(view.tiles))].cost.text() == "$3.28 + unknown"


def test_without_a_store_the_window_says_there_is_nothing(qtbot, runtime):
    parent = QWidget()
    qtbot.addWidget(parent)
    view = open_usage_view(parent, runtime, None)
    assert view.table.rowCount() == 0 and "No conversations are stored" in view.note.text()
    assert all(tile.cost.text() == "$0.00" for tile in view.tiles.values())
