"""Recovery of a reply that did not finish (cut off by a crash or a dropped connection, or failed): a bar
above the composer offers Retry and Continue, run through ChatController.start_run as ordinary runs."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.models import Conversation, Message, MessageStatus, Role
from desktop_copilot.qt.controller import ChatController
from desktop_copilot.qt.theme import DEFAULT_THEME, Theme

RECOVERABLE = (MessageStatus.INTERRUPTED, MessageStatus.FAILED)
SESSION_METHODS = {"retry": "retry_last", "continue": "continue_reply"}
"""Recovery action → the ChatSession coroutine method `(emit, confirm_loop) -> RunFinished` that runs it."""


def unfinished_reply(conversation: Conversation) -> Message | None:
    """The conversation's last message when it is an assistant reply that was interrupted or failed."""
    last = conversation.messages[-1] if conversation.messages else None
    if last is not None and last.role is Role.ASSISTANT and last.status in RECOVERABLE:
        return last
    return None


def supported_actions(session) -> list[str]:
    return [action for action, method in SESSION_METHODS.items() if hasattr(session, method)]


def start_recovery(controller: ChatController, action: str) -> bool:
    """Run `action` ("retry" or "continue") on the open conversation; False when it cannot start."""
    session = controller.session
    method = getattr(session, SESSION_METHODS[action], None)
    if method is None or unfinished_reply(session.conversation) is None:
        return False
    model = controller.model

    def run(emit, confirm_loop):
        resynced = False

        def forward(event) -> None:
            nonlocal resynced
            if not resynced:  # the session may have dropped or replaced messages: show what it holds now
                resynced = True
                model.set_messages(session.conversation.messages)
            emit(event)

        return method(forward, confirm_loop)

    return controller.start_run(run)


def recovery_style_sheet(theme: Theme) -> str:
    return f"""
        QFrame#recoveryBar {{ background: {theme.card}; border: 1px solid {theme.border}; border-radius: 10px; }}
        QLabel#recoveryTitle {{ color: {theme.text}; font-weight: 600; background: transparent; border: none; }}
        QLabel#recoveryDetail {{ color: {theme.muted}; font-size: 9pt; background: transparent; border: none; }}
        QPushButton#retryButton, QPushButton#continueButton {{
            border-radius: 8px; padding: 5px 14px; font-weight: 600;
        }}
        QPushButton#retryButton {{ color: {theme.text}; background: {theme.user_bubble}; border: 1px solid {theme.border}; }}
        QPushButton#retryButton:hover {{ background: {theme.row_selected}; }}
        QPushButton#continueButton {{ color: white; background: {theme.accent}; border: none; }}
        QPushButton#continueButton:hover {{ background: #b5573a; }}
    """


class RecoveryBar(QFrame):
    """Shown while the open conversation ends with an unfinished reply and no run is in progress."""

    sig_started = Signal(str)
    """A recovery run started: "retry" or "continue"."""

    def __init__(self, controller: ChatController, parent: QWidget | None = None, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent, objectName="recoveryBar")
        self.controller = controller
        self.setStyleSheet(recovery_style_sheet(theme))
        self.title = QLabel(objectName="recoveryTitle")
        self.detail = QLabel(objectName="recoveryDetail")
        self.detail.setWordWrap(True)
        self.retry_button = QPushButton("Retry", objectName="retryButton")
        self.retry_button.setToolTip("Ask again for this reply; the interrupted text stays stored")
        self.continue_button = QPushButton("Continue", objectName="continueButton")
        self.continue_button.setToolTip("Let Claude carry on from where the reply stopped")
        for button, action in ((self.retry_button, "retry"), (self.continue_button, "continue")):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _checked=False, a=action: self.start(a))
        text = QVBoxLayout()
        text.setSpacing(1)
        text.addWidget(self.title)
        text.addWidget(self.detail)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 8, 10, 8)
        row.setSpacing(8)
        row.addLayout(text, 1)
        row.addWidget(self.retry_button)
        row.addWidget(self.continue_button)
        controller.sig_busy_changed.connect(lambda _busy: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        session = self.controller.session
        reply = None if self.controller.busy else unfinished_reply(session.conversation)
        actions = supported_actions(session)
        if reply is None or not actions:
            self.hide()
            return
        interrupted = reply.status is MessageStatus.INTERRUPTED
        self.title.setText("This reply was interrupted." if interrupted else "This reply failed.")
        self.detail.setText(f"{reply.error or ''} The text received so far is kept.".strip())
        self.retry_button.setVisible("retry" in actions)
        self.continue_button.setVisible("continue" in actions and bool(reply.blocks))
        self.show()

    def start(self, action: str) -> bool:
        started = start_recovery(self.controller, action)
        if started:
            self.hide()
            self.sig_started.emit(action)
        return started
