"""The summary request's words: its system prompt, the compacted messages rendered as text (an attachment as a
one-line note, a long tool result as its head and tail), and the reply's text collected from its events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Sequence

from desktop_copilot.core.context.compaction import CompactionPlan
from desktop_copilot.core.context.tokens import estimate_tokens
from desktop_copilot.core.context.trimming import excerpt
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.history import is_refused, turn_starts
from desktop_copilot.core.conversation.models import (
    DocumentBlock,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    TextFileBlock,
    ToolCallBlock,
)
from desktop_copilot.core.words import tr

SUMMARY_SYSTEM = (
    "You write the summary that takes the place of the earlier part of a conversation between a user and an AI "
    "assistant. The assistant will go on with only your summary and the latest messages, so keep everything it needs: "
    "what the user asked for and their instructions and preferences, decisions made and why, facts and figures, names "
    "of files, functions, commands and URLs, what each tool was asked and what it returned, results reached, and the "
    "questions still open. Be faithful: add nothing that was not said, and say who said what. Be dense: no preamble, "
    "no pleasantries, no advice. Write in the language of the conversation."
)
SUMMARY_MAX_TOKENS = 4096
"""The summary's output limit (lower when the summariser's model writes less)."""
TOOL_RESULT_CHARS = 4000
"""Characters of one tool result the summariser reads at most (its head and its tail)."""


class SummaryFailedError(Exception):
    """The summary request failed, stalled or came back empty; the message says why."""


PROMPT_WORDS = 40
"""Tokens of the summary prompt's own words around the transcript, at most."""


def summary_prompt(plan: CompactionPlan, provider: str | None = None, max_tokens: int | None = None) -> str:
    """The user message of the summary request: the summaries it takes over, then the fresh messages as a transcript,
    cut in the middle with a note when it would pass `max_tokens` (`fitting` keeps a compaction's plan within it; only
    a single turn longer than that, or a whole conversation's summary, is cut)."""
    parts = _taken_over(plan)
    transcript = render_messages(plan.fresh)
    if max_tokens is not None:
        transcript = _fit(transcript, max(1000, max_tokens - sum(estimate_tokens(p, provider) for p in parts)), provider)
    parts.append(f"The conversation{' after it' if plan.replaces else ''}:\n\n{transcript}")
    parts.append("Write the summary of all of the above now.")
    return "\n\n".join(parts)


def fitting(plan: CompactionPlan, max_tokens: int, provider: str | None = None) -> CompactionPlan:
    """`plan` ended at the last turn start whose summary prompt stays within `max_tokens` (the summariser's room), so
    the summariser reads every word of what the compaction claims; the turns after it wait for the next compaction.
    At least the first turn (one longer than the room alone is cut in the middle by `summary_prompt`)."""
    room = max_tokens - PROMPT_WORDS - sum(estimate_tokens(part, provider) for part in _taken_over(plan))
    ends = [start for start in turn_starts(plan.fresh) if start > 0] + [len(plan.fresh)]
    used, done, end = 0, 0, ends[0]
    for boundary in ends:
        used += sum(estimate_tokens(render_messages([message]), provider) for message in plan.fresh[done:boundary])
        if used > room:
            break
        done = end = boundary
    return plan if end == len(plan.fresh) else plan.ending_at(end)


def render_messages(messages: Sequence[Message]) -> str:
    """The messages as a plain transcript (thinking and refused exchanges left out)."""
    lines: list[str] = []
    for message in messages:
        if is_refused(message):
            continue
        lines.append("[User]" if message.role is Role.USER else "[Assistant]")
        for block in message.blocks:
            if isinstance(block, TextBlock) and block.text.strip():
                lines.append(block.text.strip())
            elif isinstance(block, ToolCallBlock):
                lines.append(f"[Tool call {block.name}] {json.dumps(block.arguments, ensure_ascii=False)}")
                result = block.model_result if block.model_result is not None else block.result
                error = " (error)" if block.is_error else ""
                result = result or ""
                lines.append(f"[Tool result{error}] {excerpt(result, TOOL_RESULT_CHARS) if len(result) > TOOL_RESULT_CHARS else result}")
            elif isinstance(block, ImageBlock | DocumentBlock | TextFileBlock):
                lines.append(attachment_note(block))
        lines.append("")
    return "\n".join(lines).strip()


def attachment_note(block: ImageBlock | DocumentBlock | TextFileBlock) -> str:
    """One line for an attachment in place of its contents."""
    name = block.name or "unnamed"
    if isinstance(block, ImageBlock):
        shape = f", {block.width}×{block.height}" if block.width and block.height else ""
        return f"(attached image: {name}{shape}; not shown here)"
    if isinstance(block, DocumentBlock):
        pages = f", {block.pages} pages" if block.pages else ""
        return f"(attached PDF: {name}{pages}; not shown here)"
    return f"(attached text file: {name}, {len(block.text)} characters; not shown here)"


async def collect_summary(events: AsyncIterable[ev.Event]) -> tuple[str, int]:
    """The reply's text and its output tokens as reported (0 when not); SummaryFailedError when the stream reports an
    error (a stall is one: the provider's deadlines end it), a refusal, or no text."""
    text: list[str] = []
    output_tokens = 0
    async for event in events:
        if isinstance(event, ev.TextDelta):
            text.append(event.text)
        elif isinstance(event, ev.UsageUpdate):
            output_tokens = event.usage.output_tokens or output_tokens
        elif isinstance(event, ev.Error):
            raise SummaryFailedError(event.message or tr("the summary request failed"))
        elif isinstance(event, ev.Done) and event.reason == "refusal":
            raise SummaryFailedError(event.detail or tr("the model declined to write the summary"))
    summary = "".join(text).strip()
    if not summary:
        raise SummaryFailedError(tr("the summary came back empty"))
    return summary, output_tokens


def _taken_over(plan: CompactionPlan) -> list[str]:
    """The prompt's parts that carry the summaries the plan takes over."""
    return [f"Summary of the part before (already compacted):\n\n{c.summary.strip()}" for c in plan.replaces]


def _fit(text: str, max_tokens: int, provider: str | None) -> str:
    """`text` within about `max_tokens`: its beginning and its end, with a note of what was left out between them."""
    tokens = estimate_tokens(text, provider)
    if tokens <= max_tokens:
        return text
    keep = int(len(text) * max_tokens / tokens * 0.95)
    head, tail = text[: keep // 2], text[-(keep // 2):]
    return (f"{head}\n\n[… about {tokens - max_tokens} tokens of the conversation are left out here: too long to "
            f"summarise at once …]\n\n{tail}")
