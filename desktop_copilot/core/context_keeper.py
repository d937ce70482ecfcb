"""ContextKeeper: keeps a chat session's requests within its model's context window. It compacts the older turns
before a request that would pass the threshold, and after the provider said one was too large: by a summary (the
conversation's model writes it, or the summariser chosen in Settings), or, when none could be made, by leaving them
out with a notice. Each compaction is told on the event stream (ContextCompacted); no message is ever changed."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from desktop_copilot.core.agent.loop import Emit, RunOptions
from desktop_copilot.core.config.app_config import DEFAULT_COMPACT_AT, DEFAULT_KEEP_TURNS
from desktop_copilot.core.context.compaction import (
    CompactionPlan,
    dropped_compaction,
    plan_compaction,
    stretch_tokens,
    summary_compaction,
)
from desktop_copilot.core.context.summary import SUMMARY_MAX_TOKENS, SUMMARY_SYSTEM, SummaryFailedError, collect_summary, summary_prompt
from desktop_copilot.core.context.tokens import estimate_tokens
from desktop_copilot.core.context.trimming import trim_old_tool_results
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.history import compacted_ranges, sendable_history
from desktop_copilot.core.conversation.models import Compaction, Conversation, Message
from desktop_copilot.core.providers.base import Provider, ProviderRequest, ToolSpec

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
        self._tools_tokens = estimate_tokens(json.dumps([asdict(tool) for tool in tools]), options.provider) if tools else 0

    @property
    def compactions(self) -> list[Compaction]:
        return self.conversation.compactions

    def window(self) -> int:
        """The model's context window in tokens, from its profile."""
        return self.runtime.profile(self.options.provider, self.options.model).context_window.value

    def request_tokens(self, history: list[Message]) -> int:
        """About how large the next request is: what it sends of `history` (as the agent loop's request does), the
        system prompt and the tools, and the output it reserves."""
        provider = self.options.provider
        sent = stretch_tokens(trim_old_tool_results(sendable_history(history, self.compactions)), provider)
        return sent + estimate_tokens(self.options.system or "", provider) + self._tools_tokens + self.options.max_tokens

    async def before_request(self, history: list[Message]) -> None:
        """Compact first when the request would pass `compact_at` of the window (what the user undid stays whole)."""
        if self.request_tokens(history) > self.settings.compact_at * self.window():
            await self.compact(history, respect_undone=True)

    async def after_overflow(self, history: list[Message]) -> bool:
        """The provider found the request too large: compact all but the last turns, or all but the current one when
        nothing is before them. True when something was compacted (the request is worth sending again)."""
        compaction = await self.compact(history, respect_undone=False)
        if compaction is None and self.settings.keep_turns > 1:
            compaction = await self.compact(history, respect_undone=False, keep_turns=1)
        return compaction is not None

    async def compact(self, history: list[Message], *, respect_undone: bool, keep_turns: int | None = None) -> Compaction | None:
        """Compact the oldest stretch `plan_compaction` finds, emit ContextCompacted and return it; None when there is
        nothing to compact. A summary that fails leaves the stretch out instead, with a notice."""
        plan = plan_compaction(history, self.compactions, keep_turns or self.settings.keep_turns, respect_undone=respect_undone)
        if plan is None:
            return None
        try:
            summary, tokens, provider_id, model = await self.summarise(plan)
            compaction = summary_compaction(plan, summary, provider=provider_id, model=model, summary_tokens=tokens)
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
            raise SummaryFailedError("the conversation has no messages to summarise")
        summary, *_ = await self.summarise(CompactionPlan(list(messages), fresh, [c for *_, c in ranges]))
        return summary

    async def summarise(self, plan: CompactionPlan) -> tuple[str, int, str, str]:
        """(summary, its tokens as reported or 0, provider id, model) of the plan's messages."""
        provider, provider_id, model = await self._summariser()
        profile = self.runtime.profile(provider_id, model)
        max_tokens = min(SUMMARY_MAX_TOKENS, profile.output_limit.value)
        room = int(profile.context_window.value * SUMMARY_INPUT_SHARE) - max_tokens - estimate_tokens(SUMMARY_SYSTEM, provider_id)
        request = ProviderRequest(model=model, messages=[Message.user(summary_prompt(plan, provider_id, room))],
                                  provider=provider_id, system=SUMMARY_SYSTEM, max_tokens=max_tokens,
                                  thinks_in_tags=profile.thinking.value == "think_tags", sampling=profile.sampling.value)
        summary, tokens = await collect_summary(provider.stream(request))
        return summary, tokens, provider_id, model

    async def _summariser(self) -> tuple[Provider, str, str]:
        """The summariser chosen in Settings, else (or when it cannot be used) the conversation's provider and model."""
        own = (self.provider, self.options.provider, self.options.model)
        wanted, model = self.settings.summariser_provider, self.settings.summariser_model
        if not wanted and not model:
            return own
        try:
            provider_id = self.runtime.provider_id(wanted or self.options.provider)
            model = model or self.runtime.spec(provider_id).default_model
            if provider_id == self.options.provider:
                return self.provider, provider_id, model
            run = await self.runtime.prepare_run(provider_id, set())  # its key only: no tools are offered
            return run.provider, provider_id, model
        except Exception as exc:  # noqa: BLE001 - a summariser without its key or gone from the table: the conversation's own
            log.warning("the summariser %s/%s cannot be used (%s); the conversation's model writes the summary",
                        wanted, model, exc)
            return own
