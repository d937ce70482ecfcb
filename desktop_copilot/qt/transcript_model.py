"""The transcript as a Qt list model: one row per Message (the live snapshots the core updates)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractListModel, QByteArray, QModelIndex, QPersistentModelIndex, Qt, Signal

from desktop_copilot.core.models import Message

ModelIndex = QModelIndex | QPersistentModelIndex


class TranscriptModel(QAbstractListModel):
    """Rows hold the same Message objects the agent loop accumulates into; the model is only told
    which message changed and emits `dataChanged` for that one row."""

    MessageRole = Qt.ItemDataRole.UserRole + 1
    MessageIdRole = Qt.ItemDataRole.UserRole + 2
    AuthorRole = Qt.ItemDataRole.UserRole + 3
    StatusRole = Qt.ItemDataRole.UserRole + 4
    RevisionRole = Qt.ItemDataRole.UserRole + 5
    CHANGING_ROLES = [Qt.ItemDataRole.DisplayRole, MessageRole, StatusRole, RevisionRole]
    """The roles whose value changes while a message streams (its id and author never change)."""

    sig_message_appended = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._messages: list[Message] = []
        self._rows: dict[str, int] = {}

    # --- Qt API ----------------------------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 - Qt name
        return 0 if parent.isValid() else len(self._messages)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._messages):
            return None
        message = self._messages[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return message.text
        if role == self.MessageRole:
            return message
        if role == self.MessageIdRole:
            return message.id
        if role == self.AuthorRole:
            return message.role.value
        if role == self.StatusRole:
            return message.status.value
        if role == self.RevisionRole:
            return message.revision
        return None

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren

    def roleNames(self) -> dict[int, QByteArray]:  # noqa: N802 - Qt name
        names = dict(super().roleNames())
        for role, name in (
            (self.MessageRole, b"message"),
            (self.MessageIdRole, b"messageId"),
            (self.AuthorRole, b"author"),
            (self.StatusRole, b"status"),
            (self.RevisionRole, b"revision"),
        ):
            names[role] = QByteArray(name)
        return names

    # --- our API ---------------------------------------------------------------------

    def set_messages(self, messages: list[Message]) -> None:
        self.beginResetModel()
        self._messages = list(messages)
        self._rows = {message.id: row for row, message in enumerate(self._messages)}
        self.endResetModel()

    def append_message(self, message: Message) -> None:
        if message.id in self._rows:
            self.message_changed(message.id)
            return
        row = len(self._messages)
        self.beginInsertRows(QModelIndex(), row, row)
        self._messages.append(message)
        self._rows[message.id] = row
        self.endInsertRows()
        self.sig_message_appended.emit(message.id)

    def message_changed(self, message_id: str) -> bool:
        """Emit dataChanged for the row of `message_id`; False when the model does not hold it."""
        row = self._rows.get(message_id)
        if row is None:
            return False
        index = self.index(row, 0)
        self.dataChanged.emit(index, index, self.CHANGING_ROLES)
        return True

    def row_of(self, message_id: str) -> int | None:
        return self._rows.get(message_id)

    def message_at(self, row: int) -> Message:
        return self._messages[row]

    def messages(self) -> list[Message]:
        return list(self._messages)
