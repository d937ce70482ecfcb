"""The async bridge between the widgets and the core: holds the session of the conversation shown and a run per
conversation (each an asyncio task that goes on while other conversations are shown; Stop cancels the shown one),
coalesces the shown run's streaming events into at most one model flush per frame, turns every failure into a visible
error instead of letting it reach sys.excepthook, and switches the conversation's provider and model between runs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from functools import partial

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_copilot.core.agent.loop import ConfirmLoop, Emit, LoopChoice
from desktop_copilot.core.approval.decisions import ApprovalAnswer, ApprovalRequest
from desktop_copilot.core.chat import ChatSession, NothingToDoError
from desktop_copilot.core.content.attachments import AttachmentError
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Conversation, Role
from desktop_copilot.core.provider_table import UnknownProviderError
from desktop_copilot.core.providers.attachment_limits import Attachment, AttachmentLimits, limits_for
from desktop_copilot.core.runtime import MissingKeyError
from desktop_copilot.core.storage.health import StorageProblem, StorageUnavailableError
from desktop_copilot.core.usage.ledger import UsageLedger
from desktop_copilot.qt.bridge.approval_desk import ApprovalDesk
from desktop_copilot.qt.bridge.conversation_run import ConversationRun, HeldNews
from desktop_copilot.qt.bridge.side_by_side_runs import SideBySideRuns
from desktop_copilot.qt.transcript.model import TranscriptModel

log = logging.getLogger(__name__)

FRAME_MS = 16
"""Deltas are flushed to the model at most once per frame."""


class ChatController(QObject):
    sig_busy_changed = Signal(bool)
    """Whether the conversation shown has a run in progress (also when another conversation is shown)."""
    sig_error = Signal(str)
    sig_run_finished = Signal(str, str)
    """(outcome, detail) from the loop's RunFinished, of the conversation shown."""
    sig_usage_changed = Signal(object)
    """The usage of the conversation shown changed, or another conversation is shown: `usage`, the UsageLedger that
    keeps its totals."""
    sig_send_rejected = Signal(str)
    """Nothing was sent (e.g. no API key, or stopped while the keys were read): the text that was not sent."""
    sig_user_message_sent = Signal(str)
    """The user's message is in the conversation (the send was accepted): its text."""
    sig_model_changed = Signal()
    """The conversation talks to another provider or model from its next message on (choose_model)."""
    sig_approval_needed = Signal(int)
    """Tool calls of the conversation shown wait for the user's decision on their cards: how many (0: none waits any more)."""
    sig_storage_problem = Signal(object)
    """The database stopped taking writes (a core.storage.health.StorageProblem), or takes them again (None)."""
    sig_context_changed = Signal()
    """What the next request sends changed without a message changing: a compaction made or undone."""
    sig_runs_changed = Signal(object)
    """A conversation's run started or ended, or its calls waiting for approval changed: the (live) Conversation."""
    sig_background_news = Signal(object, str, str)
    """(Conversation, kind, detail) about a conversation not shown: kind "approval" (calls wait; detail: how many),
    or the outcome of its run that ended ("completed", "stopped", "failed", …; detail: the loop's words)."""

    def __init__(self, session: ChatSession, model: TranscriptModel, parent: QObject | None = None) -> None:
        """`session` has its store: the window always has one (kept in memory when the database file cannot be
        opened, core.bootstrap.open_store); a ChatSession without one (`ask --no-save`) never reaches the controller."""
        super().__init__(parent)
        self.session = session
        self.model = model
        if model.parent() is None:  # dies with the controller (and the window), and with it the handlers the widgets
            model.setParent(self)  # connected to its signals, which would keep the whole window alive (tests/soak)
        self.dialog_parent: QWidget | None = None
        self._runs: dict[str, ConversationRun] = {}
        """Conversation id -> its run in progress (shown or not)."""
        self._held: dict[str, HeldNews] = {}
        """Conversation id -> what its run said while it was not shown."""
        self.approvals = ApprovalDesk()
        self.side_by_side = SideBySideRuns(self)
        """Turns answered by several models at once (Ask several models), until one answer is picked."""
        self._dirty: dict[str, None] = {}
        self._usage_dirty: dict[str, None] = {}
        """Messages whose usage was reported since the last flush."""
        self.usage = UsageLedger()
        """The shown conversation's usage totals, kept per message revision (usage_display.session_totals reads them)."""
        self._frame = QTimer(self, singleShot=True, interval=FRAME_MS)
        self._frame.timeout.connect(self.flush)
        self.overflowed: set[str] = set()
        """Replies that failed because the request was larger than the model's context window (Error.overflow)."""
        self._adopt(session)
        model.provider_label = self.provider_label
        model.set_messages(session.conversation.messages, session.conversation.compactions, self.origin_of(session.conversation))
        self._stop_storage_news = session.store.health.subscribe(self._storage_changed)

    @property
    def storage_problem(self) -> StorageProblem | None:
        """Why the database takes no writes now (the replies wait in memory), or None."""
        return self.session.store.health.problem

    def _storage_changed(self, problem: StorageProblem | None) -> None:
        """From the thread whose write failed or succeeded: queued to the window's."""
        try:
            self.sig_storage_problem.emit(problem)
        except RuntimeError:  # the window is gone
            pass

    @property
    def busy(self) -> bool:
        """Whether the conversation shown has a run in progress."""
        return self.session.conversation.id in self._runs

    def running(self, conversation_id: str) -> bool:
        return conversation_id in self._runs

    def running_conversations(self) -> list[Conversation]:
        """The conversations with a run in progress, in the order their runs started."""
        return [run.session.conversation for run in self._runs.values()]

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
        except UnknownProviderError:
            return None
        return limits_for(spec.id, spec.wire, self.model_name, spec.label)

    def provider_label(self, provider_id: str) -> str:
        """The provider's name ("DeepSeek"), also of an endpoint the user added; its id if it is unknown."""
        try:
            return self.session.runtime.spec(provider_id).label
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
        if conversation.messages:
            self.session.store.save_conversation(conversation)
        self.sig_model_changed.emit()
        return True

    # --- which conversation is shown -----------------------------------------------------

    def set_conversation(self, conversation: Conversation) -> bool:
        """Show `conversation`, held whole (a new one, or one built in memory); one with a run in progress is shown
        as its run holds it, following the run live."""
        run = self._runs.get(conversation.id)
        if run is not None:
            return self._show_running(run)
        self.flush()
        self.model.set_messages(conversation.messages, conversation.compactions, self.origin_of(conversation))
        self._show(ChatSession(self.session.runtime, conversation, self.session.store))
        return True

    def open_stored(self, conversation_id: str) -> bool:
        """Show the stored conversation `conversation_id` without reading all of it: the transcript loads
        messages as they near the screen, the session the rest of the history when a run needs it. One with a run in
        progress is shown as its run holds it. False (nothing changes) when the conversation does not exist."""
        run = self._runs.get(conversation_id)
        if run is not None:
            return self._show_running(run)
        store = self.session.store
        conversation = store.load_conversation_header(conversation_id)
        if conversation is None:
            return False
        self.flush()
        conversation.messages = list(self.model.open_lazy(store, conversation_id, compactions=conversation.compactions,
                                                          origin=self.origin_of(conversation)))
        session = ChatSession(self.session.runtime, conversation, store, history_loaded=False)
        self._show(session)
        return True

    def origin_of(self, conversation: Conversation) -> tuple[str, str | None] | None:
        """(id, title) of the conversation `conversation` was started from as a summary (title None when it is no
        longer stored), or None."""
        origin = conversation.summarised_from
        if not origin:
            return None
        header = self.session.store.load_conversation_header(origin)
        return origin, header.title if header is not None else None

    def _show_running(self, run: ConversationRun) -> bool:
        if run.session is not self.session:
            self.flush()
            conversation = run.session.conversation
            self.model.set_messages(conversation.messages, conversation.compactions, self.origin_of(conversation))
            self._show(run.session)
        return True

    def _show(self, session: ChatSession) -> None:
        """Make `session` the one shown (the model already shows its messages) and tell the widgets."""
        was_busy, was_waiting = self.busy, len(self.waiting_calls)
        self._adopt(session)
        self.session = session
        self._usage_dirty.clear()
        self.usage.reset(session.conversation.messages)
        self.sig_usage_changed.emit(self.usage)
        if self.busy != was_busy:
            self.sig_busy_changed.emit(self.busy)
        if was_waiting or self.waiting_calls:
            self.sig_approval_needed.emit(len(self.waiting_calls))
        self.side_by_side.hide_answers()  # a turn not picked from: its answers are in the columns
        self.side_by_side.sig_changed.emit()
        held = self._held.pop(session.conversation.id, None)
        if held is not None:
            for error in held.errors:
                self.sig_error.emit(error)
            if held.given_back:
                self.sig_send_rejected.emit(held.given_back)

    def _adopt(self, session: ChatSession) -> None:
        """Tool calls of `session` wait for the user on their cards, wherever the conversation is shown."""
        session.approver = partial(self.approve, session)

    # --- runs ------------------------------------------------------------------------

    def send(self, text: str, attachments: Sequence[Attachment] = ()) -> bool:
        """Start a run for `text` with `attachments` (core.attachments); False (and nothing happens) when both are
        empty or a run is in progress. Attachments the model cannot take end the run before anything is sent
        (sig_error says why, sig_send_rejected gives the text back)."""
        text, attachments = text.strip(), list(attachments)
        if not text and not attachments:
            return False
        extra = {"attachments": attachments} if attachments else {}  # a plain send stays send(text, emit, confirm)
        session = self.session
        return self.start_run(lambda emit, confirm: session.send(text, emit, confirm, **extra), give_back=text)

    def start_run(self, run: Callable[[Emit, ConfirmLoop], Awaitable[object]], give_back: str = "") -> bool:
        """Start `run(emit, confirm_loop)` (a send, retry or continue of the session shown) as its conversation's run;
        it goes on when another conversation is shown. False when that conversation has a run in progress.
        `give_back` returns to the composer if nothing was sent."""
        if self.busy:
            return False
        self.side_by_side.settle(self.session.conversation.id)  # the conversation goes on from the answer it shows
        conversation_run = ConversationRun(self.session)
        self._runs[conversation_run.conversation_id] = conversation_run
        conversation_run.task = asyncio.get_event_loop().create_task(self._run(conversation_run, run, give_back))
        self.sig_busy_changed.emit(True)
        self.sig_runs_changed.emit(self.session.conversation)
        return True

    def stop(self, conversation_id: str | None = None) -> bool:
        """Stop the run of the conversation shown (or of `conversation_id`); what arrived is kept, marked stopped."""
        run = self._runs.get(conversation_id or self.session.conversation.id)
        if run is None or run.task is None or run.task.done():
            return False
        run.task.cancel()
        return True

    def stop_all(self) -> int:
        """Stop every run in progress; how many were stopped."""
        return sum(self.stop(conversation_id) for conversation_id in list(self._runs))

    async def wait(self) -> None:
        """Until the run of the conversation shown (if any) has ended."""
        run = self._runs.get(self.session.conversation.id)
        if run is not None and run.task is not None:
            await asyncio.wait([run.task])

    async def wait_all(self) -> None:
        """Until every run in progress has ended."""
        tasks = [run.task for run in self._runs.values() if run.task is not None]
        if tasks:
            await asyncio.wait(tasks)

    async def aclose(self) -> None:
        self.stop_all()
        await self.wait_all()
        self._stop_storage_news()
        await self.session.runtime.aclose()

    def _shown(self, run: ConversationRun) -> bool:
        return run.session is self.session

    async def _run(self, run: ConversationRun, work: Callable[[Emit, ConfirmLoop], Awaitable[object]], text: str) -> None:
        try:
            await work(lambda event: self._on_run_event(run, event), self._confirm_loop)
        except asyncio.CancelledError:  # the loop already marked any reply stopped and emitted RunFinished
            if text and not run.user_message_sent:  # stopped while the keys were read: nothing was sent
                self._give_back(run, text)
        except (MissingKeyError, NothingToDoError, UnknownProviderError, AttachmentError) as exc:  # already in words a user can act on
            self._report(run, str(exc), text)
        except StorageUnavailableError as exc:  # e.g. a regenerate that could not keep the old reply: the banner says why
            self.sig_storage_problem.emit(exc.problem)
            if text and not run.user_message_sent:
                self._give_back(run, text)
        except Exception as exc:  # never let it reach sys.excepthook
            log.exception("the run failed")
            self._report(run, self.tr("Something went wrong: {error}").format(error=f"{type(exc).__name__}: {exc}"), text)
        finally:
            shown = self._shown(run)
            if shown:
                self.flush()
            self._runs.pop(run.conversation_id, None)
            if shown:
                self.sig_busy_changed.emit(False)
            self.sig_runs_changed.emit(run.session.conversation)
            if not shown:
                self.sig_background_news.emit(run.session.conversation, run.outcome or "failed", "")

    def _report(self, run: ConversationRun, message: str, text: str) -> None:
        if self._shown(run):
            self.sig_error.emit(message)
        else:
            self._held.setdefault(run.conversation_id, HeldNews()).errors.append(message)
            run.outcome = run.outcome or "failed"
        if text and not run.user_message_sent:
            self._give_back(run, text)

    def _give_back(self, run: ConversationRun, text: str) -> None:
        if self._shown(run):
            self.sig_send_rejected.emit(text)
        else:  # the composer gets it when the conversation is shown again
            self._held.setdefault(run.conversation_id, HeldNews()).given_back = text

    # --- events ----------------------------------------------------------------------

    def _on_run_event(self, run: ConversationRun, event: ev.Event) -> None:
        """Every event of `run`: the transcript follows it while its conversation is shown."""
        if isinstance(event, ev.MessageCreated) and event.message.role is Role.USER:
            run.user_message_sent = True
        elif isinstance(event, ev.RunFinished):
            run.outcome = event.outcome
        if self._shown(run):
            self.on_event(event)
        elif isinstance(event, ev.Error) and event.overflow and event.message_id:
            self.overflowed.add(event.message_id)

    def on_event(self, event: ev.Event) -> None:
        """Called by the core for every event of the conversation shown, after it updated the message snapshot."""
        if isinstance(event, ev.MessageCreated):
            self.flush()
            self.model.append_message(event.message)
            self.usage.note(event.message)
            if event.message.role is Role.USER:
                self.sig_user_message_sent.emit(event.message.text)
            return
        if isinstance(event, ev.HistoryChanged):  # part of the conversation became an earlier version
            self.flush()
            self.model.replace_from(event.anchor, event.current)
            self.usage.reset(self.session.conversation.messages)
            self.sig_usage_changed.emit(self.usage)
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
            if isinstance(event, ev.UsageUpdate):
                self._usage_dirty[event.message_id] = None
            if not self._frame.isActive():
                self._frame.start()
            return
        self.flush()
        if isinstance(event, ev.RunFinished):
            self.sig_usage_changed.emit(self.usage)
            self.sig_run_finished.emit(event.outcome, event.detail)

    def tell_usage(self) -> None:
        """The conversation's messages were replaced outside a run (an answer picked): summed again, sig_usage_changed."""
        self.usage.reset(self.session.conversation.messages)
        self.sig_usage_changed.emit(self.usage)

    def flush(self) -> None:
        """Push every changed row to the model now (one dataChanged per row)."""
        self._frame.stop()
        if self._dirty:
            dirty, self._dirty = self._dirty, {}
            for message_id in dirty:
                self.model.message_changed(message_id)
        if self._usage_dirty:
            reported, self._usage_dirty = self._usage_dirty, {}
            for message_id in reported:
                self.usage.changed(message_id)
            self.sig_usage_changed.emit(self.usage)

    # --- approval of tool calls ----------------------------------------------------------

    @property
    def waiting_calls(self) -> list[str]:
        """Ids of the tool calls of the conversation shown whose cards wait for a decision."""
        return self.approvals.waiting(self.session.conversation.id)

    async def approve(self, session: ChatSession, requests: list[ApprovalRequest]) -> list[ApprovalAnswer]:
        """`session`'s approver: each request waits for a click on its card (decide); Stop denies them all."""
        conversation = session.conversation
        if session is self.session:
            self.flush()  # the cards show "needs approval" before anything waits
        waiting = self.approvals.ask(conversation.id, requests)
        self._approvals_changed(session, asked=len(requests))
        try:
            return await waiting
        finally:
            self._approvals_changed(session)

    def _approvals_changed(self, session: ChatSession, asked: int = 0) -> None:
        conversation = session.conversation
        if session is self.session:
            self.sig_approval_needed.emit(len(self.waiting_calls))
        elif asked:
            self.sig_background_news.emit(conversation, "approval", str(len(self.approvals.waiting(conversation.id)) or asked))
        self.sig_runs_changed.emit(conversation)

    def decide(self, tool_call_id: str, decision: str, reason: str = "") -> bool:
        """The user's answer for a waiting call, of any conversation; False when nothing waits for it."""
        run = self._runs.get(self.approvals.conversation_of(tool_call_id) or "")
        if not self.approvals.decide(tool_call_id, decision, reason):
            return False
        if run is not None:  # calls of the same round may still wait: what says how many is told
            self._approvals_changed(run.session)
        return True

    # --- doom-loop confirmation ------------------------------------------------------

    async def _confirm_loop(self, detected: ev.LoopDetected) -> LoopChoice:
        """Ask, without blocking the event loop, whether to keep going after a repeated tool call: once, for the rest
        of this conversation, or stop (also when the box is closed)."""
        self.flush()
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Repeated tool call"),
            self.tr("{tool} was called {count} times in a row with the same arguments.\n\nLet it continue?").format(
                tool=detected.name, count=detected.repeats),
            QMessageBox.StandardButton.NoButton,
            self.dialog_parent,
        )
        box.setObjectName("loopBox")
        once = box.addButton(self.tr("Continue once"), QMessageBox.ButtonRole.AcceptRole)
        repeats = box.addButton(self.tr("Allow repeats in this conversation"), QMessageBox.ButtonRole.YesRole)
        stop = box.addButton(self.tr("Stop"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(stop)
        box.setEscapeButton(stop)
        choices = {id(once): LoopChoice.CONTINUE_ONCE, id(repeats): LoopChoice.ALLOW_REPEATS}
        answer: asyncio.Future[LoopChoice] = asyncio.get_running_loop().create_future()

        def finished(_result: int) -> None:
            clicked = box.clickedButton()
            if not answer.done():
                answer.set_result(choices.get(id(clicked), LoopChoice.STOP) if clicked is not None else LoopChoice.STOP)

        box.finished.connect(finished)
        box.open()
        try:
            return await answer
        finally:
            box.finished.disconnect(finished)
            box.close()
            box.deleteLater()
