"""The async bridge between the widgets and the core: owns the ChatSession, runs one send at a time as an
asyncio task (Stop cancels it), coalesces streaming events into at most one model flush per frame,
turns every failure into a visible error instead of letting it reach sys.excepthook, and switches the
conversation's provider and model between runs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.agent.loop import ConfirmLoop, Emit
from desktop_copilot.core.approval.decisions import USER_CHOICES, ApprovalAnswer, ApprovalRequest, Decision
from desktop_copilot.core.content.attachments import AttachmentError
from desktop_copilot.core.chat import ChatSession, NothingToDoError
from desktop_copilot.core.conversation.models import Conversation, Role, Usage
from desktop_copilot.core.providers.attachment_limits import Attachment, AttachmentLimits, limits_for
from desktop_copilot.core.provider_table import UnknownProviderError
from desktop_copilot.core.runtime import MissingKeyError
from desktop_copilot.core.storage.health import StorageProblem, StorageUnavailableError
from desktop_copilot.qt.transcript.model import TranscriptModel, catalog_label

log = logging.getLogger(__name__)

FRAME_MS = 16
"""Deltas are flushed to the model at most once per frame."""


def conversation_usage(conversation: Conversation) -> Usage:
    total = Usage()
    for message in conversation.messages:
        total.input_tokens += message.usage.input_tokens
        total.output_tokens += message.usage.output_tokens
        total.cache_read_tokens += message.usage.cache_read_tokens
        total.cache_write_tokens += message.usage.cache_write_tokens
    return total


class ChatController(QObject):
    sig_busy_changed = Signal(bool)
    sig_error = Signal(str)
    sig_run_finished = Signal(str, str)
    """(outcome, detail) from the loop's RunFinished."""
    sig_usage_changed = Signal(object)
    """The conversation's summed Usage."""
    sig_send_rejected = Signal(str)
    """Nothing was sent (e.g. no API key, or stopped while the keys were read): the text that was not sent."""
    sig_user_message_sent = Signal(str)
    """The user's message is in the conversation (the send was accepted): its text."""
    sig_model_changed = Signal()
    """The conversation talks to another provider or model from its next message on (choose_model)."""
    sig_approval_needed = Signal(int)
    """Tool calls wait for the user's decision on their cards: how many (0: none waits any more)."""
    sig_storage_problem = Signal(object)
    """The database stopped taking writes (a core.storage.health.StorageProblem), or takes them again (None)."""
    sig_context_changed = Signal()
    """What the next request sends changed without a message changing: a compaction made or undone."""

    def __init__(self, session: ChatSession, model: TranscriptModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model = model
        if model.parent() is None:  # dies with the controller (and the window), and with it the handlers the widgets
            model.setParent(self)  # connected to its signals, which would keep the whole window alive (tests/soak)
        self.dialog_parent: QWidget | None = None
        self._task: asyncio.Task | None = None
        self._dirty: dict[str, None] = {}
        self._usage_dirty = False
        self._user_message_sent = False
        self._frame = QTimer(self, singleShot=True, interval=FRAME_MS)
        self._frame.timeout.connect(self.flush)
        self._approvals: dict[str, asyncio.Future[ApprovalAnswer]] = {}
        self.overflowed: set[str] = set()
        """Replies that failed because the request was larger than the model's context window (Error.overflow)."""
        session.approver = self._approve
        model.provider_label = self.provider_label
        model.set_messages(session.conversation.messages, session.conversation.compactions, self.origin_of(session.conversation))
        store = getattr(session, "store", None)  # a session without a store saves nothing (tests' scripted ones)
        self._stop_storage_news = store.health.subscribe(self._storage_changed) if store is not None else lambda: None

    @property
    def storage_problem(self) -> StorageProblem | None:
        """Why the database takes no writes now (the replies wait in memory), or None."""
        store = getattr(self.session, "store", None)
        return store.health.problem if store is not None else None

    def _storage_changed(self, problem: StorageProblem | None) -> None:
        """From the thread whose write failed or succeeded: queued to the window's."""
        try:
            self.sig_storage_problem.emit(problem)
        except RuntimeError:  # the window is gone
            pass

    @property
    def busy(self) -> bool:
        return self._task is not None

    @property
    def provider_id(self) -> str:
        """The provider the conversation's next message goes to."""
        return self.session.provider_id()

    @property
    def model_name(self) -> str:
        """The model the conversation's next message goes to."""
        return self.session.model_for(self.session.provider_id())

    def attachment_limits(self) -> AttachmentLimits | None:
        """What the model the next message goes to takes as attachments (the composer checks files as they are added);
        None when the provider is unknown (the send then says so)."""
        try:
            spec = self.session.runtime.spec(self.provider_id)
        except (UnknownProviderError, AttributeError):
            return None
        return limits_for(spec.id, spec.wire, self.model_name, spec.label)

    def provider_label(self, provider_id: str) -> str:
        """The provider's name ("DeepSeek"), also of an endpoint the user added; its id if it is unknown."""
        runtime = self.session.runtime
        try:
            return runtime.spec(provider_id).label if runtime is not None else catalog_label(provider_id)
        except UnknownProviderError:  # e.g. an endpoint removed since
            return provider_id

    def choose_model(self, provider_id: str, model: str) -> bool:
        """Talk to `model` of `provider_id` from the next message on (the transcript shows the switch at the
        next reply). A conversation already stored keeps the choice at once; a new one with its first message.
        False while a reply is being written, or for a provider that does not exist."""
        model = model.strip()
        if self.busy or not model:
            return False
        try:
            provider_id = self.session.runtime.spec(provider_id).id
        except UnknownProviderError:
            return False
        conversation = self.session.conversation
        if (conversation.provider, conversation.model) == (provider_id, model):
            return True
        conversation.provider, conversation.model = provider_id, model
        if self.session.store is not None and conversation.messages:
            self.session.store.save_conversation(conversation)
        self.sig_model_changed.emit()
        return True

    def set_conversation(self, conversation: Conversation) -> bool:
        """Show `conversation`, held whole (a new one, or one built in memory); False while a run is in progress."""
        if self.busy:
            return False
        self.model.set_messages(conversation.messages, conversation.compactions, self.origin_of(conversation))
        self._replace_session(ChatSession(self.session.runtime, conversation, self.session.store), conversation_usage(conversation))
        return True

    def open_stored(self, conversation_id: str) -> bool:
        """Show the stored conversation `conversation_id` without reading all of it: the transcript loads
        messages as they near the screen, the session the rest of the history when a run needs it. False
        (nothing changes) while a run is in progress or when the conversation does not exist."""
        store = self.session.store
        if self.busy or store is None:
            return False
        conversation = store.load_conversation_header(conversation_id)
        if conversation is None:
            return False
        conversation.messages = list(self.model.open_lazy(store, conversation_id, compactions=conversation.compactions,
                                                          origin=self.origin_of(conversation)))
        session = ChatSession(self.session.runtime, conversation, store, history_loaded=False)
        self._replace_session(session, store.conversation_usage(conversation_id))
        return True

    def origin_of(self, conversation: Conversation) -> tuple[str, str | None] | None:
        """(id, title) of the conversation `conversation` was started from as a summary (title None when it is no
        longer stored), or None."""
        origin = conversation.summarised_from
        if not origin:
            return None
        store = getattr(self.session, "store", None)
        header = store.load_conversation_header(origin) if store is not None else None
        return origin, header.title if header is not None else None

    def _replace_session(self, session: ChatSession, usage: Usage) -> None:
        session.approver = self._approve
        self.session = session
        self.sig_usage_changed.emit(usage)

    # --- runs ------------------------------------------------------------------------

    def send(self, text: str, attachments: Sequence[Attachment] = ()) -> bool:
        """Start a run for `text` with `attachments` (core.attachments); False (and nothing happens) when both are
        empty or a run is in progress. Attachments the model cannot take end the run before anything is sent
        (sig_error says why, sig_send_rejected gives the text back)."""
        text, attachments = text.strip(), list(attachments)
        if not text and not attachments:
            return False
        extra = {"attachments": attachments} if attachments else {}  # a plain send stays send(text, emit, confirm)
        return self.start_run(lambda emit, confirm: self.session.send(text, emit, confirm, **extra), give_back=text)

    def start_run(self, run: Callable[[Emit, ConfirmLoop], Awaitable[object]], give_back: str = "") -> bool:
        """Start `run(emit, confirm_loop)` (a send, retry or continue of the session) as the one run;
        False when a run is in progress. `give_back` returns to the composer if nothing was sent."""
        if self.busy:
            return False
        self._task = asyncio.get_event_loop().create_task(self._run(run, give_back))
        self.sig_busy_changed.emit(True)
        return True

    def stop(self) -> bool:
        if self._task is None or self._task.done():
            return False
        self._task.cancel()
        return True

    async def wait(self) -> None:
        """Until the current run (if any) has ended."""
        task = self._task
        if task is not None:
            await asyncio.wait([task])

    async def aclose(self) -> None:
        self.stop()
        await self.wait()
        self._stop_storage_news()
        await self.session.runtime.aclose()

    async def _run(self, run: Callable[[Emit, ConfirmLoop], Awaitable[object]], text: str) -> None:
        self._user_message_sent = False
        try:
            await run(self.on_event, self._confirm_loop)
        except asyncio.CancelledError:  # the loop already marked any reply stopped and emitted RunFinished
            if text and not self._user_message_sent:  # stopped while the keys were read: nothing was sent
                self.sig_send_rejected.emit(text)
        except (MissingKeyError, NothingToDoError, UnknownProviderError, AttachmentError) as exc:  # already in words a user can act on
            self._report(str(exc), text)
        except StorageUnavailableError as exc:  # e.g. a regenerate that could not keep the old reply: the banner says why
            self.sig_storage_problem.emit(exc.problem)
            if text and not self._user_message_sent:
                self.sig_send_rejected.emit(text)
        except Exception as exc:  # never let it reach sys.excepthook
            log.exception("the run failed")
            self._report(self.tr("Something went wrong: {error}").format(error=f"{type(exc).__name__}: {exc}"), text)
        finally:
            self.flush()
            self._task = None
            self.sig_busy_changed.emit(False)

    def _report(self, message: str, text: str) -> None:
        self.sig_error.emit(message)
        if text and not self._user_message_sent:
            self.sig_send_rejected.emit(text)

    # --- events ----------------------------------------------------------------------

    def on_event(self, event: ev.Event) -> None:
        """Called by the core for every event, after it updated the message snapshot."""
        if isinstance(event, ev.MessageCreated):
            self.flush()
            self.model.append_message(event.message)
            if event.message.role is Role.USER:
                self._user_message_sent = True
                self.sig_user_message_sent.emit(event.message.text)
            return
        if isinstance(event, ev.HistoryChanged):  # part of the conversation became an earlier version
            self.flush()
            self.model.replace_from(event.anchor, event.current)
            self.sig_usage_changed.emit(conversation_usage(self.session.conversation))
            return
        if isinstance(event, ev.ContextCompacted):  # older messages are sent as a summary: the marker shows it
            self.flush()
            self.model.add_compaction(event.compaction)
            self.sig_context_changed.emit()
            return
        if isinstance(event, ev.CompactionUndone):
            self.flush()
            self.model.compaction_undone(event.compaction_id)
            self.sig_context_changed.emit()
            return
        if isinstance(event, ev.Error) and event.overflow and event.message_id:
            self.overflowed.add(event.message_id)
        if event.message_id:
            self._dirty[event.message_id] = None
        if isinstance(event, ev.DELTA_EVENTS):
            self._usage_dirty |= isinstance(event, ev.UsageUpdate)
            if not self._frame.isActive():
                self._frame.start()
            return
        self.flush()
        if isinstance(event, ev.RunFinished):
            self.sig_usage_changed.emit(conversation_usage(self.session.conversation))
            self.sig_run_finished.emit(event.outcome, event.detail)

    def flush(self) -> None:
        """Push every changed row to the model now (one dataChanged per row)."""
        self._frame.stop()
        if self._dirty:
            dirty, self._dirty = self._dirty, {}
            for message_id in dirty:
                self.model.message_changed(message_id)
        if self._usage_dirty:
            self._usage_dirty = False
            self.sig_usage_changed.emit(conversation_usage(self.session.conversation))

    # --- approval of tool calls ----------------------------------------------------------

    @property
    def waiting_calls(self) -> list[str]:
        """Ids of the tool calls whose cards wait for a decision."""
        return [call_id for call_id, answer in self._approvals.items() if not answer.done()]

    async def _approve(self, requests: list[ApprovalRequest]) -> list[ApprovalAnswer]:
        """The session's approver: each request waits for a click on its card (decide); Stop denies them all."""
        self.flush()  # the cards show "needs approval" before anything waits
        loop = asyncio.get_running_loop()
        futures = [self._approvals.setdefault(request.tool_call_id, loop.create_future()) for request in requests]
        self.sig_approval_needed.emit(len(self.waiting_calls))
        try:
            return list(await asyncio.gather(*futures))
        finally:
            for request in requests:
                self._approvals.pop(request.tool_call_id, None)
            self.sig_approval_needed.emit(len(self.waiting_calls))

    def decide(self, tool_call_id: str, decision: str, reason: str = "") -> bool:
        """The user's answer for a waiting call (from its card); False when nothing waits for it."""
        answer = self._approvals.get(tool_call_id)
        if answer is None or answer.done():
            return False
        try:
            choice = Decision(decision)
        except ValueError:
            log.warning("unknown approval decision %r ignored", decision)
            return False
        if choice not in USER_CHOICES:
            return False
        answer.set_result(ApprovalAnswer(choice, reason.strip()))
        return True

    # --- doom-loop confirmation ------------------------------------------------------

    async def _confirm_loop(self, detected: ev.LoopDetected) -> bool:
        """Ask, without blocking the event loop, whether to keep going after a repeated tool call."""
        self.flush()
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Repeated tool call"),
            self.tr("{tool} was called {count} times in a row with the same arguments.\n\nLet it continue?").format(
                tool=detected.name, count=detected.repeats),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.dialog_parent,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def finished(_result: int) -> None:
            clicked = box.clickedButton()
            if not answer.done():
                answer.set_result(clicked is not None and box.standardButton(clicked) == QMessageBox.StandardButton.Yes)

        box.finished.connect(finished)
        box.open()
        try:
            return await answer
        finally:
            box.finished.disconnect(finished)
            box.close()
            box.deleteLater()
