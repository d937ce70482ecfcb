"""Usage arithmetic: tokens by kind and cost per reply, per conversation, per day and per model, with the replies
whose price is unknown counted apart (their cost is never taken as 0)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from enum import StrEnum

from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.usage.pricing import (
    DEFAULT_TABLE,
    Cost,
    PriceSource,
    PriceTable,
    TokenCounts,
    band_prompt,
    billed_counts,
    charge,
    cost_of,
)
from desktop_copilot.core.storage.usage_queries import UsageRow


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """Tokens and cost of some replies. `cost` sums only the priced ones; `unpriced` replies had tokens but no
    known price, so when there are any the real cost is higher than `cost`."""

    counts: TokenCounts = field(default_factory=TokenCounts)
    cost: float = 0.0
    replies: int = 0
    """Replies with tokens."""
    unpriced: int = 0
    free: int = 0
    """Replies from a local model (cost 0 on purpose)."""

    def __add__(self, other: UsageTotals) -> UsageTotals:
        return UsageTotals(self.counts + other.counts, self.cost + other.cost, self.replies + other.replies,
                           self.unpriced + other.unpriced, self.free + other.free)

    @property
    def some_unpriced(self) -> bool:
        return self.unpriced > 0

    @property
    def all_unpriced(self) -> bool:
        return self.replies > 0 and self.unpriced == self.replies

    @property
    def all_free(self) -> bool:
        return self.replies > 0 and self.free == self.replies


def totals_for(counts: TokenCounts, cost: Cost | None, replies: int = 1) -> UsageTotals:
    """The totals of `replies` replies that together had `counts` and cost `cost` (None: price unknown)."""
    if not counts:
        return UsageTotals()
    if cost is None:
        return UsageTotals(counts, 0.0, replies, unpriced=replies)
    return UsageTotals(counts, cost.total, replies, free=replies if cost.source is PriceSource.LOCAL else 0)


def message_totals(message: Message, table: PriceTable | None = None) -> UsageTotals:
    """One reply's tokens by kind and cost (`cost_of`)."""
    return totals_for(billed_counts(message.usage, message.provider), cost_of(message, table))


def conversation_totals(messages: Iterable[Message], table: PriceTable | None = None) -> UsageTotals:
    """The conversation's tokens and cost, each reply priced at its own model (a conversation may switch)."""
    total = UsageTotals()
    for message in messages:
        total += message_totals(message, table)
    return total


def row_totals(row: UsageRow, table: PriceTable | None = None) -> UsageTotals:
    """The totals of one stored group of replies (usage_queries), priced in their prompt band."""
    table = table or DEFAULT_TABLE
    counts = billed_counts(row.usage, row.provider)
    lookup = table.lookup(row.provider, row.model) if counts else None
    cost = charge(counts, lookup, band_prompt(table.prompt_bands, row.prompt_band)) if lookup else None
    return totals_for(counts, cost, row.replies)


def rows_totals(rows: Iterable[UsageRow], table: PriceTable | None = None) -> UsageTotals:
    total = UsageTotals()
    for row in rows:
        total += row_totals(row, table)
    return total


def per_day(rows: Iterable[UsageRow], table: PriceTable | None = None) -> dict[date, UsageTotals]:
    """Totals per local day, in day order (days without replies are left out)."""
    days: dict[date, UsageTotals] = {}
    for row in sorted(rows, key=lambda r: r.day):
        days[row.day] = days.get(row.day, UsageTotals()) + row_totals(row, table)
    return days


@dataclass(frozen=True, slots=True)
class ModelUsage:
    provider: str
    model: str
    totals: UsageTotals
    price_source: PriceSource | None
    """Where the price came from (None: unknown)."""


def per_model(rows: Iterable[UsageRow], table: PriceTable | None = None) -> list[ModelUsage]:
    """Totals per provider and model, the most expensive first (then the most tokens)."""
    table = table or DEFAULT_TABLE
    grouped: dict[tuple[str, str], UsageTotals] = {}
    for row in rows:
        key = (row.provider or "anthropic", row.model or "")
        grouped[key] = grouped.get(key, UsageTotals()) + row_totals(row, table)
    found = []
    for (provider, model), totals in grouped.items():
        lookup = table.lookup(provider, model)
        found.append(ModelUsage(provider, model, totals, lookup.source if lookup else None))
    return sorted(found, key=lambda m: (-m.totals.cost, -m.totals.counts.total, m.provider, m.model))


class Period(StrEnum):
    TODAY = "today"
    WEEK = "7 days"
    MONTH = "30 days"
    ALL = "all"

    def first_day(self, today: date) -> date | None:
        """The first day the period covers, counting today (None: no limit)."""
        return {Period.TODAY: today, Period.WEEK: today - timedelta(days=6), Period.MONTH: today - timedelta(days=29),
                Period.ALL: None}[self]


def rows_in(rows: Iterable[UsageRow], period: Period, today: date) -> list[UsageRow]:
    first = period.first_day(today)
    return [row for row in rows if first is None or first <= row.day <= today]
