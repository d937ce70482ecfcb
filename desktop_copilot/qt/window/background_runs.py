"""What the window does for conversations that run while another is shown: the status bar's list of every tool call
waiting for approval (choosing one opens its conversation at the card), the desktop's attention when one needs
approval, and a notification when a reply finishes or needs approval elsewhere (a click opens that conversation)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu, QToolButton

from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.qt.history.conversation_list_model import UNTITLED
from desktop_copilot.qt.transcript.message_jump import jump_to_message

SILENT_OUTCOMES = ("stopped",)
"""A run the user stopped ends without a notification."""

if TYPE_CHECKING:  # made at the first notification
    from desktop_copilot.qt.window.notifications import DesktopNotifier


def notifications_on(window: QMainWindow) -> bool:
    """Settings ▸ Models ▸ Interface ▸ Desktop notifications (on unless turned off)."""
    settings = getattr(window.controller.session.runtime, "settings", None)
    return settings is None or getattr(settings, "desktop_notifications", True)


class ApprovalsIndicator(QToolButton):
    """"⏸ 2 waiting for approval" in the status bar while calls wait in any conversation; its menu lists each call."""

    def __init__(self, runs: BackgroundRuns) -> None:
        super().__init__(objectName="approvalsIndicator")
        self.runs = runs
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setAutoRaise(True)
        self.setMenu(QMenu(self))
        self.menu().aboutToShow.connect(self._fill_menu)
        self.hide()

    def refresh(self) -> None:
        waiting = self.runs.controller.approvals.waiting_requests()
        self.setVisible(bool(waiting))
        self.setText(self.tr("⏸ %n waiting for approval", "", len(waiting)))
        self.setToolTip(self.tr("Tool calls waiting for your approval, in every conversation: choose one to answer it"))

    def _fill_menu(self) -> None:
        menu = self.menu()
        menu.clear()
        for conversation_id, request in self.runs.controller.approvals.waiting_requests():
            title = self.runs.title_of(conversation_id)
            action = menu.addAction(self.tr("{title}: {tool}").format(title=title, tool=request.shown_name or request.tool_name))
            action.setData((conversation_id, request.tool_call_id))
            action.triggered.connect(lambda _checked=False, c=conversation_id, t=request.tool_call_id: self.runs.open_call(c, t))


class BackgroundRuns(QObject):
    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.indicator = ApprovalsIndicator(self)
        window.statusBar().addPermanentWidget(self.indicator)
        self._notifier: DesktopNotifier | None = None
        self.controller.sig_runs_changed.connect(lambda _conversation: self.indicator.refresh())
        self.controller.sig_background_news.connect(self._on_background_news)
        self.controller.sig_run_finished.connect(self._on_shown_run_finished)

    def title_of(self, conversation_id: str) -> str:
        conversation = next((c for c in self.controller.running_conversations() if c.id == conversation_id), None)
        if conversation is None and self.controller.session.conversation.id == conversation_id:
            conversation = self.controller.session.conversation
        title = conversation.title if conversation is not None else ""
        return title or QApplication.translate("ConversationList", UNTITLED)

    # --- news ----------------------------------------------------------------------------

    def _on_background_news(self, conversation: Conversation, kind: str, detail: str) -> None:
        title = conversation.title or QApplication.translate("ConversationList", UNTITLED)
        if kind == "approval":
            QApplication.alert(self.window)
            count = int(detail or 1)
            self._notify(conversation.id, self.tr("Approval needed: {title}").format(title=title),
                         self.tr("%n tool call(s) wait for your approval.", "", count))
        elif kind not in SILENT_OUTCOMES:
            self._notify(conversation.id, title, self._outcome_words(kind, conversation))

    def _on_shown_run_finished(self, outcome: str, _detail: str) -> None:
        """The conversation shown finished while the window was in the background: the desktop says so too."""
        if outcome in SILENT_OUTCOMES or self.window.isActiveWindow():
            return
        conversation = self.controller.session.conversation
        self._notify(conversation.id, conversation.title or QApplication.translate("ConversationList", UNTITLED),
                     self._outcome_words(outcome, conversation))

    def _outcome_words(self, outcome: str, conversation: Conversation) -> str:
        if outcome == "completed":
            reply = conversation.messages[-1].text.strip() if conversation.messages else ""
            return (reply[:140] + "…") if len(reply) > 140 else reply or self.tr("The reply is ready.")
        return self.tr("The reply ended early ({outcome}).").format(outcome=outcome)

    @property
    def notifier(self) -> DesktopNotifier:
        """The desktop's notifications, made at the first one (an idle window holds no bus connection)."""
        if self._notifier is None:
            from desktop_copilot.qt.window.notifications import DesktopNotifier

            self._notifier = DesktopNotifier(self)
            self._notifier.sig_clicked.connect(self.open_conversation)
        return self._notifier

    def _notify(self, conversation_id: str, summary: str, body: str) -> None:
        if notifications_on(self.window):
            self.notifier.notify(conversation_id, summary, body)

    # --- going there ---------------------------------------------------------------------

    def open_conversation(self, conversation_id: str) -> bool:
        """Bring the window up and show the conversation (a notification was clicked)."""
        window = self.window
        if window.isMinimized():
            window.showNormal()
        window.raise_()
        window.activateWindow()
        return window.history.open(conversation_id)

    def open_call(self, conversation_id: str, tool_call_id: str) -> bool:
        """Show the conversation with the card of the waiting call `tool_call_id` in view."""
        if not self.open_conversation(conversation_id):
            return False
        message = next((m for m in reversed(self.controller.session.conversation.messages)
                        if any(call.id == tool_call_id for call in m.tool_calls)), None)
        if message is None:
            return False
        return jump_to_message(self.window.view, message.id)

    async def aclose(self) -> None:
        if self._notifier is not None:
            await self._notifier.aclose()
