"""What the user can answer to an approval request, and the Approver interface the window and `ask` implement."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from desktop_copilot.core.tools.base import Risk, ToolSource
from desktop_copilot.core.words import N_


class Decision(StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_CONVERSATION = "allow_conversation"
    ALLOW_ALWAYS = "allow_always"
    DENY = "deny"
    ALLOW_LIKE = "allow_like"
    """Allow this call, and add an allow rule for calls like it (the pattern the card proposed, as the user edited it)."""
    # decided without asking:
    READ_ONLY = "read_only"
    """The tool declares it changes nothing."""
    GRANTED = "granted"
    """A grant the user gave earlier covers the call."""
    YES_FLAG = "yes_flag"
    """`ask --yes`."""
    BLOCKED = "blocked"
    """A hook refused the call."""
    RULE_ALLOWED = "rule_allowed"
    """A permission rule allows the call (core/approval/rules.py)."""
    RULE_DENIED = "rule_denied"
    """A permission rule denies the call; it is not run, and the model is told which rule."""

    @property
    def allows(self) -> bool:
        return self not in (Decision.DENY, Decision.BLOCKED, Decision.RULE_DENIED)

    @property
    def label(self) -> str:
        return DECISION_LABELS[self]


DECISION_LABELS = {
    Decision.ALLOW_ONCE: N_("Allowed once"),
    Decision.ALLOW_CONVERSATION: N_("Allowed in this conversation"),
    Decision.ALLOW_ALWAYS: N_("Always allowed"),
    Decision.DENY: N_("Denied"),
    Decision.ALLOW_LIKE: N_("Allowed, with a rule for calls like it"),
    Decision.READ_ONLY: N_("Read-only: ran without asking"),
    Decision.GRANTED: N_("Allowed by an earlier grant"),
    Decision.YES_FLAG: N_("Allowed by --yes"),
    Decision.BLOCKED: N_("Blocked"),
    Decision.RULE_ALLOWED: N_("Allowed by a rule"),
    Decision.RULE_DENIED: N_("Denied by a rule"),
}

USER_CHOICES = (Decision.ALLOW_ONCE, Decision.ALLOW_CONVERSATION, Decision.ALLOW_ALWAYS, Decision.DENY)


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """One call waiting for the user: everything the card or the terminal prompt shows."""

    tool_call_id: str
    tool_name: str
    shown_name: str
    source: ToolSource
    risk: Risk
    arguments: dict[str, Any]
    preview: str = ""
    conversation_id: str = ""
    description: str = ""
    rule_tool: str = ""
    """The tool as rules name it (`shell`, `mcp:notes/delete_note`)."""
    rule_argument: str | None = None
    """The call's main argument as rules match it (the command, the workspace path, the host); None without one."""
    proposed_pattern: str = ""
    """What "always allow calls like this" would allow (`git status*`); "" when the tool has no main argument."""


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    decision: Decision
    reason: str = ""
    """Why the user denied it (sent to the model), optional."""
    pattern: str = ""
    """With ALLOW_LIKE: the pattern of the allow rule to add."""


Approver = Callable[[list[ApprovalRequest]], Awaitable[list[ApprovalAnswer]]]
"""Asks the user about every call of one round at once; returns one answer per request, in order."""


@dataclass(slots=True)
class FixedApprover:
    """Answers every request the same way without asking: `ask` with no terminal (deny) or with --yes (allow)."""

    answer: ApprovalAnswer
    asked: list[ApprovalRequest] = field(default_factory=list)

    async def __call__(self, requests: list[ApprovalRequest]) -> list[ApprovalAnswer]:
        self.asked.extend(requests)
        return [self.answer for _ in requests]


NO_TERMINAL_REASON = "there was no terminal to ask the user on (run `ask` with --yes, or allow the tool in Settings ▸ Permissions)"


def deny_without_terminal() -> FixedApprover:
    return FixedApprover(ApprovalAnswer(Decision.DENY, NO_TERMINAL_REASON))


def allow_all() -> FixedApprover:
    return FixedApprover(ApprovalAnswer(Decision.YES_FLAG))


def denial_result(shown_name: str, reason: str) -> str:
    """The error result a denied call sends to the model."""
    text = f"The user declined to run {shown_name}."
    if reason.strip():
        text += f" Reason: {reason.strip()}"
    return text + " Do not call it again with the same arguments unless the user asks; continue without it."


def rule_denial_result(shown_name: str, rule: str) -> str:
    """The error result a call denied by a rule sends to the model: which rule, and that asking again will not help."""
    return (f"{shown_name} was not run: the user's permission rule `{rule}` denies it (Settings ▸ Permissions). "
            "Do not call it again with the same arguments; continue without it or ask the user.")
