"""Usage in words: the conversation's tokens and cost for the header or status bar ("12.3k in · 1.2k out · $0.04"),
and one reply's line and tooltip (input, output, thinking, cache read and write, cost)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.usage.pricing import PRICES_TAKEN, PriceSource, PriceTable, TokenCounts, billed_counts, cost_of, price_table
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.usage_queries import usage_rows
from desktop_copilot.core.usage.ledger import UsageLedger
from desktop_copilot.core.usage.totals import UsageTotals, conversation_totals, rows_totals
from desktop_copilot.qt.usage.words import cost_text, format_tokens, free_or_unknown


def format_usage(totals: UsageTotals) -> str:
    """The conversation's usage in one short line: "12.3k in · 1.2k out · $0.04"."""
    if not totals.counts:
        return QCoreApplication.translate("UsageDisplay", "No tokens used yet")
    counts = totals.counts
    return QCoreApplication.translate("UsageDisplay", "{input} in · {output} out · {cost}").format(
        input=format_tokens(counts.input), output=format_tokens(counts.output), cost=cost_text(totals))


def usage_tooltip(totals: UsageTotals) -> str:
    """Every kind of token and the cost, one per line (the header label's tooltip)."""
    lines = _count_lines(totals.counts)
    lines.append(QCoreApplication.translate("UsageDisplay", "Cost: {cost}").format(cost=cost_text(totals)))
    if totals.some_unpriced:
        lines.append(QCoreApplication.translate("UsageDisplay", "{count} of {replies} replies are from models without a known price; add their prices in "
                         "Settings ▸ Prices.").format(count=totals.unpriced, replies=totals.replies))
    return "\n".join(lines)


def _count_lines(counts: TokenCounts) -> list[str]:
    lines = [QCoreApplication.translate("UsageDisplay", "Input: {count} tokens").format(count=f"{counts.input:,}")]
    if counts.cache_read:
        lines.append(QCoreApplication.translate("UsageDisplay", "  read from cache: {count}").format(count=f"{counts.cache_read:,}"))
    if counts.cache_write:
        lines.append(QCoreApplication.translate("UsageDisplay", "  written to cache: {count}").format(count=f"{counts.cache_write:,}"))
    lines.append(QCoreApplication.translate("UsageDisplay", "Output: {count} tokens").format(count=f"{counts.output:,}"))
    if counts.reasoning:
        lines.append(QCoreApplication.translate("UsageDisplay", "  thinking: {count}").format(count=f"{counts.reasoning:,}"))
    return lines


def message_usage_line(message: Message, table: PriceTable | None = None) -> str:
    """One reply's usage under it: "1,234 in (1,000 cached) · 567 out (120 thinking) · $0.0123"; "" without tokens."""
    counts = billed_counts(message.usage, message.provider)
    if not counts:
        return ""
    cached = counts.cache_read + counts.cache_write
    parts = [QCoreApplication.translate("UsageDisplay", "{count} in").format(count=f"{counts.input:,}")
             + (QCoreApplication.translate("UsageDisplay", " ({count} cached)").format(count=f"{cached:,}") if cached else "")]
    parts.append(QCoreApplication.translate("UsageDisplay", "{count} out").format(count=f"{counts.output:,}")
                 + (QCoreApplication.translate("UsageDisplay", " ({count} thinking)").format(count=f"{counts.reasoning:,}") if counts.reasoning else ""))
    parts.append(_message_cost_text(message, table))
    return " · ".join(parts)


def message_usage_tooltip(message: Message, table: PriceTable | None = None) -> str:
    """One reply's tokens by kind, its cost and where the price came from, one per line."""
    counts = billed_counts(message.usage, message.provider)
    if not counts:
        return QCoreApplication.translate("UsageDisplay", "No token usage was reported for this reply.")
    lines = _count_lines(counts)
    lines.append(QCoreApplication.translate("UsageDisplay", "Cost: {cost}").format(cost=_message_cost_text(message, table)))
    table = table or price_table()
    lookup = table.lookup(message.provider, message.model)
    if lookup is None:
        model = message.model or QCoreApplication.translate("UsageDisplay", "this model")
        lines.append(QCoreApplication.translate("UsageDisplay", "No price is known for {model}; add one in Settings ▸ Prices.").format(model=model))
    elif lookup.source is PriceSource.OVERRIDE:
        lines.append(QCoreApplication.translate("UsageDisplay", "Priced with your price for {model}.").format(model=lookup.key))
    elif lookup.source is PriceSource.TABLE:
        lines.append(QCoreApplication.translate("UsageDisplay", "Priced as {model} (prices of {date}).").format(model=lookup.key, date=PRICES_TAKEN))
    return "\n".join(lines)


def _message_cost_text(message: Message, table: PriceTable | None) -> str:
    cost = cost_of(message, table)
    return free_or_unknown(cost is not None, cost is not None and cost.free, cost.total if cost is not None else 0.0)


def prices_of(runtime: Runtime) -> PriceTable:
    """The price table in effect: the shipped prices with the user's overrides from Settings ▸ Prices."""
    return price_table(runtime.settings.model_prices if runtime.settings is not None else None)


def session_totals(session: ChatSession, table: PriceTable | None = None, ledger: UsageLedger | None = None) -> UsageTotals:
    """The open conversation's totals: from its messages (kept per message revision by `ledger`, the controller's,
    when given), or, for a long conversation opened without reading them all, from the database in one query."""
    table = table or prices_of(session.runtime)
    if session.history_loaded or session.store is None:
        if ledger is not None:
            return ledger.totals(session.conversation.messages, table)
        return conversation_totals(session.conversation.messages, table)
    rows = usage_rows(session.store.connection, prompt_bands=table.prompt_bands, conversation_id=session.conversation.id,
                      earlier_versions=False)
    return rows_totals(rows, table)
