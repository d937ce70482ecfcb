"""Token counts and costs in short words, shared by the Usage window and the conversation's usage line."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from desktop_copilot.core.usage.totals import UsageTotals


def format_tokens(count: int) -> str:
    """950, 12.3k, 1.2M: short enough for a status bar."""
    if count < 1000:
        return str(count)
    if count < 999_950:
        return f"{count / 1000:.1f}k".replace(".0k", "k")
    return f"{count / 1_000_000:.1f}M".replace(".0M", "M")


def format_cost(usd: float, *, precise: bool = False) -> str:
    """$0.04, $12.34, $1,234; a fraction of a cent keeps four decimals ($0.0031), and so does anything under a
    dollar when `precise` (one reply's cost: $0.0144)."""
    if 0 < usd < (1 if precise else 0.01):
        return f"${usd:.4f}"
    return f"${usd:.2f}" if usd < 1000 else f"${usd:,.0f}"


def cost_text(totals: UsageTotals) -> str:
    """ "$0.04", "free (local)", "cost unknown", or "$0.04 + unknown" when some replies have no known price."""
    if totals.all_free:
        return QCoreApplication.translate("UsageWords", "free (local)")
    if totals.all_unpriced:
        return QCoreApplication.translate("UsageWords", "cost unknown")
    if totals.some_unpriced:
        return QCoreApplication.translate("UsageWords", "{cost} + unknown").format(cost=format_cost(totals.cost))
    return format_cost(totals.cost)


def free_or_unknown(cost_known: bool, free: bool, usd: float) -> str:
    """One reply's cost: its price, "free (local)", or "price unknown"."""
    if not cost_known:
        return QCoreApplication.translate("UsageWords", "price unknown")
    return QCoreApplication.translate("UsageWords", "free (local)") if free else format_cost(usd, precise=True)
