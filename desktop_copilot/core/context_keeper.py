"""ContextKeeper: keeps a chat session's requests within its model's context window. It compacts the older turns
before a request that would pass the threshold, and after the provider said one was too large: by a summary (the
conversation's model writes it, or the summariser chosen in Settings), or, when none could be made, by leaving them
out with a notice. Each compaction is told on the event stream (ContextCompacted); no message is ever changed."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_copilot.core.agent.loop import Emit, RunOptions
from desktop_copilot.core.config.app_config import DEFAULT_COMPACT_AT, DEFAULT_KEEP_TURNS
from desktop_copilot.core.context.budget import ContextBreakdown, measure
from desktop_copilot.core.context.compaction import CompactionPlan, dropped_compaction, plan_compaction, summary_compaction
from desktop_copilot.core.context.summary import (
    SUMMARY_MAX_TOKENS,
    SUMMARY_SYSTEM,
    SummaryFailedError,
    collect_summary,
    fitting,
    summary_prompt,
)
from desktop_copilot.core.context.tokens import estimate_tokens
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.history import compacted_ranges
from desktop_copilot.core.conversation.models import Compaction, Conversation, Message
from desktop_copilot.core.profiles.profile import ModelProfile
from desktop_copilot.core.providers.base import Provider, ProviderRequest, ToolSpec
from desktop_copilot.core.words import tr

if TYPE_CHECKING:
    from desktop_copilot.core.config.settings import Settings
    from desktop_copilot.core.runtime import Runtime

log = logging.getLogger(__name__)

SUMMARY_INPUT_SHARE = 0.85
"""Of the summariser's window, at most this share goes to the messages it summarises (the rest: its prompt, its reply)."""


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    """What Settings say about compaction (core/config/settings.py has their meaning)."""

    compact_at: float = DEFAULT_COMPACT_AT
    keep_turns: int = DEFAULT_KEEP_TURNS
    summariser_provider: str | None = None
    summariser_model: str | None = None

    @classmethod
    def of(cls, settings: Settings | None) -> CompactionSettings:
        if settings is None:
            return cls()
        return cls(settings.compact_at, settings.keep_turns, settings.summariser_provider, settings.summariser_model)


def overflow_plan(history: Sequence[Message], compactions: Sequence[Compaction], keep_turns: int) -> CompactionPlan | None:
    """What is compacted after the provider found a request too large (the automatic retry, and Compact now after it):
    all but the last `keep_turns` turns, what the user undid included, or all but the current turn when nothing is
    before them. None when not even that leaves anything to compact."""
    return (plan_compaction(history, compactions, keep_turns, respect_undone=False)
            or plan_compaction(history, compactions, 1, respect_undone=False))


@dataclass(frozen=True, slots=True)
class Summariser:
    """Who writes a summary: the provider and model, and what its profile allows."""

    provider: Provider
    provider_id: str
    model: str
    profile: ModelProfile

    @property
    def max_tokens(self) -> int:
        return min(SUMMARY_MAX_TOKENS, self.profile.output_limit.value)

    @property
    def room(self) -> int:
        """Tokens of the summary request's message it reads: its share of the window, less its reply and system prompt."""
        return (int(self.profile.context_window.value * SUMMARY_INPUT_SHARE) - self.max_tokens
                - estimate_tokens(SUMMARY_SYSTEM, self.provider_id))


class ContextKeeper:
    """The agent loop's RequestContext for one conversation: `compactions` are the conversation's own list, which
    each new compaction joins (after it is emitted nothing else changes)."""

    def __init__(self, runtime: Runtime, conversation: Conversation, options: RunOptions, provider: Provider, emit: Emit,
                 tools: Sequence[ToolSpec] = ()) -> None:
        self.runtime = runtime
        self.conversation = conversation
        self.options = options
        self.provider = provider
        self.emit = emit
        self.settings = CompactionSettings.of(runtime.settings)
        self.tools = tuple(tools)

    @property
    def compactions(self) -> list[Compaction]:
        return self.conversation.compactions

    def window(self) -> int:
        """The model's context window in tokens, from its profile."""
        return self.runtime.profile(self.options.provider, self.options.model).context_window.value

    def request_size(self, history: list[Message]) -> ContextBreakdown:
        """The request the agent loop makes next with `history`, as the window's meter counts it (one count,
        core/context/budget.py): what the provider reported of the last reply's request, estimates of what came after
        it, the system prompt and tools, and the output reserved (the calibration learns from the reports on the way)."""
        conversation = self.conversation
        if history is not conversation.messages:
            conversation = conversation.model_copy(update={"messages": history})
        return measure(conversation, window=self.window(), output_reserve=self.options.max_tokens, system=self.options.system,
                       tools=self.tools, provider=self.options.provider, next_message=False)

    async def before_request(self, history: list[Message]) -> None:
        """Compact first while the request would pass `compact_at` of the window (what the user undid stays whole)."""
        while self.request_size(history).total > self.settings.compact_at * self.window():
            plan = plan_compaction(history, self.compactions, self.settings.keep_turns, respect_undone=True)
            if plan is None:
                return
            await self.compact(plan)

    async def after_overflow(self, history: list[Message]) -> bool:
        """The provider found the request too large: compact what `overflow_plan` finds. True when something was
        compacted (the request is worth sending again)."""
        plan = overflow_plan(history, self.compactions, self.settings.keep_turns)
        if plan is None:
            return False
        await self.compact(plan)
        return True

    async def compact(self, plan: CompactionPlan) -> Compaction:
        """Compact the plan's stretch, as far as the summariser reads it whole (`fitting`: the rest waits for the next
        compaction); emit ContextCompacted and return it. A summary that fails leaves the stretch out instead, with a
        notice."""
        try:
            summariser = await self._summariser()
            fitted = fitting(plan, summariser.room, summariser.provider_id)
            summary, tokens = await self.summarise(fitted, summariser)
            compaction = summary_compaction(fitted, summary, provider=summariser.provider_id, model=summariser.model,
                                            summary_tokens=tokens)
        except Exception as exc:  # noqa: BLE001 - whatever failed, the conversation goes on without those messages
            reason = str(exc) or type(exc).__name__
            log.warning("no summary could be made of %d messages: %s", len(plan.fresh), reason)
            compaction = dropped_compaction(plan.alone(), reason, provider=self.options.provider)
        self.compactions.append(compaction)
        self.emit(ev.ContextCompacted(compaction=compaction))
        return compaction

    async def summary_of_conversation(self) -> str:
        """A summary of the whole conversation (New chat from a summary): its live summaries and the messages they do
        not cover. SummaryFailedError when none could be made."""
        messages = self.conversation.messages
        ranges = [(first, last, c) for first, last, c in compacted_ranges(messages, self.compactions) if c.kind == "summary"]
        covered = {i for first, last, _ in ranges for i in range(first, last + 1)}
        fresh = [m for i, m in enumerate(messages) if i not in covered]
        if not fresh and not ranges:
            raise SummaryFailedError(tr("the conversation has no messages to summarise"))
        summary, _ = await self.summarise(CompactionPlan(list(messages), fresh, [c for *_, c in ranges]), await self._summariser())
        return summary

    async def summarise(self, plan: CompactionPlan, summariser: Summariser) -> tuple[str, int]:
        """(summary, its tokens as reported or 0) of the plan's messages by `summariser`."""
        profile = summariser.profile
        request = ProviderRequest(model=summariser.model, provider=summariser.provider_id, system=SUMMARY_SYSTEM,
                                  messages=[Message.user(summary_prompt(plan, summariser.provider_id, summariser.room))],
                                  max_tokens=summariser.max_tokens, thinks_in_tags=profile.thinking.value == "think_tags",
                                  sampling=profile.sampling.value)
        return await collect_summary(summariser.provider.stream(request))

    async def _summariser(self) -> Summariser:
        """The summariser chosen in Settings, else (or when it cannot be used) the conversation's provider and model."""
        own = (self.provider, self.options.provider, self.options.model)
        wanted, model = self.settings.summariser_provider, self.settings.summariser_model
        chosen = own
        if wanted or model:
            try:
                provider_id = self.runtime.provider_id(wanted or self.options.provider)
                model = model or self.runtime.spec(provider_id).default_model
                if provider_id == self.options.provider:
                    chosen = (self.provider, provider_id, model)
                else:
                    run = await self.runtime.prepare_run(provider_id, set())  # its key only: no tools are offered
                    chosen = (run.provider, provider_id, model)
            except Exception as exc:  # noqa: BLE001 - a summariser without its key or gone from the table: the conversation's own
                log.warning("the summariser %s/%s cannot be used (%s); the conversation's model writes the summary",
                            wanted, model, exc)
        provider, provider_id, model = chosen
        return Summariser(provider, provider_id, model, self.runtime.profile(provider_id, model))
