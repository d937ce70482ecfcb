"""What to compact and what it becomes: the oldest stretch of whole turns before the last few (`plan_compaction`), the
`Compaction` made from its summary, or a dropped one when no summary could be made, and the words said about both."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from desktop_copilot.core.context.overflow import OVERFLOW_WORDS
from desktop_copilot.core.context.tokens import estimate_tokens, message_tokens
from desktop_copilot.core.conversation.history import DROPPED_NOTE, compacted_ranges, turn_starts
from desktop_copilot.core.conversation.models import Compaction, Message
from desktop_copilot.core.words import tr


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """The stretch to compact: `messages`, the whole range (those of the compactions it takes over included), of which
    `fresh` were never compacted; `replaces`, the live compactions just before it whose summaries it takes over."""

    messages: list[Message]
    fresh: list[Message]
    replaces: list[Compaction] = field(default_factory=list)

    def alone(self) -> CompactionPlan:
        """Only the fresh messages, taking nothing over (what a dropped compaction covers: older summaries stay)."""
        return CompactionPlan(self.fresh, self.fresh)

    def ending_at(self, count: int) -> CompactionPlan:
        """Only the first `count` fresh messages (a turn begins after them): the rest waits for the next compaction."""
        left = len(self.fresh) - count
        return CompactionPlan(self.messages[: len(self.messages) - left], self.fresh[:count], self.replaces)


def plan_compaction(messages: Sequence[Message], compactions: Sequence[Compaction], keep_turns: int, *,
                    respect_undone: bool = True) -> CompactionPlan | None:
    """The oldest stretch not yet compacted that ends before the last `keep_turns` turns, on a turn whose calls all
    have their results; it takes over the live summaries right before it. `respect_undone`: leave alone what the user
    undid (automatic compaction; Compact now and an overflow may compact it again). None when nothing is left."""
    keep = max(1, keep_turns)
    starts = turn_starts(messages)
    if len(starts) <= keep:
        return None
    ranges = compacted_ranges(messages, compactions)
    start = max((last + 1 for _, last, _ in ranges), default=0)
    if respect_undone:
        start = max(start, _after_undone(messages, compactions))
    ends = [s for s in starts[: len(starts) - keep + 1] if s > start]  # turn starts the stretch may end before, oldest first
    while ends and not _complete(messages[start : ends[-1]]):
        ends.pop()
    if not ends:
        return None
    end = ends[-1]
    replaces, first = [], start
    for range_first, range_last, compaction in reversed(ranges):
        if range_last + 1 != first or compaction.kind != "summary":
            break
        replaces.insert(0, compaction)
        first = range_first
    return CompactionPlan(list(messages[first:end]), list(messages[start:end]), replaces)


def summary_compaction(plan: CompactionPlan, summary: str, *, provider: str | None, model: str | None,
                       summary_tokens: int = 0) -> Compaction:
    """The compaction that sends `summary` in place of the plan's messages."""
    return Compaction(first_message_id=plan.messages[0].id, last_message_id=plan.messages[-1].id, kind="summary",
                      summary=summary, messages=len(plan.messages), tokens_before=stretch_tokens(plan.messages, provider),
                      tokens_after=summary_tokens or estimate_tokens(summary, provider), model=model, provider=provider,
                      replaces=[c.id for c in plan.replaces])


def dropped_compaction(plan: CompactionPlan, reason: str, *, provider: str | None = None) -> Compaction:
    """The compaction that leaves the plan's fresh messages out of requests, with a note, when no summary could be
    made (`reason` says why; it is kept, never sent)."""
    messages = plan.fresh
    note = DROPPED_NOTE.format(count=len(messages))
    return Compaction(first_message_id=messages[0].id, last_message_id=messages[-1].id, kind="dropped", summary=reason,
                      messages=len(messages), tokens_before=stretch_tokens(messages, provider),
                      tokens_after=estimate_tokens(note, provider))


def stretch_tokens(messages: Sequence[Message], provider: str | None = None) -> int:
    return sum(message_tokens(message, provider) for message in messages)


def compaction_notice(compaction: Compaction) -> str:
    """What a compaction did, in a sentence (`ask` prints it after "note: ")."""
    numbers = {"count": compaction.messages, "before": compaction.tokens_before, "after": compaction.tokens_after}
    if compaction.kind == "summary":
        return tr("compacted {count} messages ({before} → {after} tokens)").format(**numbers)
    if compaction.summary:
        return tr("compacted {count} messages ({before} → {after} tokens) by leaving them out of requests: the context "
                  "window was full and no summary could be made ({why}). They are kept, and Undo compaction sends them "
                  "again.").format(**numbers, why=compaction.summary)
    return tr("compacted {count} messages ({before} → {after} tokens) by leaving them out of requests: the context window "
              "was full and no summary could be made. They are kept, and Undo compaction sends them again.").format(**numbers)


def overflow_words(said: str, *, compacted: bool) -> str:
    """The error of a request still larger than the model's context window once compaction had its chance (`said`:
    the provider's error as the wire worded it, core/context/overflow.py; only what the provider answered is kept)."""
    answered = _answered(said)
    if compacted:
        what = (tr("The conversation is still longer than the model's context window after its older turns were "
                   "compacted ({answered}).") if answered else
                tr("The conversation is still longer than the model's context window after its older turns were compacted."))
    else:
        what = (tr("The conversation is longer than the model's context window, and no older turns could be compacted "
                   "({answered}).") if answered else
                tr("The conversation is longer than the model's context window, and no older turns could be compacted."))
    return " ".join([what.format(answered=answered), tr("Use Compact now to summarise more of it, or New chat from a "
                                                        "summary to go on in a new conversation; every message is kept.")])


def _answered(words: str) -> str:
    """What the provider answered, out of the wire's overflow sentence (OVERFLOW_WORDS, in English or as translated),
    else `words` as they are."""
    for template in dict.fromkeys((tr(OVERFLOW_WORDS), OVERFLOW_WORDS)):
        prefix, _, suffix = template.partition("{said}")
        if words.startswith(prefix) and suffix in words:
            return words[len(prefix) : words.rindex(suffix)].strip()
    return words.strip().rstrip(".。")


def _complete(messages: Sequence[Message]) -> bool:
    """Whether every tool call among `messages` has its result."""
    return all(call.status.finished for message in messages for call in message.tool_calls)


def _after_undone(messages: Sequence[Message], compactions: Sequence[Compaction]) -> int:
    """The position after the last message of a compaction the user undid (0 when none)."""
    undone_ends = {c.last_message_id for c in compactions if c.undone}
    return max((i + 1 for i, m in enumerate(messages) if m.id in undone_ends), default=0)
