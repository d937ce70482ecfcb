"""Edit and resend, and regenerate, in the main window.

- Regenerate: the context menu of the last reply ("Regenerate reply") or Ctrl+Shift+R run
  ChatSession.regenerate through ChatController.start_run.
- Edit: "Edit and resend…" on a user message puts its text in the composer in edit mode (a bar above
  it; Esc cancels and gives the previous draft back). Edit mode is a state the window consults when it
  sends (`MainWindow.send` calls `resend`); it ends when the edited message is sent, or when that
  message leaves the transcript.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QModelIndex, QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QMenu, QPushButton, QWidget

from desktop_copilot.core.conversation.models import Message, Role
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.common.theme_switch import themed_style_sheet
from desktop_copilot.qt.transcript.model import TranscriptModel

REGENERATE_SHORTCUT = "Ctrl+Shift+R"
EDIT_BANNER = QT_TRANSLATE_NOOP("EditBar", "Editing a message — Esc to cancel")


@themed_style_sheet
def edit_bar_style_sheet(theme: Theme) -> str:
    return f"""
        QFrame#editBar {{ background: {theme.card}; border: 1px solid {theme.border}; border-radius: 10px; }}
        QLabel#editBarText {{ color: {theme.muted}; background: transparent; border: none; }}
        QPushButton#cancelEditButton {{ color: {theme.text}; background: {theme.user_bubble};
            border: 1px solid {theme.border}; border-radius: 8px; padding: 3px 12px; }}
        QPushButton#cancelEditButton:hover {{ background: {theme.row_selected}; }}
    """


class EditBar(QFrame):
    """Shown above the composer while it holds the new text of an earlier message."""

    def __init__(self, parent: QWidget | None = None, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent, objectName="editBar")
        self.setStyleSheet(edit_bar_style_sheet(theme))
        self.text = PlainLabel(self.tr(EDIT_BANNER), objectName="editBarText")
        self.cancel_button = QPushButton(self.tr("Cancel"), objectName="cancelEditButton")
        self.cancel_button.setCursor(Qt.CursorShape.PointingHandCursor)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 5, 8, 5)
        row.addWidget(self.text, 1)
        row.addWidget(self.cancel_button)
        self.hide()


class ReplyActions(QObject):
    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.model: TranscriptModel = window.controller.model
        self.composer = window.composer
        self.bar = EditBar()
        self.editing: tuple[str, str] | None = None
        """(conversation id, message id) of the message being edited."""
        self.draft = ""
        """The composer's text before edit mode, given back when it ends."""
        self._resending = False
        """The edited text was handed to a run that has not appended it yet."""
        window.view.menu_extenders.append(self.extend_menu)
        self.bar.cancel_button.clicked.connect(self.cancel_edit)
        self.composer.edit.sig_escape.connect(self._escape)
        self.controller.sig_user_message_sent.connect(self._on_sent)
        self.controller.sig_send_rejected.connect(self._on_rejected)
        self.model.modelReset.connect(self._end_if_gone)
        self.model.rowsRemoved.connect(self._end_if_gone)
        self.shortcut = QShortcut(QKeySequence(REGENERATE_SHORTCUT), window)
        self.shortcut.activated.connect(self.regenerate)

    @property
    def session(self):
        return self.controller.session

    # --- regenerate --------------------------------------------------------------------

    def can_regenerate(self, message: Message) -> bool:
        """`message` is part of the last reply (no user message after it)."""
        messages = self.session.conversation.messages
        ids = [m.id for m in messages]
        if message.role is not Role.ASSISTANT or message.id not in ids:
            return False
        return all(m.role is not Role.USER for m in messages[ids.index(message.id):])

    def regenerate(self) -> bool:
        """Replace the last reply with a new one (the old one becomes an earlier version)."""
        if self.controller.busy or self.editing:
            return False
        return self._start(self.session.regenerate)

    # --- edit and resend ---------------------------------------------------------------

    def start_edit(self, message: Message) -> bool:
        """Put `message`'s text in the composer; the next send replaces it (see `resend`)."""
        if self.controller.busy or message.role is not Role.USER:
            return False
        if self.editing is None:
            self.draft = self.composer.text()
        self.editing = (self.session.conversation.id, message.id)
        self.composer.set_text(message.text)
        self.bar.show()
        self.composer.focus()
        return True

    def cancel_edit(self) -> bool:
        if self.editing is None:
            return False
        self._end_edit()
        self.composer.set_text(self.draft)
        self.draft = ""
        self.composer.focus()
        return True

    def resend(self, text: str) -> bool:
        """Send `text` in place of the message being edited (ChatSession.edit). Edit mode ends when the new
        message is in the conversation; if the send is refused, the composer is still in edit mode."""
        if self.editing is None:
            return False
        _conversation_id, message_id = self.editing
        session = self.session
        started = self._start(lambda emit, confirm: session.edit(message_id, text, emit, confirm), give_back=text)
        if started:
            self._resending = True
            self.bar.hide()
        return started

    def _on_sent(self, _text: str) -> None:
        if not self._resending:
            return
        self._resending = False
        self._end_edit()
        self.composer.set_text(self.draft)
        self.draft = ""

    def _on_rejected(self, _text: str) -> None:
        if self._resending:
            self._resending = False
            self.bar.show()

    def _end_edit(self) -> None:
        self.editing = None
        self.bar.hide()

    def _end_if_gone(self, *_args) -> None:
        """The edited message left the transcript (another conversation, an earlier version): edit mode ends."""
        if self.editing is None or self._resending:
            return
        conversation_id, message_id = self.editing
        if conversation_id != self.session.conversation.id or self.model.row_of(message_id) is None:
            self.cancel_edit()

    def _start(self, run, give_back: str = "") -> bool:
        self.window.banner.dismiss()
        if not self.controller.start_run(run, give_back=give_back):
            return False
        self.window.view.follow()
        return True

    def _escape(self) -> None:
        if not self.controller.busy:
            self.cancel_edit()

    # --- context menu ------------------------------------------------------------------

    def extend_menu(self, menu: QMenu, index: QModelIndex) -> None:
        message = index.data(TranscriptModel.MessageRole)
        if message is None:
            return
        idle = not self.controller.busy
        menu.addSeparator()
        if message.role is Role.USER:
            action = menu.addAction(self.tr("Edit and resend…"), lambda: self.start_edit(message))
            action.setEnabled(idle)
        elif self.can_regenerate(message):
            action = menu.addAction(self.tr("Regenerate reply"), self.regenerate)
            action.setShortcut(QKeySequence(REGENERATE_SHORTCUT))
            action.setEnabled(idle and self.editing is None)
