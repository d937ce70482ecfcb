"""The transcript as a Qt list model of segments (rows of bounded height) over messages held or loaded lazily."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from itertools import accumulate

from PySide6.QtCore import QAbstractListModel, QByteArray, QModelIndex, QPersistentModelIndex, Qt, Signal

from desktop_copilot.core.conversation.models import Message, Role
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.qt.transcript.message_source import MessageSource
from desktop_copilot.core.transcript.segments import (
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
    another provider or model than the reply before it starts with a "switch" row, when that reply is loaded."""

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

    def set_messages(self, messages: list[Message]) -> None:
        """Show `messages` (all in memory, e.g. the session's list). Of a long list only the last
        TAIL_MESSAGES are cut into rows at once; the others as they scroll into view (`fetch`)."""
        self.beginResetModel()
        self._clear(MessageSource())
        eager_from = len(messages) - TAIL_MESSAGES if len(messages) > EAGER_MESSAGES else 0
        for position, message in enumerate(messages):
            self.source.hold(message)
            if position < eager_from:
                self._add(message.id, [pending_segment(message.id, message.role.value, shown_chars(message))])
            else:
                self._add(message.id, self._segment(message, position))
        self.endResetModel()

    def open_lazy(self, store, conversation_id: str, tail: int = TAIL_MESSAGES) -> list[Message]:
        """Show a stored conversation without loading it: one row per message until its body is fetched
        (`fetch`), the last `tail` messages loaded at once. Returns those loaded messages, oldest first."""
        summaries = store.message_index(conversation_id)
        self.beginResetModel()
        self._clear(MessageSource(store, conversation_id))
        recent = summaries[-tail:] if tail > 0 else []
        loaded = {m.id: m for m in self.source.load(s.id for s in recent)}
        for position, summary in enumerate(summaries):
            message = loaded.get(summary.id)
            rows = (self._segment(message, position) if message
                    else [pending_segment(summary.id, summary.role, stored_chars(summary.role, summary.size))])
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
        ids = [s.message_id for s in self._rows[max(0, first_row) : last_row + 1] if s.kind == "pending"]
        loaded = self.source.load(ids)
        positions = {self._position[message.id] for message in loaded}
        followers = {found for p in positions if (found := self._next_reply(p)) is not None and found not in positions
                     and self._order[found] not in self._switches and self._rows[self._first_row(found)].kind != "pending"}
        for position in sorted(positions | followers, reverse=True):  # bottom up: rows above keep their numbers
            message = self.source.peek(self._order[position])
            if message is not None:  # a reply shown already may now show its switch row
                self._replace(position, self._segment(message, position))
        return len(loaded)

    def has_pending(self, first_row: int, last_row: int) -> bool:
        """Whether any row in [first_row, last_row] shows a message not loaded yet."""
        return any(s.kind == "pending" for s in self._rows[max(0, first_row) : last_row + 1])

    def set_expanded(self, message_id: str, block_index: int, expanded: bool) -> None:
        blocks = self._expanded.setdefault(message_id, set())
        if (block_index in blocks) != expanded:
            (blocks.add if expanded else blocks.discard)(block_index)
            self.message_changed(message_id)

    def is_expanded(self, message_id: str, block_index: int) -> bool:
        return block_index in self._expanded.get(message_id, ())

    # --- reading ---------------------------------------------------------------------

    def segment_at(self, row: int) -> Segment:
        return self._rows[row]

    def placement(self, row: int) -> int:
        segment = self._rows[row]
        previous = self._rows[row - 1] if row > 0 else None
        if previous is None or previous.message_id != segment.message_id:
            return NEW_MESSAGE
        return SAME_BLOCK if previous.block == segment.block >= 0 else NEW_BLOCK

    def rows_of(self, message_id: str) -> range:
        position = self._position.get(message_id)
        if position is None:
            return range(0)
        first = self._first_row(position)
        return range(first, first + self._spans[position])

    def row_of(self, message_id: str) -> int | None:
        """The first row of `message_id`."""
        rows = self.rows_of(message_id)
        return rows.start if rows else None

    def message_at(self, row: int) -> Message:
        """The message row `row` shows (read from the store if it is not in memory)."""
        return self.source.get(self._rows[row].message_id)

    def message_ids(self) -> list[str]:
        """The ids of every message shown, in order (nothing is loaded)."""
        return list(self._order)

    def message_id_at(self, position: int) -> str | None:
        """The id of the message at `position` in the conversation, or None past its end."""
        return self._order[position] if 0 <= position < len(self._order) else None

    def messages(self) -> list[Message]:
        """Every message, in order (loads any that are not in memory: for tests and tools, not for painting)."""
        self.source.load(self._order)
        return [self.source.get(message_id) for message_id in self._order]

    # --- internals -------------------------------------------------------------------

    def _segment(self, message: Message, position: int) -> list[Segment]:
        """Streaming messages keep their segmenter (incremental cutting); so do the last FINISHED_SEGMENTERS
        finished ones that changed (a reply finishing keeps the one it streamed with); others are cut afresh."""
        if message.status.finished:
            kept = self._finished_segmenters
            segmenter = self._segmenters.pop(message.id, None) or kept.pop(message.id, None) or MessageSegmenter()
            kept[message.id] = segmenter
            while len(kept) > FINISHED_SEGMENTERS:
                kept.popitem(last=False)
        else:
            segmenter = self._segmenters.get(message.id) or self._segmenters.setdefault(message.id, MessageSegmenter())
        switched = self._switch_of(message, position)
        return segmenter.segments(message, self._expanded.get(message.id, ()), None if switched is UNDECIDED else switched)

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

    def _role_at(self, position: int) -> str | None:
        """The role of the message at `position` as its rows tell it (a not-loaded message's row says it)."""
        if not self._spans[position]:
            return None
        row = self._rows[self._first_row(position)]
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

