"""Usage arithmetic: a conversation's totals over providers with different cache accounting, unknown prices
counted apart, and (hypothesis) the invariants of summing per reply, per day and per model."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.conversation.models import Message, Usage
from desktop_copilot.core.usage.pricing import DEFAULT_TABLE, ModelPrice, PriceSource, TokenCounts, billed_counts, cost_of, input_includes_cache, price_table
from desktop_copilot.core.storage.usage_queries import UsageRow
from desktop_copilot.core.usage.totals import (
    Period,
    UsageTotals,
    conversation_totals,
    message_totals,
    per_day,
    per_model,
    rows_in,
    rows_totals,
)

TODAY = date(2026, 3, 10)


def reply(provider: str | None, model: str | None, **usage: int) -> Message:
    message = Message.assistant(model, provider)
    message.usage = Usage(**usage)
    return message


def test_a_conversation_across_providers_sums_each_reply_at_its_own_price():
    messages = [
        Message.user("hi"),
        reply("anthropic", "claude-haiku-4-5-20251001", input_tokens=1_000, output_tokens=500, cache_read_tokens=20_000,
              cache_write_tokens=2_000),
        Message.user("and now DeepSeek"),
        reply("deepseek", "deepseek-chat", input_tokens=30_000, output_tokens=1_000, cache_read_tokens=20_000),
        reply("gemini", "gemini-2.5-flash", input_tokens=10_000, output_tokens=3_000, reasoning_tokens=2_000, cache_read_tokens=4_000),
    ]
    totals = conversation_totals(messages)
    assert totals.counts == TokenCounts(fresh_input=1_000 + 10_000 + 6_000, cache_read=44_000, cache_write=2_000,
                                        output=4_500, reasoning=2_000)
    assert totals.counts.input == 23_000 + 30_000 + 10_000  # the prompts, each cached token once
    haiku = 1_000 * 1 + 20_000 * 0.10 + 2_000 * 1.25 + 500 * 5
    deepseek = 10_000 * 0.28 + 20_000 * 0.028 + 1_000 * 0.42
    gemini = 6_000 * 0.30 + 4_000 * 0.03 + 3_000 * 2.50
    assert totals.cost == pytest.approx((haiku + deepseek + gemini) / 1e6)
    assert (totals.replies, totals.unpriced, totals.free) == (3, 0, 0)
    assert not totals.some_unpriced


def test_unknown_prices_are_counted_apart_never_as_zero():
    messages = [reply("openai", "gpt-4o", input_tokens=1_000_000, output_tokens=0),
                reply("my-endpoint", "mystery", input_tokens=5_000, output_tokens=100)]
    totals = conversation_totals(messages)
    assert totals.cost == pytest.approx(2.50)  # only what is known
    assert totals.unpriced == 1 and totals.some_unpriced and not totals.all_unpriced
    only_unknown = conversation_totals(messages[1:])
    assert only_unknown.all_unpriced and only_unknown.cost == 0 and only_unknown.counts.input == 5_000
    priced = conversation_totals(messages, price_table({"mystery": ModelPrice(input=100, output=100)}))
    assert priced.unpriced == 0 and priced.cost == pytest.approx(2.50 + 5_100 * 100 / 1e6)


def test_local_replies_are_free_and_an_empty_conversation_has_nothing():
    local = conversation_totals([reply("ollama", "llama3.2", input_tokens=900, output_tokens=90)])
    assert local.all_free and local.cost == 0 and local.counts.total == 990
    mixed = conversation_totals([reply("ollama", "llama3.2", input_tokens=900, output_tokens=90),
                                 reply("openai", "gpt-4o-mini", input_tokens=1000, output_tokens=0)])
    assert not mixed.all_free and mixed.free == 1
    empty = conversation_totals([Message.user("hi"), reply("openai", "gpt-4o", input_tokens=0, output_tokens=0)])
    assert empty == UsageTotals() and not empty.all_free and not empty.all_unpriced


def row(day: date, provider: str | None, model: str, replies: int = 1, band: int = 0, **usage: int) -> UsageRow:
    return UsageRow(day, provider, model, band, Usage(**usage), replies)


def test_per_day_and_per_model_and_periods():
    rows = [
        row(TODAY, "anthropic", "claude-sonnet-4-5", input_tokens=1_000_000, output_tokens=0),
        row(TODAY, "my-endpoint", "mystery", input_tokens=10, output_tokens=10),
        row(TODAY - timedelta(days=3), None, "claude-sonnet-4-5", replies=4, input_tokens=0, output_tokens=1_000_000),
        row(TODAY - timedelta(days=20), "ollama", "llama3.2", input_tokens=50, output_tokens=5),
        row(TODAY - timedelta(days=400), "openai", "gpt-4o", input_tokens=1_000_000, output_tokens=0),
    ]
    days = per_day(rows)
    assert list(days) == sorted(days)
    assert days[TODAY].cost == pytest.approx(3.0) and days[TODAY].unpriced == 1
    assert days[TODAY - timedelta(days=3)].cost == pytest.approx(15.0) and days[TODAY - timedelta(days=3)].replies == 4
    models = per_model(rows)
    assert [(m.provider, m.model) for m in models][:2] == [("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-4o")]
    sonnet = models[0]  # None (stored before providers) and "anthropic" are one provider
    assert sonnet.totals.cost == pytest.approx(18.0) and sonnet.totals.replies == 5 and sonnet.price_source is PriceSource.TABLE
    mystery = next(m for m in models if m.model == "mystery")
    assert mystery.price_source is None and mystery.totals.all_unpriced
    assert next(m for m in models if m.model == "llama3.2").price_source is PriceSource.LOCAL
    assert rows_totals(rows_in(rows, Period.TODAY, TODAY)).cost == pytest.approx(3.0)
    assert rows_totals(rows_in(rows, Period.WEEK, TODAY)).cost == pytest.approx(18.0)
    assert rows_totals(rows_in(rows, Period.MONTH, TODAY)).free == 1
    assert rows_totals(rows_in(rows, Period.ALL, TODAY)).cost == pytest.approx(20.5)
    assert Period.WEEK.first_day(TODAY) == TODAY - timedelta(days=6)


def test_a_row_in_the_long_band_is_priced_at_the_long_tier():
    long_row = row(TODAY, "gemini", "gemini-2.5-pro", replies=2, band=2, input_tokens=500_000, output_tokens=0)
    assert rows_totals([long_row]).cost == pytest.approx(500_000 * 2.50 / 1e6)
    short_rows = row(TODAY, "gemini", "gemini-2.5-pro", replies=3, band=0, input_tokens=500_000, output_tokens=0)
    assert rows_totals([short_rows]).cost == pytest.approx(500_000 * 1.25 / 1e6)  # three short prompts summed
    between = row(TODAY, "gemini", "gemini-2.5-pro", band=1, input_tokens=150_000, output_tokens=0)
    assert rows_totals([between]).cost == pytest.approx(150_000 * 1.25 / 1e6)  # over 128k but not over Gemini's 200k


# --- invariants ----------------------------------------------------------------------------------------------

PROVIDERS = ["anthropic", None, "openai", "deepseek", "gemini", "ollama", "my-endpoint"]
MODELS = ["claude-sonnet-4-5-20250929", "claude-haiku-4-5", "gpt-4.1-mini", "o4-mini", "deepseek-chat", "gemini-2.5-pro",
          "gemini-3-flash-preview", "llama3.2", "mystery-model"]


@st.composite
def replies(draw) -> Message:
    provider = draw(st.sampled_from(PROVIDERS))
    model = draw(st.sampled_from(MODELS))
    small = st.integers(min_value=0, max_value=400_000)
    cache_read, cache_write = draw(small), draw(small)
    fresh = draw(small)
    output = draw(st.integers(min_value=0, max_value=100_000))
    reasoning = draw(st.integers(min_value=0, max_value=output))
    # The provider's own shape: Anthropic reports the cache apart, the others inside input_tokens.
    input_tokens = fresh if not input_includes_cache(provider) else fresh + cache_read + cache_write
    message = reply(provider, model, input_tokens=input_tokens, output_tokens=output, cache_read_tokens=cache_read,
                    cache_write_tokens=cache_write, reasoning_tokens=reasoning)
    message.created_at = draw(st.floats(min_value=1.7e9, max_value=1.7e9 + 40 * 86400))
    return message


def assert_same(one: UsageTotals, other: UsageTotals) -> None:
    assert one.counts == other.counts
    assert (one.replies, one.unpriced, one.free) == (other.replies, other.unpriced, other.free)
    assert one.cost == pytest.approx(other.cost, rel=1e-9, abs=1e-12)


@given(st.lists(replies(), max_size=25), st.integers(min_value=0, max_value=25))
@settings(max_examples=150, deadline=None)
def test_totals_split_anywhere_add_up(messages: list[Message], cut: int):
    whole = conversation_totals(messages)
    assert_same(whole, conversation_totals(messages[:cut]) + conversation_totals(messages[cut:]))
    assert_same(whole, conversation_totals(list(reversed(messages))))
    assert whole.cost >= 0 and whole.unpriced + whole.free <= whole.replies
    assert whole.counts.reasoning <= whole.counts.output
    known = [cost_of(m) for m in messages]
    assert whole.cost == pytest.approx(sum(c.total for c in known if c is not None), abs=1e-12)
    assert whole.unpriced == sum(1 for m, c in zip(messages, known) if c is None and billed_counts(m.usage, m.provider))


def _rows_of(messages: list[Message]) -> list[UsageRow]:
    """The rows the database query would give: usage summed per day, provider, model and prompt band."""
    bands = DEFAULT_TABLE.prompt_bands
    groups: dict[tuple, list[Message]] = defaultdict(list)
    for message in messages:
        prompt = billed_counts(message.usage, message.provider).input
        band = sum(prompt > threshold for threshold in bands)
        day = date.fromtimestamp(message.created_at)
        groups[(day, message.provider, message.model, band)].append(message)
    rows = []
    for (day, provider, model, band), members in groups.items():
        fields = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
        summed = Usage(**{name: sum(getattr(m.usage, name) for m in members) for name in fields})
        rows.append(UsageRow(day, provider, model, band, summed, len(members)))
    return rows


@given(st.lists(replies(), max_size=30))
@settings(max_examples=150, deadline=None)
def test_grouped_rows_cost_what_the_replies_cost_one_by_one(messages: list[Message]):
    priced = [m for m in messages if billed_counts(m.usage, m.provider)]
    rows = _rows_of(priced)
    per_reply = conversation_totals(priced)
    grouped = rows_totals(rows)
    assert grouped.counts == per_reply.counts and grouped.cost == pytest.approx(per_reply.cost, rel=1e-9, abs=1e-12)
    assert grouped.unpriced == per_reply.unpriced and grouped.free == per_reply.free
    by_day = per_day(rows).values()
    by_model = [m.totals for m in per_model(rows)]
    for parts in (by_day, by_model):
        summed = sum(parts, UsageTotals())
        assert summed.counts == grouped.counts and summed.replies == grouped.replies
        assert summed.cost == pytest.approx(grouped.cost, rel=1e-9, abs=1e-12)
    periods = [rows_totals(rows_in(rows, period, date.fromtimestamp(1.7e9 + 40 * 86400))).cost for period in Period]
    assert periods == sorted(periods)  # today ⊆ 7 days ⊆ 30 days ⊆ all


def test_message_totals_of_one_reply_match_its_cost():
    message = reply("openai", "gpt-5-2025-08-07", input_tokens=10_000, output_tokens=2_000, cache_read_tokens=6_000, reasoning_tokens=1_500)
    totals = message_totals(message)
    assert totals.cost == pytest.approx(cost_of(message).total) == pytest.approx((4_000 * 1.25 + 6_000 * 0.125 + 2_000 * 10) / 1e6)
    assert totals.counts.reasoning == 1_500 and totals.replies == 1
