"""The sidebar's list model: stored conversations newest first, each tagged with its day section
(Today / Yesterday / Previous 7 days / Earlier) and a relative time; inline rename saves to the store."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date, datetime

from PySide6.QtCore import QT_TRANSLATE_NOOP, QAbstractListModel, QCoreApplication, QDate, QLocale, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal

from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.storage.store import Store

ModelIndex = QModelIndex | QPersistentModelIndex
SECTIONS = (QT_TRANSLATE_NOOP("ConversationList", "Today"), QT_TRANSLATE_NOOP("ConversationList", "Yesterday"),
            QT_TRANSLATE_NOOP("ConversationList", "Previous 7 days"), QT_TRANSLATE_NOOP("ConversationList", "Earlier"))
"""The day sections, in English (section_of gives them translated)."""
UNTITLED = QT_TRANSLATE_NOOP("ConversationList", "New chat")
CLOCK_MS = 60_000
"""How often relative times and day sections are brought up to date."""


def section_of(updated_at: float, today: date | None = None) -> str:
    """The day section a conversation last updated at `updated_at` belongs to (local time)."""
    today = today or date.today()
    days = (today - date.fromtimestamp(updated_at)).days
    section = SECTIONS[0] if days <= 0 else SECTIONS[1] if days == 1 else SECTIONS[2] if days <= 7 else SECTIONS[3]
    return QCoreApplication.translate("ConversationList", section)


def time_text(updated_at: float, now: float | None = None) -> str:
    """A short relative time: "just now", "5 min ago", "3 h ago", "Yesterday", "Mon", "12 Mar", "12 Mar 2023"; day and
    month names in the interface language (QLocale's default, set with the translation)."""
    now = time.time() if now is None else now
    then, today = datetime.fromtimestamp(updated_at), datetime.fromtimestamp(now)
    seconds = now - updated_at
    days = (today.date() - then.date()).days
    if seconds < 60 and days <= 0:
        return QCoreApplication.translate("ConversationList", "just now")
    if seconds < 3600 and days <= 0:
        return QCoreApplication.translate("ConversationList", "{minutes} min ago").format(minutes=int(seconds // 60))
    if days <= 0:
        return QCoreApplication.translate("ConversationList", "{hours} h ago").format(hours=int(seconds // 3600))
    if days == 1:
        return QCoreApplication.translate("ConversationList", "Yesterday")
    locale = QLocale()
    if days < 7:
        return locale.dayName(then.isoweekday(), QLocale.FormatType.ShortFormat)
    day = QDate(then.year, then.month, then.day)
    if then.year == today.year:
        return locale.toString(day, QCoreApplication.translate("ConversationList", "d MMM", "a date in this year (QDate format)"))
    return locale.toString(day, QCoreApplication.translate("ConversationList", "d MMM yyyy", "a date in another year (QDate format)"))


class ConversationListModel(QAbstractListModel):
    """Rows are Conversation headers (without messages) sorted by `updated_at`, newest first."""

    ConversationIdRole = Qt.ItemDataRole.UserRole + 1
    ModelNameRole = Qt.ItemDataRole.UserRole + 2
    UpdatedAtRole = Qt.ItemDataRole.UserRole + 3
    SectionRole = Qt.ItemDataRole.UserRole + 4
    FirstInSectionRole = Qt.ItemDataRole.UserRole + 5
    TimeTextRole = Qt.ItemDataRole.UserRole + 6
    RunStateRole = Qt.ItemDataRole.UserRole + 7
    """The row's run_states.RowState (replying, waiting for approval, failed, …) or None."""

    sig_renamed = Signal(str, str)
    """(conversation id, new title) after an inline rename was saved."""

    def __init__(self, store: Store | None, parent=None) -> None:
        super().__init__(parent)
        self.store = store
        self._rows: list[Conversation] = []
        self._sections: list[str] = []
        self.state_of: Callable[[str], object] = lambda _conversation_id: None
        """The state of a conversation's run (qt/history/run_states.py sets it)."""
        self._clock = QTimer(self, interval=CLOCK_MS)
        self._clock.timeout.connect(self.refresh_clock)
        self._clock.start()
        self.reload()

    # --- Qt API ----------------------------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 - Qt name
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = index.row()
        conversation = self._rows[row]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return conversation.title or QCoreApplication.translate("ConversationList", UNTITLED)
        if role == Qt.ItemDataRole.EditRole:
            return conversation.title
        if role == self.ConversationIdRole:
            return conversation.id
        if role == self.ModelNameRole:
            return conversation.model or ""
        if role == self.UpdatedAtRole:
            return conversation.updated_at
        if role == self.SectionRole:
            return self._sections[row]
        if role == self.FirstInSectionRole:
            return row == 0 or self._sections[row - 1] != self._sections[row]
        if role == self.TimeTextRole:
            return time_text(conversation.updated_at)
        if role == self.RunStateRole:
            return self.state_of(conversation.id)
        return None

    def setData(self, index: ModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        title = " ".join(str(value or "").split())
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or not title:
            return False
        conversation = self._rows[index.row()]
        if title == conversation.title:
            return False
        self._save_title(conversation, title)
        conversation.title = title
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole])
        self.sig_renamed.emit(conversation.id, title)
        return True

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable
                | Qt.ItemFlag.ItemNeverHasChildren)

    # --- our API ---------------------------------------------------------------------

    def reload(self) -> None:
        """Re-read every conversation header from the store."""
        self.beginResetModel()
        self._rows = self.store.list_conversations() if self.store is not None else []
        self._sort()
        self.endResetModel()

    def upsert(self, conversation: Conversation) -> None:
        """Add or update the header of `conversation` (its messages are not kept) and re-sort."""
        header = conversation.model_copy(update={"messages": []})
        row = self.row_of(conversation.id)
        if row is None:
            self.beginInsertRows(QModelIndex(), 0, 0)
            self._rows.insert(0, header)
            self._sections.insert(0, section_of(header.updated_at))
            self.endInsertRows()
        else:
            self._rows[row] = header
        self._relayout()

    def remove(self, conversation_id: str) -> bool:
        row = self.row_of(conversation_id)
        if row is None:
            return False
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._rows[row]
        del self._sections[row]
        self.endRemoveRows()
        self._relayout()
        return True

    def state_changed(self, conversation_id: str) -> None:
        """The row's run state changed: it is painted again."""
        index = self.index_of(conversation_id)
        if index.isValid():
            self.dataChanged.emit(index, index, [self.RunStateRole])

    def row_of(self, conversation_id: str) -> int | None:
        for row, conversation in enumerate(self._rows):
            if conversation.id == conversation_id:
                return row
        return None

    def index_of(self, conversation_id: str) -> QModelIndex:
        row = self.row_of(conversation_id)
        return QModelIndex() if row is None else self.index(row, 0)

    def conversation_at(self, row: int) -> Conversation:
        return self._rows[row]

    def refresh_clock(self) -> None:
        """Bring day sections and relative times up to date (called every minute)."""
        if not self._rows:
            return
        today = date.today()
        if [section_of(c.updated_at, today) for c in self._rows] != self._sections:
            self._relayout()
        else:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, 0), [self.TimeTextRole])

    # --- internals -------------------------------------------------------------------

    def _save_title(self, conversation: Conversation, title: str) -> None:
        if self.store is None:
            return
        renamed = conversation.model_copy(update={"title": title})
        self.store.save_conversation(renamed)  # sets updated_at to now: put the old time back
        self.store.touch_conversation(conversation.id, conversation.updated_at)

    def _sort(self) -> None:
        self._rows.sort(key=lambda c: c.updated_at, reverse=True)
        today = date.today()
        self._sections = [section_of(c.updated_at, today) for c in self._rows]

    def _relayout(self) -> None:
        """Re-sort and re-section: a layout change (rows may move, row heights may change)."""
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        ids = [self._rows[index.row()].id for index in old_persistent]
        self._sort()
        rows = {c.id: row for row, c in enumerate(self._rows)}
        self.changePersistentIndexList(old_persistent, [self.index(rows[i], 0) for i in ids])
        self.layoutChanged.emit()
