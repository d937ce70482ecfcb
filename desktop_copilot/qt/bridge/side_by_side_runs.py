"""The controller's side of "Ask several models": starts a side-by-side turn as the conversation's run, holds each
conversation's turn until one answer is picked (or the next message is sent), and passes the answers' events of the
conversation shown to the columns (qt/side_by_side/); the transcript shows the turn's question, the columns its
answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from desktop_copilot.core.chat import NothingToDoError
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.attachment_limits import Attachment

if TYPE_CHECKING:  # loaded at the first side-by-side turn, not with the window
    from desktop_copilot.core.side_by_side import ModelChoice, SideBySide


class SideBySideRuns(QObject):
    sig_changed = Signal()
    """The turn of the conversation shown began, ended, was picked from, or another conversation is shown."""
    sig_column_event = Signal(int, object)
    """(column, event) of the turn of the conversation shown, after the core updated the answer's messages."""

    def __init__(self, controller: Any) -> None:
        """`controller`: the ChatController that owns this (not imported: it imports this module)."""
        super().__init__(controller)
        self.controller = controller
        self._turns: dict[str, SideBySide] = {}
        """Conversation id -> its side-by-side turn not yet picked from."""

    @property
    def shown(self) -> SideBySide | None:
        """The turn of the conversation shown, while it has one not picked from."""
        return self._turns.get(self.controller.session.conversation.id)

    def of(self, conversation_id: str) -> SideBySide | None:
        return self._turns.get(conversation_id)

    def ask(self, text: str, choices: Sequence[ModelChoice], attachments: Sequence[Attachment] = ()) -> bool:
        """Send `text` (with `attachments`) to every model of `choices` at once in the conversation shown; False
        (sig_error says why) when the choices are not 2–4 different models or a reply is being written."""
        controller = self.controller
        text, attachments = text.strip(), list(attachments)
        if not text and not attachments:
            return False
        from desktop_copilot.core.side_by_side import SideBySide

        try:
            turn = SideBySide(controller.session, choices)
        except ValueError:
            controller.sig_error.emit(self.tr("Choose two to four different models to ask."))
            return False
        conversation_id = controller.session.conversation.id

        def column_emit(index: int):
            return lambda event: self._column_event(conversation_id, index, event)

        def run(emit, confirm):
            return turn.send(text, emit, column_emit, confirm, attachments)

        if not controller.start_run(run, give_back=text):
            return False
        self._turns[conversation_id] = turn  # before the run's first step: start_run only scheduled it
        self.sig_changed.emit()
        return True

    def stop(self, index: int) -> bool:
        """Stop one answer of the turn shown (what arrived is kept, marked stopped)."""
        turn = self.shown
        return turn is not None and turn.stop(index)

    def pick(self, index: int) -> bool:
        """Go on with answer `index` of the turn shown: it becomes the reply in the transcript (the others stay as
        its versions) and the conversation talks to its model from the next message on."""
        controller, turn = self.controller, self.shown
        if turn is None:
            return False
        try:
            turn.pick(index, lambda _event: None)  # the transcript is given the picked answer below
        except NothingToDoError as exc:
            controller.sig_error.emit(str(exc))
            return False
        self._turns.pop(controller.session.conversation.id, None)
        self._show_reply(turn)
        controller.tell_usage()
        controller.sig_model_changed.emit()
        self.sig_changed.emit()
        return True

    def settle(self, conversation_id: str) -> None:
        """The conversation goes on without a pick (a new message, a regeneration): the answer that is its reply shows
        in the transcript again, and the columns close."""
        turn = self._turns.pop(conversation_id, None)
        if turn is None:
            return
        if conversation_id == self.controller.session.conversation.id and turn.anchor >= 0:
            self._show_reply(turn)
        self.sig_changed.emit()

    def _show_reply(self, turn: SideBySide) -> None:
        """The transcript of the conversation shown goes on from `turn`'s question with the reply it holds now."""
        controller = self.controller
        controller.flush()
        controller.model.replace_from(turn.anchor, list(controller.session.conversation.messages[turn.anchor:]))

    def forget(self, conversation_id: str) -> None:
        """The conversation was deleted."""
        self._turns.pop(conversation_id, None)

    def hide_answers(self) -> None:
        """The conversation shown has a turn: its transcript ends with the question (the columns show the answers)."""
        turn = self.shown
        if turn is not None and turn.anchor >= 0:
            self.controller.model.replace_from(turn.anchor, [])

    def _column_event(self, conversation_id: str, index: int, event: ev.Event) -> None:
        if conversation_id == self.controller.session.conversation.id:
            self.sig_column_event.emit(index, event)
