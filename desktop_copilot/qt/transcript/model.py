"""The transcript as a Qt list model of segments (rows of bounded height) over messages held or loaded lazily, with the
conversation's compactions: a marker before the messages each stands for, which stay rows of the model but are hidden
while it is collapsed."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from itertools import accumulate

from PySide6.QtCore import QAbstractListModel, QByteArray, QModelIndex, QPersistentModelIndex, Qt, Signal

from desktop_copilot.core.conversation.models import Compaction, Message, Role
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.qt.transcript.message_source import MessageSource
from desktop_copilot.core.transcript.compactions import CompactionRows
from desktop_copilot.core.transcript.segments import (
    HIDDEN,
    LEAD_KINDS,
    NEW_BLOCK,
    NEW_MESSAGE,
    SAME_BLOCK,
    MessageSegmenter,
    Segment,
    diff_rows,
    pending_segment,
    runs,
    shown_chars,
    stored_chars,
    switch_label,
)

ModelIndex = QModelIndex | QPersistentModelIndex
TAIL_MESSAGES = 40
"""A conversation opens at its end: its last TAIL_MESSAGES messages are loaded and cut into rows at once."""
EAGER_MESSAGES = 200
"""A list of messages handed over whole (set_messages) is cut into rows at once up to this length."""
FINISHED_SEGMENTERS = 16
"""Segmenters of finished messages kept (most recently changed first): a long reply that finishes, or is changed
later (a thinking block expanded), is not cut into pieces again from its first character."""
UNDECIDED = object()
"""The reply before a reply is not loaded yet: whether it switched model is not known."""


def catalog_label(provider_id: str) -> str:
    """The built-in provider's name, else its id."""
    spec = PROVIDERS.get(provider_id)
    return spec.label if spec is not None else provider_id


class TranscriptModel(QAbstractListModel):
    """Rows are segments (see segments.py) of the messages, which are held (handed over, live) or read from
    the store as rows come into view. A change to a message becomes dataChanged on the rows that look
    different and beginInsertRows/beginRemoveRows where its segments were added or dropped. A reply written by
    another provider or model than the reply before it starts with a "switch" row, when that reply is loaded.

    Compactions (`Conversation.compactions`): the first message each stands for starts with its marker row (and, while
    it is open, its summary); the rows of its messages stay in the model, placed HIDDEN (no height) while it is
    collapsed, and are not loaded from the store until it is opened. A conversation started from a summary of another
    starts with an "origin" row."""

    MessageRole = Qt.ItemDataRole.UserRole + 1
    MessageIdRole = Qt.ItemDataRole.UserRole + 2
    AuthorRole = Qt.ItemDataRole.UserRole + 3
    StatusRole = Qt.ItemDataRole.UserRole + 4
    RevisionRole = Qt.ItemDataRole.UserRole + 5
    SegmentRole = Qt.ItemDataRole.UserRole + 6
    PlacementRole = Qt.ItemDataRole.UserRole + 7
    CHANGING_ROLES = [Qt.ItemDataRole.DisplayRole, MessageRole, StatusRole, RevisionRole, SegmentRole]
    """The roles whose value changes while a message streams (its id and author never change)."""

    sig_message_appended = Signal(str)
    sig_rows_shown_changed = Signal(int, int)
    """Rows [first, last] were hidden or shown (a compaction opened, closed, made or undone): their heights changed."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.provider_label: Callable[[str], str] = catalog_label
        """Provider id -> its name in the switch rows (the controller adds the endpoints the user added)."""
        self._clear(MessageSource())

    def _clear(self, source: MessageSource) -> None:
        self.source = source
        self._rows: list[Segment] = []
        self._order: list[str] = []
        self._position: dict[str, int] = {}
        self._spans: list[int] = []
        self._starts, self._valid = [0], 0
        self._segmenters: dict[str, MessageSegmenter] = {}
        self._finished_segmenters: OrderedDict[str, MessageSegmenter] = OrderedDict()
        self._expanded: dict[str, set[int]] = {}
        self._switches: dict[str, str | None] = {}
        """Finished reply -> its switch label (None: no switch), once the reply before it was seen."""
        self._marks = CompactionRows()
        """The conversation's compactions: which markers go before which messages, which messages are hidden."""

    # --- Qt API ----------------------------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 - Qt name
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        segment = self._rows[index.row()]
        if role == self.SegmentRole:
            return segment
        if role == self.PlacementRole:
            return self.placement(index.row())
        if role == self.MessageIdRole:
            return segment.message_id
        if role not in (Qt.ItemDataRole.DisplayRole, self.MessageRole, self.AuthorRole, self.StatusRole, self.RevisionRole):
            return None
        message = self.source.get(segment.message_id)
        if message is None:
            return None
        return {
            Qt.ItemDataRole.DisplayRole: lambda: message.text,
            self.MessageRole: lambda: message,
            self.AuthorRole: lambda: message.role.value,
            self.StatusRole: lambda: message.status.value,
            self.RevisionRole: lambda: message.revision,
        }[role]()

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren

    def roleNames(self) -> dict[int, QByteArray]:  # noqa: N802 - Qt name
        names = dict(super().roleNames())
        for role, name in ((self.MessageRole, b"message"), (self.MessageIdRole, b"messageId"), (self.AuthorRole, b"author"),
                           (self.StatusRole, b"status"), (self.RevisionRole, b"revision"), (self.SegmentRole, b"segment"),
                           (self.PlacementRole, b"placement")):
            names[role] = QByteArray(name)
        return names

    # --- filling ---------------------------------------------------------------------

    def set_messages(self, messages: list[Message], compactions: Sequence[Compaction] = (),
                     origin: tuple[str, str | None] | None = None) -> None:
        """Show `messages` (all in memory, e.g. the session's list) with the conversation's `compactions` and the
        `origin` it was started from (see `origin`). Of a long list only the last TAIL_MESSAGES are cut into rows
        at once; the others as they scroll into view (`fetch`)."""
        self.beginResetModel()
        self._clear(MessageSource())
        self._start_compactions([message.id for message in messages], compactions, origin)
        eager_from = len(messages) - TAIL_MESSAGES if len(messages) > EAGER_MESSAGES else 0
        for position, message in enumerate(messages):
            self.source.hold(message)
            if position < eager_from or message.id in self._marks.hidden:
                self._add(message.id, self._lead(message.id, position)
                          + [pending_segment(message.id, message.role.value, shown_chars(message))])
            else:
                self._add(message.id, self._segment(message, position))
        self.endResetModel()

    def open_lazy(self, store, conversation_id: str, tail: int = TAIL_MESSAGES, compactions: Sequence[Compaction] = (),
                  origin: tuple[str, str | None] | None = None) -> list[Message]:
        """Show a stored conversation without loading it: one row per message until its body is fetched
        (`fetch`), the last `tail` messages loaded at once (but those in a collapsed compaction). Returns those
        loaded messages, oldest first."""
        summaries = store.message_index(conversation_id)
        self.beginResetModel()
        self._clear(MessageSource(store, conversation_id))
        self._start_compactions([summary.id for summary in summaries], compactions, origin)
        recent = [s for s in summaries[-tail:] if s.id not in self._marks.hidden] if tail > 0 else []
        loaded = {m.id: m for m in self.source.load(s.id for s in recent)}
        for position, summary in enumerate(summaries):
            message = loaded.get(summary.id)
            rows = (self._segment(message, position) if message else self._lead(summary.id, position)
                    + [pending_segment(summary.id, summary.role, stored_chars(summary.role, summary.size))])
            self._add(summary.id, rows)
        self.endResetModel()
        return [loaded[s.id] for s in recent if s.id in loaded]

    def append_message(self, message: Message) -> None:
        self.source.hold(message)
        if message.id in self._position:
            self.message_changed(message.id)
            return
        rows = self._segment(message, len(self._order))
        first = len(self._rows)
        if rows:
            self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        self._add(message.id, rows)
        if rows:
            self.endInsertRows()
        self.sig_message_appended.emit(message.id)

    def replace_from(self, position: int, messages: list[Message]) -> None:
        """The conversation changed from `position` on (its messages there became an earlier version): their
        rows are removed and `messages` shown in their place (one remove, then one insert per message)."""
        position = max(0, min(position, len(self._order)))
        removed = self._order[position:]
        first = self._first_row(position)
        has_rows = first < len(self._rows)
        if has_rows:
            self.beginRemoveRows(QModelIndex(), first, len(self._rows) - 1)
        del self._rows[first:], self._order[position:], self._spans[position:], self._starts[position + 1 :]
        self._valid = min(self._valid, position)
        for message_id in removed:
            del self._position[message_id]
            self._segmenters.pop(message_id, None)
            self._finished_segmenters.pop(message_id, None)
            self._expanded.pop(message_id, None)
            self._switches.pop(message_id, None)
            self.source.release(message_id)
        if has_rows:
            self.endRemoveRows()
        for message in messages:
            self.append_message(message)
        if self._marks:  # a compaction whose messages became an earlier version shows no more
            self._refresh_compactions()

    def message_changed(self, message_id: str) -> bool:
        """Re-segment `message_id` and report only what changed; False when the model does not hold it."""
        position = self._position.get(message_id)
        message = self.source.get(message_id) if position is not None else None
        if message is None:
            return False
        self._replace(position, self._segment(message, position))
        return True

    def fetch(self, first_row: int, last_row: int) -> int:
        """Load the messages of the not-yet-loaded rows in [first_row, last_row] and show them; how many."""
        hidden = self._marks.hidden
        ids = [s.message_id for s in self._rows[max(0, first_row) : last_row + 1] if s.kind == "pending" and s.message_id not in hidden]
        loaded = self.source.load(ids)
        positions = {self._position[message.id] for message in loaded}
        followers = {found for p in positions if (found := self._next_reply(p)) is not None and found not in positions
                     and self._order[found] not in self._switches and self._body_kind(found) != "pending"}
        for position in sorted(positions | followers, reverse=True):  # bottom up: rows above keep their numbers
            message = self.source.peek(self._order[position])
            if message is not None:  # a reply shown already may now show its switch row
                self._replace(position, self._segment(message, position))
        return len(loaded)

    def has_pending(self, first_row: int, last_row: int) -> bool:
        """Whether any row in [first_row, last_row] shows a message not loaded yet (hidden ones wait to be opened)."""
        hidden = self._marks.hidden
        return any(s.kind == "pending" and s.message_id not in hidden for s in self._rows[max(0, first_row) : last_row + 1])

    def set_expanded(self, message_id: str, block_index: int, expanded: bool) -> None:
        blocks = self._expanded.setdefault(message_id, set())
        if (block_index in blocks) != expanded:
            (blocks.add if expanded else blocks.discard)(block_index)
            self.message_changed(message_id)

    def is_expanded(self, message_id: str, block_index: int) -> bool:
        return block_index in self._expanded.get(message_id, ())

    # --- compactions ------------------------------------------------------------------

    def add_compaction(self, compaction: Compaction) -> None:
        """A compaction was made (ContextCompacted) or changed: its marker shows, its messages collapsed under it."""
        self._marks.put(compaction)
        self._refresh_compactions()

    def compaction_undone(self, compaction_id: str) -> bool:
        """The compaction was undone (CompactionUndone): its marker says so and its messages show again."""
        if not self._marks.undo(compaction_id):
            return False
        self._refresh_compactions()
        return True

    def set_compaction_open(self, compaction_id: str, opened: bool) -> bool:
        """Show (`opened`) or hide the messages `compaction_id` stands for; False when it is not shown here."""
        if self._marks.find(compaction_id) is None:
            return False
        if (compaction_id in self._marks.open) != opened:
            (self._marks.open.add if opened else self._marks.open.discard)(compaction_id)
            self._refresh_compactions()
        return True

    def is_compaction_open(self, compaction_id: str) -> bool:
        return compaction_id in self._marks.open

    def reveal(self, message_id: str) -> bool:
        """Open the collapsed compactions `message_id` is in (a search hit, a jump to it); whether any was."""
        position = self._position.get(message_id)
        if position is None or message_id not in self._marks.hidden:
            return False
        self._marks.open.update(c.id for c in self._marks.containing(position, self._position))
        self._refresh_compactions()
        return True

    def compaction(self, compaction_id: str) -> Compaction | None:
        return self._marks.find(compaction_id)

    def compaction_at(self, row: int) -> Compaction | None:
        """The compaction whose marker or summary row `row` is, else None."""
        segment = self._rows[row]
        return self._marks.find(segment.state[0]) if segment.kind in ("compaction", "compaction_summary") else None

    def compactions(self) -> list[Compaction]:
        """The conversation's compactions as the transcript shows them, oldest first."""
        return list(self._marks.compactions)

    @property
    def origin(self) -> tuple[str, str | None] | None:
        """(id, title) of the conversation this one was started from as a summary, if it was."""
        return self._marks.origin

    def _start_compactions(self, order: list[str], compactions: Sequence[Compaction], origin: tuple[str, str | None] | None) -> None:
        self._marks = CompactionRows(compactions, origin)
        if self._marks:
            self._marks.derive(order, {message_id: n for n, message_id in enumerate(order)})

    def _lead(self, message_id: str, position: int) -> list[Segment]:
        return self._marks.lead(message_id, position) if position == 0 or message_id in self._marks.leads else []

    def _refresh_compactions(self) -> None:
        """Derive the markers and hidden messages again: marker rows change in place (a summary's rows come and
        go), and the rows whose visibility changed are announced (sig_rows_shown_changed)."""
        marks = self._marks
        old_leads, old_hidden, old_buried = marks.leads, marks.hidden, marks.buried
        marks.derive(self._order, self._position)
        moved = [self._position[m] for m in set(old_leads) | set(marks.leads) if m in self._position]
        for position in sorted(moved, reverse=True):  # bottom up: rows above keep their numbers
            first = self._first_row(position)
            body = [row for row in self._rows[first : first + self._spans[position]] if row.kind not in LEAD_KINDS]
            self._replace(position, self._lead(self._order[position], position) + body)
        changed = [self._position[m] for m in (old_hidden ^ marks.hidden) | (old_buried ^ marks.buried) if m in self._position]
        if changed:
            low, high = min(changed), max(changed)
            first, last = self._first_row(low), self._first_row(high) + self._spans[high] - 1
            if last >= first:
                self.sig_rows_shown_changed.emit(first, last)

    # --- reading ---------------------------------------------------------------------

    def segment_at(self, row: int) -> Segment:
        return self._rows[row]

    def placement(self, row: int) -> int:
        segment = self._rows[row]
        marks = self._marks
        if segment.message_id in marks.hidden and (segment.kind not in LEAD_KINDS or segment.message_id in marks.buried):
            return HIDDEN
        previous = self._rows[row - 1] if row > 0 else None
        if previous is None or previous.message_id != segment.message_id:
            return NEW_MESSAGE
        same = previous.block == segment.block and (segment.block >= 0 or segment.kind == "compaction_summary")
        return SAME_BLOCK if same else NEW_BLOCK

    def is_hidden(self, row: int) -> bool:
        """Whether row `row` is hidden in a collapsed compaction."""
        return self.placement(row) == HIDDEN

    def rows_of(self, message_id: str) -> range:
        position = self._position.get(message_id)
        if position is None:
            return range(0)
        first = self._first_row(position)
        return range(first, first + self._spans[position])

    def row_of(self, message_id: str) -> int | None:
        """The first row of `message_id` (a compaction marker or origin row when the message starts with one)."""
        rows = self.rows_of(message_id)
        return rows.start if rows else None

    def message_row(self, message_id: str) -> int | None:
        """The first row that shows `message_id` itself (after any marker rows before it)."""
        rows = self.rows_of(message_id)
        return next((row for row in rows if self._rows[row].kind not in LEAD_KINDS), rows.start if rows else None)

    def message_at(self, row: int) -> Message:
        """The message row `row` shows (read from the store if it is not in memory)."""
        return self.source.get(self._rows[row].message_id)

    def message_ids(self) -> list[str]:
        """The ids of every message shown, in order (nothing is loaded)."""
        return list(self._order)

    def message_id_at(self, position: int) -> str | None:
        """The id of the message at `position` in the conversation, or None past its end."""
        return self._order[position] if 0 <= position < len(self._order) else None

    def reply_of(self, message_id: str) -> list[Message]:
        """The messages of the reply `message_id` belongs to, in order: the assistant messages between two of the
        user's (one per round of tool calls). [] for a message not shown. Reads only those messages."""
        position = self._position.get(message_id)
        if position is None:
            return []
        first, last = position, position

        def is_reply(at: int) -> bool:
            message = self.source.get(self._order[at])
            return message is not None and message.role is not Role.USER

        while first > 0 and is_reply(first - 1):
            first -= 1
        while last + 1 < len(self._order) and is_reply(last + 1):
            last += 1
        return [m for m in self.source.load(self._order[first:last + 1]) if m.role is not Role.USER]

    def messages(self) -> list[Message]:
        """Every message, in order (loads any that are not in memory: for tests and tools, not for painting)."""
        self.source.load(self._order)
        return [self.source.get(message_id) for message_id in self._order]

    # --- internals -------------------------------------------------------------------

    def _segment(self, message: Message, position: int) -> list[Segment]:
        """Streaming messages keep their segmenter (incremental cutting); so do the last FINISHED_SEGMENTERS
        finished ones that changed (a reply finishing keeps the one it streamed with); others are cut afresh."""
        message.settle()  # the deltas since the last frame join the streaming text (kept as pieces until read)
        if message.status.finished:
            kept = self._finished_segmenters
            segmenter = self._segmenters.pop(message.id, None) or kept.pop(message.id, None) or MessageSegmenter()
            kept[message.id] = segmenter
            while len(kept) > FINISHED_SEGMENTERS:
                kept.popitem(last=False)
        else:
            segmenter = self._segmenters.get(message.id) or self._segmenters.setdefault(message.id, MessageSegmenter())
        switched = self._switch_of(message, position)
        rows = segmenter.segments(message, self._expanded.get(message.id, ()), None if switched is UNDECIDED else switched)
        lead = self._lead(message.id, position)
        return lead + rows if lead else rows

    def _switch_of(self, message: Message, position: int):
        """The switch label of reply `message` at `position`: against the reply before it if that one is in
        memory (never loaded for this), UNDECIDED if it is not; remembered once both are finished."""
        if message.role is not Role.ASSISTANT:
            return None
        if message.id in self._switches:
            return self._switches[message.id]
        label = None
        for before in range(position - 1, -1, -1):
            previous = self.source.peek(self._order[before])
            if previous is None:
                if self._role_at(before) != Role.USER.value:
                    return UNDECIDED
            elif previous.role is Role.ASSISTANT:
                label = switch_label(previous, message, self.provider_label)
                break
        if message.status.finished:  # a reply's model may change once, when its stream starts
            self._switches[message.id] = label
        return label

    def _body_row(self, position: int) -> Segment | None:
        """The first row of the message at `position` that shows the message itself (not a marker before it)."""
        first = self._first_row(position)
        for row in range(first, first + self._spans[position]):
            if self._rows[row].kind not in LEAD_KINDS:
                return self._rows[row]
        return None

    def _body_kind(self, position: int) -> str | None:
        row = self._body_row(position)
        return row.kind if row is not None else None

    def _role_at(self, position: int) -> str | None:
        """The role of the message at `position` as its rows tell it (a not-loaded message's row says it)."""
        row = self._body_row(position) if self._spans[position] else None
        if row is None:
            return None
        return row.state[0] if row.kind == "pending" else Role.USER.value if row.kind == "user" else Role.ASSISTANT.value

    def _next_reply(self, position: int) -> int | None:
        """The position of the first reply after `position` (skipping the user's messages), if known."""
        for after in range(position + 1, len(self._order)):
            role = self._role_at(after)
            if role != Role.USER.value:
                return after if role == Role.ASSISTANT.value else None
        return None

    def _add(self, message_id: str, rows: list[Segment]) -> None:
        self._position[message_id] = len(self._order)
        self._order.append(message_id)
        self._spans.append(len(rows))
        self._rows.extend(rows)

    def _first_row(self, position: int) -> int:
        if position > self._valid:
            self._starts[self._valid :] = accumulate(self._spans[self._valid :], initial=self._starts[self._valid])
            self._valid = len(self._spans)
        return self._starts[position]

    def _set_span(self, position: int, count: int) -> None:
        self._spans[position] = count
        self._valid = min(self._valid, position)

    def _replace(self, position: int, new: list[Segment]) -> None:
        first = self._first_row(position)
        old = self._rows[first : first + self._spans[position]]
        diff = diff_rows(old, new)
        at = first + diff.prefix + diff.replaced
        self._rows[first : first + diff.prefix + diff.replaced] = new[: diff.prefix + diff.replaced]
        if diff.delta > 0:
            self.beginInsertRows(QModelIndex(), at, at + diff.delta - 1)
            self._rows[at:at] = new[diff.prefix + diff.replaced : diff.prefix + diff.replaced + diff.delta]
            self._set_span(position, len(new))
            self.endInsertRows()
        elif diff.delta < 0:
            self.beginRemoveRows(QModelIndex(), at, at - diff.delta - 1)
            del self._rows[at : at - diff.delta]
            self._set_span(position, len(new))
            self.endRemoveRows()
        self._rows[first : first + len(new)] = new
        changed = set(diff.changed)
        if diff.suffix and (diff.replaced or diff.delta):
            changed.add(len(new) - diff.suffix)  # what it follows changed: maybe its spacing too
        for top, bottom in runs(sorted(changed)):
            self.dataChanged.emit(self.index(first + top, 0), self.index(first + bottom, 0), self.CHANGING_ROLES)

