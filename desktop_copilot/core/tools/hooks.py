"""Hooks around a tool call: before (change the arguments or block with a reason) and after (change the result).

Plugins add hooks through the `desktop_copilot.tool_hooks` entry-point group: each entry point names a
ToolHook subclass (made with no arguments) or a function returning a ToolHook. The app's own approval,
result size cap and logging are hooks too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop_copilot.core.conversation.models import ToolApproval, ToolCallBlock
from desktop_copilot.core.tools.base import Tool, ToolContext, ToolResult

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "desktop_copilot.tool_hooks"


@dataclass(slots=True)
class PendingCall:
    """One tool call on its way to running: what the hooks see and may change."""

    call: ToolCallBlock
    tool: Tool
    arguments: dict[str, Any]
    """The arguments that will run (a before-hook may replace them; they are validated again)."""
    blocked: str | None = None
    """Why the call must not run (set by `block`); the model gets it as an error result."""
    approval: ToolApproval = field(default_factory=ToolApproval)
    on_approval: Callable[[PendingCall], None] | None = None

    @property
    def name(self) -> str:
        return self.tool.name

    def block(self, reason: str) -> None:
        self.blocked = reason

    def report_approval(self, **changes: Any) -> None:
        """Update the approval state and show it (the card, the store)."""
        for key, value in changes.items():
            setattr(self.approval, key, value)
        if self.on_approval is not None:
            self.on_approval(self)


class ToolHook:
    """Override `before_call` / `after_call` (or `before_round` to see all calls of a round at once)."""

    name: str = "hook"

    async def before_round(self, calls: list[PendingCall], ctx: ToolContext) -> None:
        for pending in calls:
            if pending.blocked is None:
                await self.before_call(pending, ctx)

    async def before_call(self, pending: PendingCall, ctx: ToolContext) -> None:
        """Change `pending.arguments`, or call `pending.block(reason)`."""

    async def after_call(self, pending: PendingCall, result: ToolResult, ctx: ToolContext) -> ToolResult:
        """Return the result to keep (the same one, or a changed one)."""
        return result


class ResultCapHook(ToolHook):
    """The model gets at most `limit` characters of a result, with a note that it was cut; the card keeps the whole."""

    name = "result_cap"

    def __init__(self, limit: int) -> None:
        self.limit = limit

    async def after_call(self, pending: PendingCall, result: ToolResult, ctx: ToolContext) -> ToolResult:
        text = result.model_text if result.model_text is not None else result.text
        if len(text) <= self.limit:
            return result
        cut = text[: self.limit]
        newline = cut.rfind("\n")
        if newline > self.limit * 0.8:
            cut = cut[:newline]
        note = (f"\n\n[Result cut: {len(cut):,} of {len(text):,} characters shown. "
                "Ask for a narrower query or a smaller range to see the rest.]")
        result.model_text = cut + note
        return result


class LoggingHook(ToolHook):
    """Writes one line per decision to the log: which call ran with what approval (never the arguments)."""

    name = "logging"

    async def after_call(self, pending: PendingCall, result: ToolResult, ctx: ToolContext) -> ToolResult:
        log.info("tool result: name=%s id=%s source=%s approval=%s chars=%d parts=%d error=%s",
                 pending.name, pending.call.id, pending.tool.source.label, pending.approval.decision or "-",
                 len(result.text), len(result.parts), result.is_error)
        return result


def plugin_hooks() -> list[ToolHook]:
    """Hooks installed packages offer through the entry-point group; one that fails to load is logged and skipped."""
    from desktop_copilot.core.entry_points import entry_points

    hooks: list[ToolHook] = []
    for entry in entry_points(ENTRY_POINT_GROUP):
        try:
            made = entry.load()()
        except Exception:
            log.exception("tool hook %s (%s) could not be loaded; it is skipped", entry.name, entry.value)
            continue
        if not isinstance(made, ToolHook):
            log.warning("tool hook %s (%s) is not a ToolHook; it is skipped", entry.name, entry.value)
            continue
        hooks.append(made)
        log.info("tool hook loaded: %s (%s)", entry.name, entry.value)
    return hooks
