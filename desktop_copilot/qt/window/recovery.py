"""The bar above the composer for a last reply that is not a whole answer: interrupted or failed (Retry,
Continue), failed because the conversation no longer fits the model's context window (Compact now, New chat from a
summary, Retry), cut off at the output limit (Continue) or refused (Edit and resend). It is derived from the
stored message each time, so it is back when the conversation is reopened; Retry and Continue run through
ChatController.start_run as ordinary runs."""

from __future__ import annotations

import re
from collections.abc import Collection

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.config.app_config import model_output_cap
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Role
from desktop_copilot.qt.bridge.controller import ChatController
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.common.theme_switch import themed_style_sheet

RECOVERABLE = (MessageStatus.INTERRUPTED, MessageStatus.FAILED)
CUT_OFF, REFUSED = "max_tokens", "refusal"
"""Stop reasons of a completed reply that still needs a notice."""
OVERFLOW = "overflow"
"""A failed reply whose request was larger than the model's context window."""
OVERFLOW_ERROR = re.compile(r"(too long for|longer than) the model's context window")
"""The app's own words for such a failure (core/context: overflow.py, compaction.py), which the stored reply keeps:
how a reopened conversation still knows (the Error event's `overflow` is not stored)."""
SESSION_METHODS = {"retry": "regenerate", "continue": "continue_reply"}
"""Recovery action → the ChatSession coroutine method `(emit, confirm_loop) -> RunFinished` that runs it."""
NOTICE_ACTIONS = {
    MessageStatus.INTERRUPTED.value: ("retry", "continue"),
    MessageStatus.FAILED.value: ("retry", "continue"),
    CUT_OFF: ("continue",),
    REFUSED: ("edit",),
    OVERFLOW: ("compact", "summary", "retry"),
}
"""Kind of notice → what the bar offers ("edit": edit and resend the user message the reply answered)."""


def notice_kind(message: Message, overflowed: Collection[str] = ()) -> str | None:
    """"interrupted", "failed", "overflow" (failed: larger than the context window; `overflowed`: the replies the
    stream said so of), "max_tokens" (cut off) or "refusal" for an assistant reply that needs a notice."""
    if message.role is not Role.ASSISTANT:
        return None
    if message.status is MessageStatus.FAILED and (message.id in overflowed or OVERFLOW_ERROR.search(message.error or "")):
        return OVERFLOW
    if message.status in RECOVERABLE:
        return message.status.value
    if message.status is MessageStatus.COMPLETED and message.stop_reason in (CUT_OFF, REFUSED):
        return message.stop_reason
    return None


def noticed_reply(conversation: Conversation) -> Message | None:
    """The conversation's last message when it is a reply that needs a notice."""
    last = conversation.messages[-1] if conversation.messages else None
    return last if last is not None and notice_kind(last) else None


def answered_message(conversation: Conversation) -> Message | None:
    """The last user message: the one a reply at the end of the conversation answers."""
    return next((m for m in reversed(conversation.messages) if m.role is Role.USER), None)


def start_recovery(controller: ChatController, action: str) -> bool:
    """Run `action` ("retry" or "continue") on the open conversation; False when its last reply does not
    offer that action or a run is in progress."""
    session = controller.session
    method = getattr(session, SESSION_METHODS[action])
    reply = noticed_reply(session.conversation)
    if reply is None or action not in NOTICE_ACTIONS[notice_kind(reply, controller.overflowed)]:
        return False
    return controller.start_run(method)


def notice_words(kind: str, reply: Message, session) -> tuple[str, str]:
    """(title, detail) the bar shows for a reply with a notice of `kind`. The reply's own error (why it failed, was
    interrupted or declined) is not repeated: the transcript shows it once, marked, under the reply; the bar says
    what is kept and what its buttons do."""
    if kind == CUT_OFF:
        model = reply.model or session.conversation.model or session.runtime.config.model
        limit = session.runtime.config.limit_reached(model, reply.usage.output_tokens)
        cap = model_output_cap(model)
        more = (QCoreApplication.translate("RecoveryBar", "{model} writes at most {cap:,} tokens per reply.").format(model=model, cap=cap)
                if cap is not None and limit >= cap
                else QCoreApplication.translate("RecoveryBar", "A higher limit can be set in Settings ▸ Models."))
        return (QCoreApplication.translate("RecoveryBar", "This reply was cut off at the output limit of {limit:,} tokens.").format(limit=limit),
                QCoreApplication.translate("RecoveryBar", "Continue lets the model carry on where it stopped.") + " " + more)
    if kind == OVERFLOW:
        return (QCoreApplication.translate("RecoveryBar", "This conversation no longer fits the model's context window."),
                QCoreApplication.translate("RecoveryBar", "Compact now summarises the older messages and asks again; a new chat "
                                           "can start from a summary of this one. Every message is kept."))
    if kind == REFUSED:
        return (QCoreApplication.translate("RecoveryBar", "This request was declined."),
                QCoreApplication.translate("RecoveryBar", "Edit and resend puts your message back in the composer to rephrase it."))
    title = (QCoreApplication.translate("RecoveryBar", "This reply was interrupted.") if kind == MessageStatus.INTERRUPTED.value
             else QCoreApplication.translate("RecoveryBar", "This reply failed."))
    if reply.blocks:
        return title, QCoreApplication.translate("RecoveryBar", "The text received so far is kept.")
    return title, QCoreApplication.translate("RecoveryBar", "Nothing of the reply arrived; Retry asks again.")


@themed_style_sheet
def recovery_style_sheet(theme: Theme) -> str:
    return f"""
        QFrame#recoveryBar {{ background: {theme.card}; border: 1px solid {theme.border}; border-radius: 10px; }}
        QLabel#recoveryTitle {{ color: {theme.text}; font-weight: 600; background: transparent; border: none; }}
        QLabel#recoveryDetail {{ color: {theme.muted}; font-size: 9pt; background: transparent; border: none; }}
        QPushButton#retryButton, QPushButton#continueButton, QPushButton#editResendButton, QPushButton#compactButton,
        QPushButton#summaryChatButton {{
            border-radius: 8px; padding: 5px 14px; font-weight: 600;
        }}
        QPushButton#retryButton, QPushButton#summaryChatButton {{
            color: {theme.text}; background: {theme.user_bubble}; border: 1px solid {theme.border};
        }}
        QPushButton#retryButton:hover, QPushButton#summaryChatButton:hover {{ background: {theme.row_selected}; }}
        QPushButton#continueButton, QPushButton#editResendButton, QPushButton#compactButton {{
            color: white; background: {theme.accent}; border: none;
        }}
        QPushButton#continueButton:hover, QPushButton#editResendButton:hover, QPushButton#compactButton:hover {{
            background: {theme.accent_hover};
        }}
    """


class RecoveryBar(QFrame):
    """Shown while the open conversation ends with a reply that needs a notice and no run is in progress."""

    sig_started = Signal(str)
    """A recovery run started: "retry", "continue", "compact" or "summary"."""
    sig_edit_requested = Signal(object)
    """Edit and resend was clicked for a refused reply: the user Message it answered (VersionsUI edits it)."""
    sig_compact_requested = Signal()
    """Compact now was clicked after an overflow (the window's CompactionActions compacts, then asks again)."""
    sig_summary_chat_requested = Signal()
    """New chat from a summary was clicked after an overflow (CompactionActions makes it and opens it)."""

    def __init__(self, controller: ChatController, parent: QWidget | None = None, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent, objectName="recoveryBar")
        self.controller = controller
        self.kind: str | None = None
        """The notice shown ("interrupted", "failed", "max_tokens", "refusal"), None while hidden."""
        self.setStyleSheet(recovery_style_sheet(theme))
        self.title = PlainLabel(objectName="recoveryTitle")
        self.detail = PlainLabel(objectName="recoveryDetail")
        self.detail.setWordWrap(True)
        self.retry_button = QPushButton(self.tr("Retry"), objectName="retryButton")
        self.retry_button.setToolTip(self.tr("Ask again for this reply; the interrupted text stays stored"))
        self.continue_button = QPushButton(self.tr("Continue"), objectName="continueButton")
        self.continue_button.setToolTip(self.tr("Let the model carry on from where the reply stopped"))
        self.edit_button = QPushButton(self.tr("Edit and resend…"), objectName="editResendButton")
        self.edit_button.setToolTip(self.tr("Put your message back in the composer to rephrase it"))
        self.compact_button = QPushButton(self.tr("Compact now"), objectName="compactButton")
        self.compact_button.setToolTip(self.tr("Summarise the older messages (they stay in the conversation), then ask again"))
        self.summary_button = QPushButton(self.tr("New chat from a summary"), objectName="summaryChatButton")
        self.summary_button.setToolTip(self.tr("Start a new conversation whose first message is a summary of this one"))
        buttons = ((self.compact_button, "compact"), (self.summary_button, "summary"), (self.retry_button, "retry"),
                   (self.continue_button, "continue"), (self.edit_button, "edit"))
        for button, action in buttons:
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
        for button, _action in buttons:
            row.addWidget(button)
        controller.sig_busy_changed.connect(lambda _busy: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        session = self.controller.session
        reply = None if self.controller.busy else noticed_reply(session.conversation)
        self.kind = notice_kind(reply, self.controller.overflowed) if reply is not None else None
        offered = set(NOTICE_ACTIONS.get(self.kind, ()))
        if reply is None or not offered:
            self.kind = None
            self.hide()
            return
        title, detail = notice_words(self.kind, reply, session)
        self.title.setText(title)
        self.detail.setText(detail)
        self.setAccessibleName(title)  # the reason too, for screen readers: the transcript paints it, they cannot read it there
        self.setAccessibleDescription(" ".join(part for part in (reply.error or "", detail) if part))
        self.retry_button.setVisible("retry" in offered)
        self.continue_button.setVisible("continue" in offered and bool(reply.blocks))
        self.edit_button.setVisible("edit" in offered and answered_message(session.conversation) is not None)
        self.compact_button.setVisible("compact" in offered)
        self.summary_button.setVisible("summary" in offered)
        self.show()

    def start(self, action: str) -> bool:
        if action == "edit":
            return self._request_edit()
        if action in ("compact", "summary"):
            if self.kind != OVERFLOW or self.controller.busy:
                return False
            (self.sig_compact_requested if action == "compact" else self.sig_summary_chat_requested).emit()
            started = self.controller.busy  # the window's CompactionActions started its run
            if started:
                self.hide()
                self.sig_started.emit(action)
            return started
        started = start_recovery(self.controller, action)
        if started:
            self.hide()
            self.sig_started.emit(action)
        return started

    def _request_edit(self) -> bool:
        conversation = self.controller.session.conversation
        reply = None if self.controller.busy else noticed_reply(conversation)
        message = answered_message(conversation) if reply is not None and notice_kind(reply) == REFUSED else None
        if message is None:
            return False
        self.sig_edit_requested.emit(message)
        return True
