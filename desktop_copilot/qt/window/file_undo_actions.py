"""Undo file changes from the window: "Undo file changes…" in the context menu of a reply whose `write_file` or
`edit_file` calls changed workspace files (core/file_undo.py). It lists the files and asks first, then puts them back
as they were before the reply (a file it created is removed). When a file was changed since the reply wrote it, nothing
changes and a dialog shows the diff of what changed since."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QObject, Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMainWindow, QMenu, QMessageBox, QPlainTextEdit, QVBoxLayout, QWidget

from desktop_copilot.core.conversation.models import Message, Role
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.transcript.model import TranscriptModel

if TYPE_CHECKING:  # the undo module loads at the first context menu, not with the window
    from desktop_copilot.core.file_undo import ChangedFile, ChangedSinceError

NEWS_MS = 8000
"""How long the status bar says what an undo did."""


def file_undo():
    """core.file_undo, imported at first use."""
    from desktop_copilot.core import file_undo as module

    return module


class ChangedSinceDialog(QDialog):
    """Shown instead of undoing: the files changed after the reply wrote them, and the diff of those changes."""

    def __init__(self, error: ChangedSinceError, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="changedSinceDialog")
        self.setWindowTitle(self.tr("Files changed since"))
        self.label = PlainLabel(self.tr("Nothing was undone. Changed after this reply wrote them: {names}. Undoing would "
                                        "lose those changes; this is what changed since:").format(names=", ".join(error.names)))
        self.label.setWordWrap(True)
        self.diff = QPlainTextEdit(objectName="changedSinceDiff")
        self.diff.setReadOnly(True)
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setPlainText(error.diff)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.diff, 1)
        layout.addWidget(buttons)
        self.resize(720, 480)


class FileUndoActions(QObject):
    """The reply context menu's "Undo file changes…", shown when the reply changed files that are not undone yet."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.dialog: ChangedSinceDialog | None = None
        """The last diff shown (kept so it is not collected while open)."""
        window.view.menu_extenders.append(self.extend_menu)

    def reply_of(self, message: Message) -> tuple[str, list[str]] | None:
        """(conversation id, the ids of the reply `message` belongs to); None without a store."""
        store = self.controller.session.store
        if store is None or message.role is not Role.ASSISTANT:
            return None
        conversation_id = self.controller.session.conversation.id
        return conversation_id, file_undo().reply_message_ids(store.message_index(conversation_id), message.id)

    def files_of(self, message: Message) -> list[ChangedFile]:
        """The files the reply `message` belongs to changed that are not undone yet."""
        reply = self.reply_of(message)
        if reply is None:
            return []
        try:
            return file_undo().reply_files(self.controller.session.store.connection, *reply)
        except sqlite3.Error:
            return []

    def extend_menu(self, menu: QMenu, index: QModelIndex) -> None:
        message = index.data(TranscriptModel.MessageRole)
        if message is None or not self.files_of(message):
            return
        menu.addSeparator()
        action = menu.addAction(self.tr("Undo file changes…"), lambda: self.undo(message))
        action.setToolTip(self.tr("Put the files this reply changed back as they were before it"))
        action.setEnabled(not self.controller.busy)

    def undo(self, message: Message) -> bool:
        """Ask, then put back the files the reply changed; False when nothing was undone (why is said)."""
        reply = self.reply_of(message)
        if reply is None:
            return False
        if self.controller.busy:
            self._say(self.tr("Wait until the reply is written to undo its file changes."))
            return False
        db = self.controller.session.store.connection
        try:
            files = file_undo().check_undoable(db, *reply)
            if not self.confirm(files):
                return False
            result = file_undo().undo_reply(db, *reply)
        except file_undo().NothingToUndoError:
            self._say(self.tr("This reply has no file changes left to undo."))
            return False
        except file_undo().ChangedSinceError as exc:
            self.show_changed_since(exc)
            return False
        except (OSError, sqlite3.Error) as exc:
            self.controller.sig_error.emit(self.tr("Could not undo every file change: {error}. The files put back before "
                                                   "it stay so; undo again to go on.").format(error=exc))
            return False
        count = len(result.restored)
        said = self.tr("Undid this reply's change to 1 file.") if count == 1 else \
            self.tr("Undid this reply's changes to %n files.", "", count)
        if result.not_restored:
            said += " " + self.tr("Left as they are (too large to have been kept): {names}").format(
                names=", ".join(file.shown for file in result.not_restored))
        self._say(said)
        return True

    def confirm(self, files: list[ChangedFile]) -> bool:
        """Asks before the files are put back, listing each and what happens to it."""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Undo file changes"),
                          self.tr("Put back the files this reply changed, as they were before it?"),
                          QMessageBox.StandardButton.Cancel, self.window)
        box.setObjectName("undoFileChangesBox")
        box.setInformativeText("\n".join(f"• {file.shown} — {self._fate(file)}" for file in files))
        box.setTextFormat(Qt.TextFormat.PlainText)
        undo = box.addButton(self.tr("Undo changes"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is undo

    def show_changed_since(self, error: ChangedSinceError) -> ChangedSinceDialog:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
        self.dialog = ChangedSinceDialog(error, self.window)
        self.dialog.open()  # window-modal, without blocking
        return self.dialog

    def _fate(self, file: ChangedFile) -> str:
        if file.created:
            return self.tr("removed (the reply created it)")
        if not file.restorable:
            return self.tr("left as it is (too large to have been kept)")
        return self.tr("put back as it was")

    def _say(self, text: str) -> None:
        self.window.statusBar().showMessage(text, NEWS_MS)
