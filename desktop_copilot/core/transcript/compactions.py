"""What a conversation's compactions do to its transcript's rows: the marker (and open summary) before the first
message each stands for, which messages are hidden while it is collapsed, and the origin line of a summary chat."""

from __future__ import annotations

from collections.abc import Sequence

from desktop_copilot.core.conversation.history import span, taken_over
from desktop_copilot.core.conversation.models import Compaction
from desktop_copilot.core.transcript.segments import Segment, compaction_rows, origin_row


class CompactionRows:
    """The compactions of the conversation a transcript shows, which of them are open, and what follows from that
    for the messages in conversation order (`derive`). Messages stay rows of the transcript: hidden ones are only
    placed out of sight. A compaction whose messages are not all shown (some became an earlier version) shows
    nothing."""

    def __init__(self, compactions: Sequence[Compaction] = (), origin: tuple[str, str | None] | None = None) -> None:
        self.compactions: list[Compaction] = list(compactions)
        self.open: set[str] = {c.id for c in self.compactions if c.undone}
        """Compactions whose messages show: an undone one starts open (its messages are sent whole again); the
        others start collapsed; the user opens and closes them."""
        self.origin = origin
        """(id, title) of the conversation this one was started from as a summary; title None when it is gone."""
        self.leads: dict[str, list[Compaction]] = {}
        """First message id -> the compactions whose marker goes before it."""
        self.hidden: set[str] = set()
        """Messages in a collapsed compaction: their rows are hidden, but for the marker rows of the first."""
        self.buried: set[str] = set()
        """Messages inside a collapsed compaction after its first: the marker rows they start with are hidden too."""

    def __bool__(self) -> bool:
        return bool(self.compactions)

    def find(self, compaction_id: str) -> Compaction | None:
        return next((c for c in self.compactions if c.id == compaction_id), None)

    def put(self, compaction: Compaction) -> None:
        """A compaction made (it starts collapsed, unless undone already) or changed."""
        for n, known in enumerate(self.compactions):
            if known.id == compaction.id:
                self.compactions[n] = compaction
                return
        self.compactions.append(compaction)
        if compaction.undone:
            self.open.add(compaction.id)

    def undo(self, compaction_id: str) -> bool:
        """The compaction was undone: it says so, and its messages show. False when it is not known."""
        for n, known in enumerate(self.compactions):
            if known.id == compaction_id:
                if not known.undone:  # a copy: the session's own object is not the view's to change
                    self.compactions[n] = known.model_copy(update={"undone": True})
                self.open.add(compaction_id)
                return True
        return False

    def containing(self, position: int, positions: dict[str, int]) -> list[Compaction]:
        """The compactions whose messages include the one at `position`."""
        found = []
        for compaction in self.compactions:
            where = span(compaction, positions)
            if where is not None and where[0] <= position <= where[1]:
                found.append(compaction)
        return found

    def derive(self, order: Sequence[str], positions: dict[str, int]) -> None:
        """`leads`, `hidden` and `buried` for the messages `order` (ids in conversation order; `positions` the
        index of each). A compaction taken over by a later one whose messages are all here shows no marker of its
        own (its summary went into that one's), nor does an undone one inside a compaction in effect; where two markers go before one message,
        an undone one comes first, the one in effect right above its messages."""
        gone = taken_over(self.compactions, positions)
        spans: list[tuple[int, int, Compaction]] = []
        for compaction in self.compactions:
            if compaction.id not in gone and (where := span(compaction, positions)) is not None:
                spans.append((*where, compaction))
        live = [(first, last) for first, last, c in spans if not c.undone]
        leads: dict[str, list[Compaction]] = {}
        hidden: set[str] = set()
        buried: set[str] = set()
        for first, last, compaction in sorted(spans, key=lambda span: (not span[2].undone, span[2].created_at)):
            if compaction.undone and any(start <= first and last <= end for start, end in live):
                continue
            leads.setdefault(compaction.first_message_id, []).append(compaction)
            if compaction.id not in self.open:
                inside = order[first : last + 1]
                hidden.update(inside)
                buried.update(inside[1:])
        self.leads, self.hidden, self.buried = leads, hidden, buried

    def lead(self, message_id: str, position: int) -> list[Segment]:
        """The rows that go before the message's own: the origin line before the first message, then the markers
        (and open summaries) of the compactions that start at it."""
        rows = [origin_row(message_id, *self.origin)] if position == 0 and self.origin is not None else []
        for slot, compaction in enumerate(self.leads.get(message_id, ())):
            rows += compaction_rows(message_id, compaction, compaction.id in self.open, slot)
        return rows
