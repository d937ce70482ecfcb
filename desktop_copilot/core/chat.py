"""A chat session: one conversation, its store, and runs of the agent loop on it.

Besides sending, a session can regenerate the last reply, edit an earlier user message and
resend, continue an interrupted reply, and switch between the versions these leave behind.
It keeps requests within the model's context window (core/context_keeper.py): compacting older
turns, undoing a compaction, and starting a new chat from a summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.approval.decisions import Approver
from desktop_copilot.core.agent.loop import AgentLoop, ConfirmLoop, Emit, LoopChoice, RunOptions
from desktop_copilot.core.content.attachments import check_sendable
from desktop_copilot.core.conversation.history import live_compactions, sendable_history
from desktop_copilot.core.conversation.models import Compaction, Conversation, Message, Role
from desktop_copilot.core.providers.attachment_limits import Attachment, limits_for
from desktop_copilot.core.profiles.profile import ModelProfile
from desktop_copilot.core.runtime import MissingModelError, RunResources, Runtime
from desktop_copilot.core.storage.recorder import StoreRecorder
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.storage.versions import ArchivedTail, TailArchive
from desktop_copilot.core.words import tr

if TYPE_CHECKING:  # compaction's modules load at the first request, not at start-up
    from desktop_copilot.core.context_keeper import ContextKeeper

TITLE_CHARS = 60
NEW_CHAT_INTRO = "Summary of the conversation “{title}”, which this one continues:\n\n{summary}"


def title_from(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


class NothingToDoError(ValueError):
    """The requested operation does not apply to the conversation as it is (message says why)."""


LOCAL_OUTPUT_LIMIT = 8_192
"""The output limit on a local server unless the user set the model's own: every token of it is memory the server
reserves (Ollama's `num_ctx` covers the prompt and this)."""


def output_limit(configured: int, profile: ModelProfile, *, local: bool) -> int:
    """The output limit sent: the configured one, within what the model is known to allow (a guess is not trusted to
    cut a reply shorter); on a local server at most LOCAL_OUTPUT_LIMIT, unless the user set the model's limit, and
    within half its context window (vLLM refuses a request whose output limit does not fit the window with the
    prompt)."""
    limit = configured
    if profile.output_limit.source != "default":
        limit = min(limit, profile.output_limit.value)
    if local and profile.output_limit.source != "user":
        limit = min(limit, LOCAL_OUTPUT_LIMIT)
    if profile.context_window.source != "default" and local:
        limit = min(limit, max(256, profile.context_window.value // 2))
    return limit


@dataclass(slots=True)
class ChatSession:
    runtime: Runtime
    conversation: Conversation
    store: Store | None = None
    history_loaded: bool = True
    """False when `conversation.messages` holds only the latest stored messages (a long conversation
    opened lazily); the first operation that needs the rest loads it, keeping the objects held."""

    approver: Approver | None = None
    """Asks the user about tool calls with side effects (the window's cards, `ask`'s terminal prompt); None
    denies them, saying there was no one to ask."""
    repeats_allowed: bool = False
    """The user chose "Allow repeats in this conversation" when a call repeated: the loop question is not asked again."""

    def _loop_question(self, confirm_loop: ConfirmLoop | None) -> ConfirmLoop | None:
        """`confirm_loop`, skipped once the user allowed repeats in this conversation, and remembering that answer."""
        if confirm_loop is None:
            return None

        async def ask(detected: ev.LoopDetected) -> LoopChoice | bool:
            if self.repeats_allowed:
                return LoopChoice.ALLOW_REPEATS
            answer = await confirm_loop(detected)
            if answer == LoopChoice.ALLOW_REPEATS:
                self.repeats_allowed = True
            return answer

        return ask

    def ensure_history(self) -> None:
        if self.history_loaded:
            return
        stored = self.store.load_conversation(self.conversation.id) if self.store is not None else None
        if stored is not None:  # the view shows the messages already held: keep those objects, in stored order
            held = {message.id: message for message in self.conversation.messages}
            history = [held.pop(message.id, message) for message in stored.messages]
            self.conversation.messages[:] = history + list(held.values())
        self.history_loaded = True

    def provider_id(self) -> str:
        """The provider this conversation talks to: its own; Anthropic for one stored before providers could
        be chosen; the configured default for a new one."""
        if self.conversation.provider:
            return self.conversation.provider
        return "anthropic" if self.conversation.messages else self.runtime.provider_id()

    def model_for(self, provider_id: str) -> str:
        """The conversation's model, else the configured one for the default provider, else the provider's."""
        config = self.runtime.config
        if self.conversation.model:
            return self.conversation.model
        spec = self.runtime.spec(provider_id)
        model = config.model if provider_id == config.provider else spec.default_model
        if spec.wire != "anthropic" and model.startswith("claude-"):  # the Anthropic default, not meant for this one
            model = spec.default_model
        return model

    def offered_tools(self) -> set[str] | None:
        """The only tools this conversation offers (its assistant chose them); None: those switched on in Settings."""
        return None if self.conversation.tools is None else set(self.conversation.tools)

    def knowledge_sources(self) -> frozenset[str] | None:
        """The knowledge sources the conversation's assistant searches (None: every switched-on source)."""
        if not self.conversation.assistant_id or not self.runtime.has_knowledge():
            return None
        from desktop_copilot.core.config.assistants import AssistantLibrary

        assistant = AssistantLibrary.in_folder(self.runtime.paths.config_dir).get(self.conversation.assistant_id)
        return assistant.knowledge if assistant is not None else None

    def options(self, provider_id: str, model: str | None = None) -> RunOptions:
        """How a request to `provider_id` is made: its `model` (None: the conversation's), limits, sampling and the
        model's profile."""
        config = self.runtime.config
        if self.conversation.thinking_budget is not None:  # the conversation's own thinking (0: off), else Settings'
            config = replace(config, thinking_budget=self.conversation.thinking_budget or None)
        model = model or self.model_for(provider_id)
        max_tokens, thinking_budget = config.request_limits(model)
        profile = self.runtime.profile(provider_id, model)
        return RunOptions(
            model=model,
            provider=provider_id,
            system=self.conversation.system or config.system,
            thinking_budget=thinking_budget,
            max_tokens=output_limit(max_tokens, profile, local=self.runtime.spec(provider_id).local),
            max_tool_rounds=config.max_tool_rounds,
            temperature=self.conversation.temperature,
            top_p=self.conversation.top_p,
            text_tools=profile.tools.value == "text",
            thinks_in_tags=profile.thinking.value == "think_tags",
            sampling=profile.sampling.value,
            context_window=profile.context_window.value if profile.context_window.source != "default" else None,
        )

    async def send(self, text: str, emit: Emit, confirm_loop: ConfirmLoop | None = None, *,
                   attachments: Sequence[Attachment] = ()) -> ev.RunFinished:
        """Append the user's message and run the loop until the reply is complete, stopped or failed.
        Raises MissingKeyError before anything is stored when no Anthropic key is configured; the keys
        are read on the keyring thread (Runtime.prepare_run), so a locked keyring never blocks the loop.
        `attachments` (core.attachments.read_attachment) go with the text; AttachmentError, before anything
        is stored, when the model cannot take them."""
        run = await self._prepare()  # keys read off this thread; fails before the message is appended
        self.ensure_history()
        self.check_attachments(run.provider_id, attachments)
        return await self._send(run, text, emit, confirm_loop, attachments)

    async def _prepare(self) -> RunResources:
        """The run's provider and tools (keys read off this thread; fails before anything is appended), and the model
        a local server offers when the conversation names none (MissingModelError when it offers none)."""
        run = await self.runtime.prepare_run(self.provider_id(), self.offered_tools(), self.knowledge_sources())
        if not self.model_for(run.provider_id):
            spec = self.runtime.spec(run.provider_id)
            model = await self.runtime.first_model(run.provider_id)
            if model is None:
                raise MissingModelError(tr("{label} at {url} lists no model. Load or pull one there, or name one (the model "
                                           "picker, or `ask --model`).").format(label=spec.label, url=self.runtime.base_url(spec)))
            self.conversation.model = model
        return run

    def check_attachments(self, provider_id: str, attachments: Sequence[Attachment] = (), model: str | None = None) -> None:
        """Raise AttachmentError when `attachments`, or all of the conversation's with them, do not fit the model
        the next message goes to (or `model`; core.providers.attachment_limits)."""
        spec = self.runtime.spec(provider_id)
        limits = limits_for(spec.id, spec.wire, model or self.model_for(provider_id), spec.label)
        check_sendable(sendable_history(self.conversation.messages, self.conversation.compactions), attachments, limits)

    async def _send(self, run: RunResources, text: str, emit: Emit, confirm_loop: ConfirmLoop | None,
                    attachments: Sequence[Attachment] = ()) -> ev.RunFinished:
        if not self.conversation.provider or not self.conversation.model:
            self.conversation.model = self.model_for(run.provider_id)
            self.conversation.provider = run.provider_id
        return await self._run(run, emit, confirm_loop, self.append_user_message(text, attachments))

    def append_user_message(self, text: str, attachments: Sequence[Attachment] = ()) -> ev.MessageCreated:
        """Append the user's message (titling a new conversation by it); the event that tells it, to be recorded."""
        if not self.conversation.title:
            self.conversation.title = title_from(text if text.strip() or not attachments else attachments[0].name)
        user = Message.user(text, attachments)
        self.conversation.messages.append(user)
        return ev.MessageCreated(message=user, message_id=user.id)

    async def regenerate(self, emit: Emit, confirm_loop: ConfirmLoop | None = None) -> ev.RunFinished:
        """Replace the replies after the last user message with a new one; the old replies are
        kept as an earlier version. Also the way to retry an interrupted or failed reply."""
        run = await self._prepare()
        self.ensure_history()
        anchor = self._last_user_index() + 1
        self._archive_from(anchor, emit)
        return await self._run(run, emit, confirm_loop)

    async def edit(self, message_id: str, text: str, emit: Emit, confirm_loop: ConfirmLoop | None = None) -> ev.RunFinished:
        """Replace a user message with `text` (its attachments stay) and resend; it and everything after it are
        kept as an earlier version."""
        run = await self._prepare()
        self.ensure_history()
        anchor = self._index_of(message_id)
        if self.conversation.messages[anchor].role is not Role.USER:
            raise NothingToDoError(tr("Only your own messages can be edited."))
        attachments = self.conversation.messages[anchor].attachments
        self._archive_from(anchor, emit)
        return await self._send(run, text, emit, confirm_loop, attachments)

    async def continue_reply(self, emit: Emit, confirm_loop: ConfirmLoop | None = None) -> ev.RunFinished:
        """Ask the model to carry on from an interrupted or stopped reply, which stays as it is."""
        run = await self._prepare()
        self.ensure_history()
        messages = self.conversation.messages
        if not messages or messages[-1].role is not Role.ASSISTANT:
            raise NothingToDoError(tr("There is no reply to continue."))
        return await self._run(run, emit, confirm_loop)

    def versions(self, anchor: int) -> list[ArchivedTail]:
        """Earlier versions of the conversation from position `anchor`, oldest first."""
        return self._archive().tails(self.conversation.id, anchor) if self.store else []

    def version_anchors(self) -> dict[int, int]:
        """Positions that have earlier versions -> how many."""
        return self._archive().anchors(self.conversation.id) if self.store else {}

    def switch_version(self, tail_id: str, emit: Emit) -> None:
        """Make an earlier version the active one; the current tail becomes an earlier version. `emit`
        gets the HistoryChanged that says so."""
        if self.store is None:
            raise NothingToDoError(tr("Versions are kept only for saved conversations."))
        self.ensure_history()
        archive = self._archive()
        restored = archive.restore(self.conversation.id, tail_id)
        archived = self._archive_tail(restored.anchor)
        self.conversation.messages.extend(restored.messages)
        for seq, message in enumerate(self.conversation.messages[restored.anchor:], start=restored.anchor):
            self.store.save_message(self.conversation.id, seq, message)
        emit(ev.HistoryChanged(anchor=restored.anchor, archived_ids=archived, current=list(restored.messages)))

    async def compact_now(self, emit: Emit, *, after_overflow: bool = False) -> Compaction | None:
        """Compact the older turns now (Compact now): all but the last few, what the user undid included; after an
        overflow (`after_overflow`), all but the current turn when nothing is before those, as the retry after one
        does. `emit` gets the ContextCompacted; None when nothing is left to compact."""
        self.ensure_history()
        from desktop_copilot.core.context.compaction import plan_compaction  # compaction's modules load at first use
        from desktop_copilot.core.context_keeper import CompactionSettings, overflow_plan

        keep_turns = CompactionSettings.of(self.runtime.settings).keep_turns
        messages, compactions = self.conversation.messages, self.conversation.compactions
        plan = (overflow_plan(messages, compactions, keep_turns) if after_overflow
                else plan_compaction(messages, compactions, keep_turns, respect_undone=False))
        if plan is None:
            return None
        run = await self._prepare()
        recorder, forward = self._recording(emit)
        try:
            return await self._keeper(run, forward).compact(plan)
        finally:
            recorder.flush()

    def undo_compaction(self, compaction_id: str, emit: Emit) -> None:
        """Send a compaction's messages whole again (a compaction it took over applies again); `emit` gets the
        CompactionUndone. NothingToDoError when it is not in effect."""
        self.ensure_history()
        live = live_compactions(self.conversation.compactions, self.conversation.messages)
        compaction = next((c for c in live if c.id == compaction_id), None)
        if compaction is None:
            raise NothingToDoError(tr("That compaction is not in effect in this conversation."))
        compaction.undone = True
        recorder, forward = self._recording(emit)
        forward(ev.CompactionUndone(compaction_id=compaction_id))
        recorder.flush()

    async def new_chat_from_summary(self, emit: Emit) -> Conversation:
        """A new conversation (stored, not yet shown) whose first message is a summary of this one, linked back to it
        by `summarised_from`, with its provider, model and options. Nothing changes here, so `emit` gets nothing;
        SummaryFailedError (core.context.summary) when no summary could be made."""
        run = await self._prepare()
        self.ensure_history()
        summary = await self._keeper(run, emit).summary_of_conversation()
        old = self.conversation
        new = Conversation(title=f"{old.title} (continued)" if old.title else "", provider=old.provider or run.provider_id,
                           model=old.model or self.model_for(run.provider_id), system=old.system,
                           assistant_id=old.assistant_id, thinking_budget=old.thinking_budget,
                           tools=None if old.tools is None else list(old.tools), temperature=old.temperature,
                           top_p=old.top_p, summarised_from=old.id)
        new.messages.append(Message.user(NEW_CHAT_INTRO.format(title=old.title or "Untitled", summary=summary)))
        if self.store is not None:
            self.store.save_conversation(new)
            self.store.save_message(new.id, 0, new.messages[0])
        return new

    def _keeper(self, run: RunResources, emit: Emit, options: RunOptions | None = None) -> ContextKeeper:
        from desktop_copilot.core.context_keeper import ContextKeeper  # loaded at the first request, not at start-up

        return ContextKeeper(self.runtime, self.conversation, options or self.options(run.provider_id), run.provider, emit,
                             [tool.spec() for tool in run.tools])

    def _recording(self, emit: Emit) -> tuple[StoreRecorder, Emit]:
        """A recorder of this conversation, and `emit` that passes each event through it first."""
        recorder = StoreRecorder(self.store, self.conversation)

        def forward(event: ev.Event) -> None:
            recorder.record(event)
            emit(event)

        return recorder, forward

    async def _run(self, run: RunResources, emit: Emit, confirm_loop: ConfirmLoop | None,
                   first: ev.Event | None = None) -> ev.RunFinished:
        recorder, forward = self._recording(emit)
        if first is not None:
            forward(first)
        run.tool_context.conversation_id = self.conversation.id
        hooks = self.runtime.tool_hooks(self.approver, self.conversation.title)
        options = self.options(run.provider_id)
        loop = AgentLoop(run.provider, run.tools, run.tool_context, options, forward, self._loop_question(confirm_loop), hooks,
                         context=self._keeper(run, forward, options))
        try:
            return await loop.run(self.conversation.messages)
        finally:
            recorder.flush()

    def _archive(self) -> TailArchive:
        assert self.store is not None
        return TailArchive(self.store)

    def _archive_tail(self, anchor: int) -> list[str]:
        """Keep the messages from `anchor` on as an earlier version and drop them; their ids."""
        tail = self.conversation.messages[anchor:]
        if self.store is not None:
            self._archive().archive(self.conversation.id, anchor, tail)
        del self.conversation.messages[anchor:]
        return [message.id for message in tail]

    def _archive_from(self, anchor: int, emit: Emit) -> None:
        """`_archive_tail`, told on the event stream (a new reply or message follows)."""
        emit(ev.HistoryChanged(anchor=anchor, archived_ids=self._archive_tail(anchor)))

    def _last_user_index(self) -> int:
        for index in range(len(self.conversation.messages) - 1, -1, -1):
            if self.conversation.messages[index].role is Role.USER:
                return index
        raise NothingToDoError(tr("There is no message to reply to yet."))

    def _index_of(self, message_id: str) -> int:
        for index, message in enumerate(self.conversation.messages):
            if message.id == message_id:
                return index
        raise NothingToDoError(tr("That message is not in this conversation."))
