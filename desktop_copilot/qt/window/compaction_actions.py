"""Compaction from the window: Compact now (the header's Conversation menu, and the RecoveryBar after an overflow, where
the reply is asked for again), Undo compaction (a marker in the transcript), New chat from a summary (opened once
made), the link back from such a chat, and what each did in the status bar. Each runs through
ChatController.start_run as the one run, its events on the one stream."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow

from desktop_copilot.core.chat import NothingToDoError
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Compaction, Conversation
from desktop_copilot.qt.transcript.parts.compaction import marker_text

NEWS_MS = 8000
"""How long the status bar says what a compaction did."""


class CompactionActions(QObject):
    """The window's compaction commands; `action` is "Compact now" (disabled while a reply is written)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.action = QAction(self.tr("Compact now"), self, objectName="compactNowAction")
        self.action.setToolTip(self.tr("Summarise the older messages so requests send the summary instead; "
                                       "the messages stay, and Undo compaction restores them"))
        self.action.triggered.connect(lambda: self.compact_now())
        window.view.sig_undo_compaction.connect(self.undo)
        window.view.sig_open_conversation.connect(self.open_conversation)
        window.recovery.sig_compact_requested.connect(lambda: self.compact_now(then_retry=True))
        window.recovery.sig_summary_chat_requested.connect(self.new_chat_from_summary)
        self.controller.sig_busy_changed.connect(lambda _busy: self.refresh())  # the window's refresh_header calls it too
        self.refresh()

    def refresh(self) -> None:
        self.action.setEnabled(not self.controller.busy and bool(self.controller.session.conversation.messages))

    # --- commands ----------------------------------------------------------------------

    def compact_now(self, *, then_retry: bool = False) -> bool:
        """Compact the older turns (all but the last few, what was undone included); `then_retry`: after an overflow,
        where all but the current turn may go, ask again for the failed reply once it is done. False while a run is in
        progress."""
        session = self.controller.session

        async def run(emit, confirm_loop) -> None:
            made = await session.compact_now(emit, after_overflow=then_retry)
            self._say(self._compacted_words(made))
            if made is not None and then_retry:
                await session.regenerate(emit, confirm_loop)

        started = self.controller.start_run(run)
        if started:
            self.window.statusBar().showMessage(self.tr("Compacting the conversation…"))
        return started

    def undo(self, compaction_id: str) -> bool:
        """Send a compaction's messages whole again; the marker follows the event. False while a reply is written
        (the banner says so) or when the compaction is no longer in effect."""
        controller = self.controller
        if controller.busy:
            self.window.statusBar().showMessage(self.tr("Wait until the reply is written to undo a compaction."), NEWS_MS)
            return False
        try:
            controller.session.undo_compaction(compaction_id, controller.on_event)
        except NothingToDoError as exc:
            controller.sig_error.emit(str(exc))
            return False
        self.window.statusBar().showMessage(self.tr("Compaction undone: those messages are sent whole again."), NEWS_MS)
        return True

    def new_chat_from_summary(self) -> bool:
        """Make a new conversation that starts from a summary of this one, and open it once it is made."""
        controller = self.controller
        session = controller.session

        async def run(emit, _confirm_loop) -> None:
            from desktop_copilot.core.context.summary import SummaryFailedError  # compaction's modules load at first use

            def here(event: ev.Event) -> None:
                if not isinstance(event, ev.MessageCreated | ev.HistoryChanged):  # nothing of the new chat shows here
                    emit(event)

            try:
                made = await session.new_chat_from_summary(here)
            except SummaryFailedError as exc:
                controller.sig_error.emit(self.tr("No summary could be made: {error}").format(error=exc))
                return
            QTimer.singleShot(0, self, lambda: self.open_made(made))  # once this run has ended

        started = controller.start_run(run)
        if started:
            self.window.statusBar().showMessage(self.tr("Writing a summary for the new chat…"))
        return started

    def open_made(self, conversation: Conversation) -> bool:
        """Show a conversation made here (a new chat from a summary) and put it in the conversation list."""
        history = getattr(self.window, "history", None)
        if history is None:
            return self.controller.set_conversation(conversation)
        opened = history.open(conversation.id) if self.controller.session.store is not None else False
        if not opened and not self.controller.set_conversation(conversation):
            return False
        history.sync_current()
        self.window.view.follow()
        self.window.composer.focus()
        return True

    def open_conversation(self, conversation_id: str) -> bool:
        """Open a stored conversation (the original of a summary chat)."""
        history = getattr(self.window, "history", None)
        return history.open(conversation_id) if history is not None else False

    # --- words -------------------------------------------------------------------------

    def _compacted_words(self, made: Compaction | None) -> str:
        if made is None:
            return self.tr("Nothing to compact: only the last turns, which are always sent whole, are left.")
        return marker_text((made.id, made.kind, made.messages, made.tokens_before, made.tokens_after, False, False))

    def _say(self, words: str) -> None:
        """Put `words` in the status bar once the run has ended (the window clears it when a run ends)."""
        QTimer.singleShot(0, self, lambda: self.window.statusBar().showMessage(words, NEWS_MS))
