"""The usage words of the window: the conversation's line ("12.3k in · 1.2k out · $0.04") and tooltip, one reply's
line and tooltip, and the totals of a conversation held in memory or opened lazily from a real database."""

from __future__ import annotations

import pytest

from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Usage
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.usage.pricing import ModelPrice, TokenCounts
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.usage.totals import UsageTotals, conversation_totals
from desktop_copilot.qt.usage.words import format_cost, format_tokens
from desktop_copilot.qt.window.usage_display import (
    format_usage,
    message_usage_line,
    message_usage_tooltip,
    prices_of,
    session_totals,
    usage_tooltip,
)


def reply(provider: str | None, model: str, **usage: int) -> Message:
    message = Message.assistant(model, provider)
    message.usage, message.status = Usage(**usage), MessageStatus.COMPLETED
    return message


def test_numbers_are_short():
    assert [format_tokens(n) for n in (0, 999, 1000, 12_345, 999_949, 999_950, 1_250_000, 3_000_000)] == \
        ["0", "999", "1k", "12.3k", "999.9k", "1M", "1.2M", "3M"]
    assert [format_cost(c) for c in (0, 0.0031, 0.04, 12.345, 1234.5)] == ["$0.00", "$0.0031", "$0.04", "$12.35", "$1,234"]
    assert [format_cost(c, precise=True) for c in (0.0144, 0.5, 2.5)] == ["$0.0144", "$0.5000", "$2.50"]


def test_the_conversation_line_says_tokens_and_cost(qapp):
    totals = conversation_totals([reply("anthropic", "claude-haiku-4-5", input_tokens=2_300, output_tokens=1_200, cache_read_tokens=10_000)])
    assert format_usage(totals) == "12.3k in · 1.2k out · $0.0093"  # 2,300 × $1 + 10,000 × $0.10 + 1,200 × $5 per million
    assert format_usage(UsageTotals()) == "No tokens used yet"
    counts = TokenCounts(fresh_input=1000, output=100)
    assert format_usage(UsageTotals(counts, 0.0, 2, unpriced=2)) == "1k in · 100 out · cost unknown"
    assert format_usage(UsageTotals(counts, 0.04, 2, unpriced=1)) == "1k in · 100 out · $0.04 + unknown"
    assert format_usage(UsageTotals(counts, 0.0, 1, free=1)) == "1k in · 100 out · free (local)"


def test_the_conversation_tooltip_lists_every_kind(qapp):
    totals = conversation_totals([reply("openai", "o4-mini", input_tokens=5_000, output_tokens=2_000, cache_read_tokens=3_000,
                                        reasoning_tokens=1_500), reply("lab", "mystery", input_tokens=10, output_tokens=1)])
    assert usage_tooltip(totals).splitlines() == [
        "Input: 5,010 tokens", "  read from cache: 3,000", "Output: 2,001 tokens", "  thinking: 1,500",
        f"Cost: {format_cost((2_000 * 1.10 + 3_000 * 0.275 + 2_000 * 4.40) / 1e6)} + unknown",
        "1 of 2 replies are from models without a known price; add their prices in Settings ▸ Prices.",
    ]


def test_one_replys_line_and_tooltip(qapp):
    message = reply("anthropic", "claude-sonnet-4-5-20250929", input_tokens=1_234, output_tokens=567, cache_read_tokens=1_000,
                    cache_write_tokens=500)
    assert message_usage_line(message) == "2,734 in (1,500 cached) · 567 out · $0.0144"  # 1,234 × $3 + 1,000 × $0.30 + 500 × $3.75 + 567 × $15
    tooltip = message_usage_tooltip(message).splitlines()
    assert tooltip[:4] == ["Input: 2,734 tokens", "  read from cache: 1,000", "  written to cache: 500", "Output: 567 tokens"]
    assert tooltip[-1].startswith("Priced as claude-sonnet-4-5 (prices of ")
    thinking = reply("gemini", "gemini-2.5-flash", input_tokens=100, output_tokens=900, reasoning_tokens=800)
    assert message_usage_line(thinking) == "100 in · 900 out (800 thinking) · $0.0023"
    unknown = reply("lab", "mystery", input_tokens=5, output_tokens=5)
    assert message_usage_line(unknown).endswith("· price unknown")
    assert message_usage_tooltip(unknown).splitlines()[-1] == "No price is known for mystery; add one in Settings ▸ Prices."
    local = reply("ollama", "llama3.2", input_tokens=5, output_tokens=5)
    assert message_usage_line(local).endswith("· free (local)")
    assert message_usage_line(Message.user("hi")) == ""
    assert message_usage_tooltip(Message.user("hi")) == "No token usage was reported for this reply."


@pytest.fixture
def runtime() -> Runtime:
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
    runtime.settings = Settings(model_prices={"mystery": ModelPrice(input=1_000, output=0)})
    return runtime


def test_session_totals_held_or_read_lazily_from_the_database(qapp, runtime):
    store = Store(runtime.paths.database)
    try:
        conversation = Conversation()
        store.save_conversation(conversation)
        messages = [Message.user("q"), reply("anthropic", "claude-haiku-4-5", input_tokens=1_000_000, output_tokens=0),
                    reply("lab", "mystery", input_tokens=1_000, output_tokens=0)]
        for seq, message in enumerate(messages):
            store.save_message(conversation.id, seq, message)
        assert prices_of(runtime).lookup("lab", "mystery").price.input == 1_000
        held = session_totals(ChatSession(runtime, conversation.model_copy(update={"messages": messages}), store))
        lazy_conversation = store.load_conversation_header(conversation.id)
        lazy_conversation.messages = messages[-1:]  # only the tail is held, as when a long conversation is opened
        lazy = session_totals(ChatSession(runtime, lazy_conversation, store, history_loaded=False))
        assert held == lazy
        assert lazy.cost == pytest.approx(1.0 + 1.0) and lazy.unpriced == 0 and lazy.replies == 2
    finally:
        store.close()
