"""What the user can answer to an approval request, and the Approver interface the window and `ask` implement."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from desktop_copilot.core.tools.base import Risk, ToolSource


class Decision(StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_CONVERSATION = "allow_conversation"
    ALLOW_ALWAYS = "allow_always"
    DENY = "deny"
    # decided without asking:
    READ_ONLY = "read_only"
    """The tool declares it changes nothing."""
    GRANTED = "granted"
    """A grant the user gave earlier covers the call."""
    YES_FLAG = "yes_flag"
    """`ask --yes`."""
    BLOCKED = "blocked"
    """A hook refused the call."""

    @property
    def allows(self) -> bool:
        return self not in (Decision.DENY, Decision.BLOCKED)

    @property
    def label(self) -> str:
        return DECISION_LABELS[self]


DECISION_LABELS = {
    Decision.ALLOW_ONCE: "Allowed once",
    Decision.ALLOW_CONVERSATION: "Allowed in this conversation",
    Decision.ALLOW_ALWAYS: "Always allowed",
    Decision.DENY: "Denied",
    Decision.READ_ONLY: "Read-only: ran without asking",
    Decision.GRANTED: "Allowed by an earlier grant",
    Decision.YES_FLAG: "Allowed by --yes",
    Decision.BLOCKED: "Blocked",
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


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    decision: Decision
    reason: str = ""
    """Why the user denied it (sent to the model), optional."""


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
