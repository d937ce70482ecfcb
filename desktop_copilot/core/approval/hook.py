"""The approval hook: the permission rules decide first (a deny holds even under `ask --yes`); without a rule, read-only
calls run, granted calls run, and the rest wait for the user, all of a round together."""

from __future__ import annotations

import logging

from desktop_copilot.core.approval.decisions import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    Decision,
    denial_result,
    rule_denial_result,
)
from desktop_copilot.core.approval.grants import ALWAYS, CONVERSATION, Grant, GrantStore
from desktop_copilot.core.approval.rules import Action, CallSubject, call_argument, make_rule, proposed_pattern, rule_name
from desktop_copilot.core.tools.base import ToolContext
from desktop_copilot.core.tools.hooks import PendingCall, ToolHook
from desktop_copilot.core.words import tr

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
            decided = self.grants.deciding(self.subject(pending, ctx), tool.name)
            rule, grant = decided if decided is not None else (None, None)
            if grant is not None and not getattr(tool, "grantable", True):
                rule = grant = None  # a grant of the whole tool does not cover it: only a rule with its pattern does
            if rule is not None and rule.action is Action.DENY:
                pending.report_approval(risk=tool.risk.value, decision=Decision.RULE_DENIED.value, reason=rule.describe())
                pending.block(rule_denial_result(tool.shown_name, rule.describe()))
                log.info("tool call denied by a rule: name=%s id=%s rule=%s", tool.name, pending.call.id, rule.describe())
                continue
            if rule is not None and rule.action is Action.ALLOW:
                decision = Decision.GRANTED if grant is not None else Decision.RULE_ALLOWED
                pending.report_approval(risk=tool.risk.value, decision=decision.value,
                                        reason="" if grant is not None else rule.describe())
                continue
            if rule is None and not tool.risk.needs_approval:
                pending.report_approval(risk=tool.risk.value, decision=Decision.READ_ONLY.value)
                continue
            preview = await self._preview(pending, ctx)
            subject = self.subject(pending, ctx)
            request = ApprovalRequest(
                tool_call_id=pending.call.id, tool_name=tool.name, shown_name=tool.shown_name, source=tool.source,
                risk=tool.risk, arguments=pending.arguments, preview=preview, conversation_id=ctx.conversation_id,
                description=tool.description, rule_tool=subject.tool, rule_argument=subject.argument,
                proposed_pattern=proposed_pattern(tool.name, subject.argument) if tool.source.kind == "builtin" else "",
            )
            pending.report_approval(risk=tool.risk.value, asked=True, preview=preview, decision="",
                                    proposed_pattern=request.proposed_pattern)
            waiting.append((pending, request))
        if not waiting:
            return
        answers = await self.approver([request for _, request in waiting])
        if len(answers) != len(waiting):
            raise RuntimeError(f"the approver answered {len(answers)} of {len(waiting)} requests")
        for (pending, request), answer in zip(waiting, answers):
            self._apply(pending, answer, ctx, request)

    @staticmethod
    def subject(pending: PendingCall, ctx: ToolContext) -> CallSubject:
        """What the rules see of the call: its tool's rule name, its main argument, its source, its conversation."""
        tool = pending.tool
        name = rule_name(tool.source.kind, tool.source.name, tool.name, getattr(tool, "tool_name", ""))
        argument = call_argument(tool.name, pending.arguments, ctx.workspace) if tool.source.kind == "builtin" else None
        return CallSubject(name, argument, tool.source.identity, ctx.conversation_id)

    async def _preview(self, pending: PendingCall, ctx: ToolContext) -> str:
        try:
            return await pending.tool.preview(pending.tool.validate(pending.arguments), ctx)
        except Exception as exc:  # a preview that fails must not hide the call: the user still sees the arguments
            log.warning("preview of %s failed: %s", pending.name, type(exc).__name__)
            return tr("(No preview: {error})").format(error=exc)

    def _apply(self, pending: PendingCall, answer: ApprovalAnswer, ctx: ToolContext, request: ApprovalRequest) -> None:
        tool = pending.tool
        pending.report_approval(decision=answer.decision.value, reason=answer.reason)
        log.info("tool approval: name=%s id=%s decision=%s", tool.name, pending.call.id, answer.decision.value)
        if not answer.decision.allows:
            pending.block(denial_result(tool.shown_name, answer.reason))
            return
        if answer.decision is Decision.ALLOW_LIKE:
            pattern = answer.pattern.strip()
            if pattern or request.rule_argument is None:  # an emptied pattern of a tool with an argument: just this once
                rule = self.grants.add_rule(make_rule("allow", request.rule_tool, pattern))
                pending.report_approval(reason=rule.describe())
            return
        scope = {Decision.ALLOW_ALWAYS: ALWAYS, Decision.ALLOW_CONVERSATION: CONVERSATION}.get(answer.decision)
        if scope is None or (scope == CONVERSATION and not ctx.conversation_id):
            return
        self.grants.add(Grant(
            tool=tool.name, identity=tool.source.identity, scope=scope,
            rule_tool=rule_name(tool.source.kind, tool.source.name, tool.name, getattr(tool, "tool_name", "")),
            conversation_id=ctx.conversation_id if scope == CONVERSATION else "",
            shown_name=tool.shown_name, source_label=tool.source.label,
            conversation_title=self.conversation_title if scope == CONVERSATION else "",
        ))
