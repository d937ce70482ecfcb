"""Tool calls waiting for the user's decision in every conversation: one future per call, answered from its card
(or the status bar's list of waiting calls), denied all at once when their run is stopped."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from desktop_copilot.core.approval.decisions import USER_CHOICES, ApprovalAnswer, ApprovalRequest, Decision

log = logging.getLogger(__name__)


class ApprovalDesk:
    def __init__(self) -> None:
        self._waiting: dict[str, tuple[str, ApprovalRequest, asyncio.Future[ApprovalAnswer]]] = {}
        """Tool call id -> (conversation id, the request, its answer)."""

    def ask(self, conversation_id: str, requests: list[ApprovalRequest]) -> Awaitable[list[ApprovalAnswer]]:
        """The requests wait from now on; the awaitable gives each one's answer (a cancelled run cancels the wait)."""
        loop = asyncio.get_running_loop()
        futures = [self._waiting.setdefault(r.tool_call_id, (conversation_id, r, loop.create_future()))[2] for r in requests]
        return self._answers(requests, futures)

    async def _answers(self, requests: list[ApprovalRequest], futures: list[asyncio.Future[ApprovalAnswer]]) -> list[ApprovalAnswer]:
        try:
            return list(await asyncio.gather(*futures))
        finally:
            for request in requests:
                self._waiting.pop(request.tool_call_id, None)

    def decide(self, tool_call_id: str, decision: str, reason: str = "") -> bool:
        """The user's answer for a waiting call; False when nothing waits for it or the decision is not the user's."""
        entry = self._waiting.get(tool_call_id)
        if entry is None or entry[2].done():
            return False
        try:
            choice = Decision(decision)
        except ValueError:
            log.warning("unknown approval decision %r ignored", decision)
            return False
        if choice not in USER_CHOICES and choice is not Decision.ALLOW_LIKE:
            return False
        if choice is Decision.ALLOW_LIKE:  # the card's "always allow calls like this": `reason` carries the pattern
            entry[2].set_result(ApprovalAnswer(choice, pattern=reason.strip()))
        else:
            entry[2].set_result(ApprovalAnswer(choice, reason.strip()))
        return True

    def waiting(self, conversation_id: str | None = None) -> list[str]:
        """Ids of the calls still waiting, of one conversation or (None) of all, in the order they were asked."""
        return [call_id for call_id, (owner, _request, answer) in self._waiting.items()
                if not answer.done() and (conversation_id is None or owner == conversation_id)]

    def waiting_requests(self) -> list[tuple[str, ApprovalRequest]]:
        """(conversation id, request) of every call still waiting, in the order they were asked."""
        return [(owner, request) for owner, request, answer in self._waiting.values() if not answer.done()]

    def conversation_of(self, tool_call_id: str) -> str | None:
        entry = self._waiting.get(tool_call_id)
        return entry[0] if entry is not None else None
