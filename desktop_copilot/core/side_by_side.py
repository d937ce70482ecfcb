"""One prompt answered by several models at once ("Ask several models"): the first model's answer is the conversation's
reply; each other one streams beside it on its own copy of the history and is kept, as it streams, as an earlier
version of that reply. Each answer can be stopped on its own. Picking one makes it the reply the conversation goes on
from (with its provider and model); the others stay as versions, so the history sent next holds only the picked one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from desktop_copilot.core.agent.loop import AgentLoop, ConfirmLoop, Emit
from desktop_copilot.core.chat import ChatSession, NothingToDoError
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.providers.attachment_limits import Attachment
from desktop_copilot.core.runtime import RunResources
from desktop_copilot.core.storage.recorder import StoreRecorder
from desktop_copilot.core.storage.tail_recorder import TailRecorder
from desktop_copilot.core.words import tr

MIN_MODELS, MAX_MODELS = 2, 4


@dataclass(frozen=True, slots=True)
class ModelChoice:
    provider_id: str
    model: str

    @classmethod
    def parse(cls, text: str) -> ModelChoice:
        """"provider/model" (the model may hold slashes itself)."""
        provider, _, model = text.partition("/")
        if not provider or not model:
            raise ValueError(f"{text!r} is not provider/model")
        return cls(provider, model)

    def __str__(self) -> str:
        return f"{self.provider_id}/{self.model}"


@dataclass(slots=True)
class Column:
    """One model's answer in the turn."""

    choice: ModelChoice
    messages: list[Message] = field(default_factory=list)
    """The history up to the user's message, then this answer's messages (its tool rounds too)."""
    tail_id: str | None = None
    """Its earlier version in the store; None while it is the conversation's reply."""
    outcome: ev.RunOutcome | None = None
    """How its run ended (None: still running, or not started)."""
    detail: str = ""
    task: asyncio.Task | None = None

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()


class SideBySide:
    """A turn answered by 2 to 4 models of `session`'s conversation. ValueError when the choices are not 2–4
    different models."""

    def __init__(self, session: ChatSession, choices: Sequence[ModelChoice]) -> None:
        if not MIN_MODELS <= len(choices) <= MAX_MODELS or len(set(choices)) != len(choices):
            raise ValueError(f"choose {MIN_MODELS} to {MAX_MODELS} different models")
        self.session = session
        self.columns = [Column(choice) for choice in choices]
        self.anchor = -1
        """Where the answers stand in the conversation (after the user's message); -1 until it is sent."""
        self.picked = 0
        """The column whose answer is the conversation's reply."""

    @property
    def running(self) -> bool:
        return any(column.running for column in self.columns)

    def answer(self, index: int) -> list[Message]:
        """The messages of column `index`'s answer (empty before it began)."""
        return self.columns[index].messages[self.anchor:] if self.anchor >= 0 else []

    async def send(self, text: str, emit: Emit, emit_to: Callable[[int], Emit], confirm_loop: ConfirmLoop | None = None,
                   attachments: Sequence[Attachment] = ()) -> list[ev.RunFinished | None]:
        """Append the user's message (told to `emit`) and have every model answer it at once, each column's events
        to `emit_to(index)`; each column's RunFinished (None for one stopped before it began) once all have ended.
        The keys of every provider are read and the attachments checked before anything is stored: MissingKeyError,
        AttachmentError, UnknownProviderError."""
        session, conversation = self.session, self.session.conversation
        runs = [await session.runtime.prepare_run(column.choice.provider_id, session.offered_tools(),
                                                     session.knowledge_sources()) for column in self.columns]
        session.ensure_history()
        for column, run in zip(self.columns, runs):
            session.check_attachments(run.provider_id, attachments, column.choice.model)
        first = self.columns[0].choice
        conversation.provider, conversation.model = runs[0].provider_id, first.model  # the first answers, until one is picked
        created = session.append_user_message(text, attachments)
        recorder = StoreRecorder(session.store, conversation)
        recorder.record(created)
        recorder.flush()
        emit(created)
        self.anchor = len(conversation.messages)
        history = list(conversation.messages)
        for index, column in enumerate(self.columns):
            column.messages = conversation.messages if index == 0 else list(history)
            column.task = asyncio.ensure_future(self._answer(index, runs[index], emit_to(index), confirm_loop))
        try:
            results = await asyncio.gather(*(column.task for column in self.columns), return_exceptions=True)
        except asyncio.CancelledError:  # Stop: every column is cancelled with it, and has marked its answer stopped
            emit(ev.RunFinished(outcome="stopped", detail=tr("Stopped by the user.")))
            raise
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result
        emit(self._overall())
        return [result if isinstance(result, ev.RunFinished) else None for result in results]

    def _overall(self) -> ev.RunFinished:
        """How the turn ended: completed when any answer did, else as the first answer ended (its words)."""
        if any(column.outcome == "completed" for column in self.columns):
            return ev.RunFinished(outcome="completed")
        first = self.columns[0]
        return ev.RunFinished(outcome=first.outcome or "stopped", detail=first.detail)

    def stop(self, index: int) -> bool:
        """Stop column `index`'s answer (what arrived is kept, marked stopped); False when it is not running."""
        column = self.columns[index]
        if not column.running:
            return False
        column.task.cancel()
        return True

    async def _answer(self, index: int, run: RunResources, emit: Emit, confirm_loop: ConfirmLoop | None) -> ev.RunFinished:
        session, column = self.session, self.columns[index]
        conversation = session.conversation
        recorder: StoreRecorder | TailRecorder
        recorder = (StoreRecorder(session.store, conversation) if index == 0
                    else TailRecorder(session.store, conversation.id, self.anchor, column.messages))
        if index:
            column.tail_id = recorder.tail_id

        def forward(event: ev.Event) -> None:
            recorder.record(event)
            if isinstance(event, ev.RunFinished):
                column.outcome, column.detail = event.outcome, event.detail
            emit(event)

        run.tool_context.conversation_id = conversation.id
        hooks = session.runtime.tool_hooks(session.approver, conversation.title)
        loop = AgentLoop(run.provider, run.tools, run.tool_context, session.options(run.provider_id, column.choice.model),
                         forward, confirm_loop, hooks)
        try:
            return await loop.run(column.messages)
        finally:
            if isinstance(recorder, TailRecorder):
                recorder.flush(finished=True)
            else:
                recorder.flush()

    def pick(self, index: int, emit: Emit) -> None:
        """Go on with column `index`'s answer: it becomes the conversation's reply (`emit` gets the HistoryChanged),
        the one it replaces an earlier version, and the conversation talks to its model from the next message on.
        NothingToDoError while an answer is still being written."""
        if self.running:
            raise NothingToDoError(tr("Wait until every answer has ended (or stop them), then pick one."))
        if index == self.picked:
            return self._continue_with(index)
        session, column = self.session, self.columns[index]
        if column.tail_id is None:
            raise NothingToDoError(tr("That model has no answer to continue with."))
        replaced = self.columns[self.picked]
        replaced.messages = list(replaced.messages)  # its own copy: the conversation's list takes the picked answer
        first_ids = {message.id for message in self.answer(self.picked)[:1]}
        session.switch_version(column.tail_id, emit)
        replaced.tail_id = next((tail.id for tail in session.versions(self.anchor)
                                 if tail.messages and tail.messages[0].id in first_ids), None)
        column.tail_id = None
        column.messages = session.conversation.messages
        self.picked = index
        self._continue_with(index)

    def _continue_with(self, index: int) -> None:
        session, choice = self.session, self.columns[index].choice
        conversation = session.conversation
        conversation.provider, conversation.model = session.runtime.spec(choice.provider_id).id, choice.model
        if session.store is not None:
            session.store.save_conversation(conversation)
