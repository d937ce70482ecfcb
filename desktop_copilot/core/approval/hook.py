"""The approval hook: read-only calls run, granted calls run, the rest wait for the user, all of a round together."""

from __future__ import annotations

import logging

from desktop_copilot.core.approval.decisions import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    Decision,
    denial_result,
)
from desktop_copilot.core.approval.grants import ALWAYS, CONVERSATION, Grant, GrantStore
from desktop_copilot.core.tools.base import ToolContext
from desktop_copilot.core.tools.hooks import PendingCall, ToolHook

log = logging.getLogger(__name__)


class ApprovalHook(ToolHook):
    """Runs last among the before-hooks, so the user approves the arguments that will actually run."""

    name = "approval"

    def __init__(self, approver: Approver, grants: GrantStore, conversation_title: str = "") -> None:
        self.approver = approver
        self.grants = grants
        self.conversation_title = conversation_title

    async def before_round(self, calls: list[PendingCall], ctx: ToolContext) -> None:
        waiting: list[tuple[PendingCall, ApprovalRequest]] = []
        for pending in calls:
            if pending.blocked is not None:
                continue
            tool = pending.tool
            if not tool.risk.needs_approval:
                pending.report_approval(risk=tool.risk.value, decision=Decision.READ_ONLY.value)
                continue
            if self.grants.covering(tool.name, tool.source.identity, ctx.conversation_id) is not None:
                pending.report_approval(risk=tool.risk.value, decision=Decision.GRANTED.value)
                continue
            preview = await self._preview(pending, ctx)
            request = ApprovalRequest(
                tool_call_id=pending.call.id, tool_name=tool.name, shown_name=tool.shown_name, source=tool.source,
                risk=tool.risk, arguments=pending.arguments, preview=preview, conversation_id=ctx.conversation_id,
                description=tool.description,
            )
            pending.report_approval(risk=tool.risk.value, asked=True, preview=preview, decision="")
            waiting.append((pending, request))
        if not waiting:
            return
        answers = await self.approver([request for _, request in waiting])
        if len(answers) != len(waiting):
            raise RuntimeError(f"the approver answered {len(answers)} of {len(waiting)} requests")
        for (pending, _request), answer in zip(waiting, answers):
            self._apply(pending, answer, ctx)

    async def _preview(self, pending: PendingCall, ctx: ToolContext) -> str:
        try:
            return await pending.tool.preview(pending.tool.validate(pending.arguments), ctx)
        except Exception as exc:  # a preview that fails must not hide the call: the user still sees the arguments
            log.warning("preview of %s failed: %s", pending.name, type(exc).__name__)
            return f"(No preview: {exc})"

    def _apply(self, pending: PendingCall, answer: ApprovalAnswer, ctx: ToolContext) -> None:
        tool = pending.tool
        pending.report_approval(decision=answer.decision.value, reason=answer.reason)
        log.info("tool approval: name=%s id=%s decision=%s", tool.name, pending.call.id, answer.decision.value)
        if not answer.decision.allows:
            pending.block(denial_result(tool.shown_name, answer.reason))
            return
        scope = {Decision.ALLOW_ALWAYS: ALWAYS, Decision.ALLOW_CONVERSATION: CONVERSATION}.get(answer.decision)
        if scope is None or (scope == CONVERSATION and not ctx.conversation_id):
            return
        self.grants.add(Grant(
            tool=tool.name, identity=tool.source.identity, scope=scope,
            conversation_id=ctx.conversation_id if scope == CONVERSATION else "",
            shown_name=tool.shown_name, source_label=tool.source.label,
            conversation_title=self.conversation_title if scope == CONVERSATION else "",
        ))
