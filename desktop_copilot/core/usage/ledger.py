"""The open conversation's usage totals kept per message revision: each message's tokens and cost are priced once per
(message id, revision), so a new or changed reply costs its own pricing, not a walk over every message; the whole
conversation is summed again only when it is another one, its history changed (`reset`), its message count no longer
matches what was noted, or the prices changed."""

from __future__ import annotations

from fractions import Fraction

from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.usage.pricing import PriceTable, TokenCounts
from desktop_copilot.core.usage.totals import UsageTotals, message_totals


NOTHING = UsageTotals()
"""The totals of a message without tokens (the user's, a reply before its usage came): one object for them all."""


def same_prices(a: PriceTable, b: PriceTable) -> bool:
    """Whether two tables price every reply alike (`price_table` builds a new one per call when there are overrides)."""
    return a is b or (a.overrides == b.overrides and a.shipped == b.shipped)


def _priced(message: Message, table: PriceTable) -> UsageTotals:
    totals = message_totals(message, table)
    return totals if totals.replies else NOTHING


class UsageLedger:
    """One conversation's usage totals, each message's kept by (message id, revision). The cost is summed exactly
    (as fractions of the floats), so adding and taking back a reply's cost leaves no rounding behind, however many
    times a reply changes over a day."""

    def __init__(self) -> None:
        self._messages: list[Message] | None = None
        self._table: PriceTable | None = None
        """The prices the totals were summed at (None: not summed since the last `reset`)."""
        self._entries: dict[str, tuple[Message, int, UsageTotals]] = {}
        """Message id -> (the message, the revision priced, its totals)."""
        self._counts = TokenCounts()
        self._cost = Fraction(0)
        self._replies = self._unpriced = self._free = 0
        self.sums = 0
        """How many times the whole conversation was summed (for tests and benchmarks)."""

    def reset(self, messages: list[Message] | None) -> None:
        """Follow `messages` (the open conversation's list, held by reference), summed at the next `totals`: another
        conversation is shown, or its history changed (a branch switched, a message edited)."""
        self._messages = messages
        self._table = None
        self._entries = {}
        self._zero()

    def note(self, message: Message) -> None:
        """`message` was added to the conversation or changed: its totals replace the ones it had (nothing to do at
        the revision already priced, or before the conversation was summed, as the sum will read it)."""
        if self._table is None:
            return
        held = self._entries.get(message.id)
        if held is not None and held[0] is message and held[1] == message.revision:
            return
        if held is not None:
            self._take(held[2], -1)
        totals = _priced(message, self._table)
        self._entries[message.id] = (message, message.revision, totals)
        self._take(totals, 1)

    def changed(self, message_id: str) -> None:
        """The message `message_id` changed (e.g. its usage was reported): `note` it, if the ledger holds it."""
        held = self._entries.get(message_id)
        if held is not None:
            self.note(held[0])

    def totals(self, messages: list[Message], table: PriceTable) -> UsageTotals:
        """The conversation's tokens and cost at `table`'s prices, `messages` being its messages now: summed again
        only when they are another list than the one followed, their number differs from the messages noted, or the
        prices changed."""
        if (messages is not self._messages or self._table is None or not same_prices(self._table, table)
                or len(messages) != len(self._entries)):
            self._sum(messages, table)
        return UsageTotals(self._counts, float(self._cost), self._replies, self._unpriced, self._free)

    def _sum(self, messages: list[Message], table: PriceTable) -> None:
        self.reset(messages)
        self._table = table
        self.sums += 1
        for message in messages:
            totals = _priced(message, table)
            self._entries[message.id] = (message, message.revision, totals)
            self._take(totals, 1)

    def _zero(self) -> None:
        self._counts, self._cost = TokenCounts(), Fraction(0)
        self._replies = self._unpriced = self._free = 0

    def _take(self, totals: UsageTotals, sign: int) -> None:
        if not totals.replies:
            return
        c = totals.counts
        self._counts = TokenCounts(*(mine + sign * theirs for mine, theirs in zip(
            (self._counts.fresh_input, self._counts.cache_read, self._counts.cache_write, self._counts.output, self._counts.reasoning),
            (c.fresh_input, c.cache_read, c.cache_write, c.output, c.reasoning))))
        self._cost += sign * Fraction(totals.cost)
        self._replies += sign * totals.replies
        self._unpriced += sign * totals.unpriced
        self._free += sign * totals.free
