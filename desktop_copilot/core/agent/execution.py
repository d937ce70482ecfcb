"""Runs one round of tool calls: lookup with case repair, schema validation, hooks (approval among them),
concurrency, timeouts, and the size cap of what the model gets back."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Callable

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Message, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.tools.base import Tool, ToolArgumentsError, ToolContext, ToolError, ToolResult, find_tool
from desktop_copilot.core.tools.hooks import PendingCall, ToolHook
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

Apply = Callable[[Message, ev.Event], None]


class ToolExecutor:
    """Each call ends done, error or cancelled. Before-hooks see all calls of a round together (so the user
    decides them at once), in order; the approval hook comes last, so the user approves what will run."""

    def __init__(self, tools: list[Tool], context: ToolContext, apply: Apply, hooks: list[ToolHook] | None = None) -> None:
        self.tools = tools
        self.context = context
        self.hooks = list(hooks or [])
        self._apply = apply

    def _status(self, message: Message, call: ToolCallBlock, status: ToolCallStatus, result: str | ToolResult | None = None,
                *, is_error: bool = False, tool: Tool | None = None) -> None:
        source, title = (tool.source.name, tool.title if tool.title != call.name else "") if tool is not None else ("", "")
        if isinstance(result, ToolResult):
            event = ev.ToolStatus(tool_call_id=call.id, name=call.name, status=status, result=result.text, is_error=result.is_error,
                                  parts=result.parts, model_result=result.model_text, source=source, title=title)
        else:
            event = ev.ToolStatus(tool_call_id=call.id, name=call.name, status=status, result=result, is_error=is_error,
                                  source=source, title=title)
        self._apply(message, event)

    async def run_all(self, message: Message, calls: list[ToolCallBlock]) -> None:
        """Check every call, let the hooks decide on the valid ones, then run the allowed ones concurrently."""
        pending: list[PendingCall] = []
        for call in calls:
            checked = self._check(message, call)
            if checked is not None:
                pending.append(checked)
        try:
            for hook in self.hooks:
                await hook.before_round([p for p in pending if p.blocked is None], self.context)
        except asyncio.CancelledError:
            for waiting in pending:
                if waiting.call.status is ToolCallStatus.AWAITING_APPROVAL:
                    waiting.report_approval(decision="deny", reason=tr("The reply was stopped before a decision."))
            raise
        runnable = []
        for item in pending:
            if item.blocked is not None:
                log.info("tool call not run: name=%s id=%s (blocked before running)", item.name, item.call.id)
                self._status(message, item.call, ToolCallStatus.CANCELLED, item.blocked, is_error=True, tool=item.tool)
            elif (validated := self._revalidate(message, item)) is not None:
                runnable.append((item, validated))
        await asyncio.gather(*(self._run_one(message, item, validated) for item, validated in runnable))

    def _check(self, message: Message, call: ToolCallBlock) -> PendingCall | None:
        """The call ready for the hooks, or None after finishing it with an error the model can act on."""
        tool = find_tool(self.tools, call.name)
        if tool is None:
            names = ", ".join(t.name for t in self.tools) or "none"
            return self._refuse(message, call, f"Unknown tool '{call.name}'. Available tools: {names}.")
        if call.partial_arguments.strip() and not call.arguments:
            try:
                json.loads(call.partial_arguments)
            except ValueError:
                return self._refuse(message, call, f"The arguments for {tool.name} were not valid JSON: {call.partial_arguments[:500]}", tool)
        try:
            tool.validate(call.arguments)
        except ToolArgumentsError as exc:
            return self._refuse(message, call, str(exc), tool)
        item = PendingCall(call=call, tool=tool, arguments=dict(call.arguments))
        item.on_approval = lambda changed: self._approval_changed(message, changed)
        return item

    def _refuse(self, message: Message, call: ToolCallBlock, why: str, tool: Tool | None = None) -> None:
        log.warning("tool call refused: name=%r id=%s (%s)", call.name[:80], call.id,
                    "unknown tool" if tool is None else "invalid arguments")
        self._status(message, call, ToolCallStatus.ERROR, why, is_error=True, tool=tool)
        return None

    def _revalidate(self, message: Message, item: PendingCall) -> object | None:
        """The arguments that run, validated (a before-hook may have changed them)."""
        try:
            return item.tool.validate(item.arguments)
        except ToolArgumentsError as exc:
            self._refuse(message, item.call, f"A hook changed the arguments into invalid ones. {exc}", item.tool)
            return None

    def _approval_changed(self, message: Message, item: PendingCall) -> None:
        approval = item.approval.model_copy()
        if item.arguments != item.call.arguments:
            approval.arguments = dict(item.arguments)
        self._apply(message, ev.ToolApprovalChanged(tool_call_id=item.call.id, approval=approval))
        if approval.asked and not approval.decision:
            self._status(message, item.call, ToolCallStatus.AWAITING_APPROVAL, tool=item.tool)

    def _output_of(self, message: Message, call: ToolCallBlock) -> tuple[Callable[[str], None], Callable[[], None]]:
        """(report, close): `report(text)` shows `text` on `call`'s card as a ToolOutput event until `close()`, after
        which (the call ended) what a tool's leftover thread or callback reports is dropped."""
        open_ = True

        def report(text: str) -> None:
            if open_ and text:
                self._apply(message, ev.ToolOutput(tool_call_id=call.id, text=str(text)))

        def close() -> None:
            nonlocal open_
            open_ = False

        return report, close

    async def _run_one(self, message: Message, item: PendingCall, args: object) -> None:
        tool, call = item.tool, item.call
        self._status(message, call, ToolCallStatus.RUNNING, tool=tool)
        started = time.monotonic()
        outcome = "cancelled"
        report, close = self._output_of(message, call)
        context = dataclasses.replace(self.context, report_output=report,  # this call's: its output goes to its card
                                      message_id=message.id, tool_call_id=call.id)  # and file changes are kept by reply
        try:
            returned = await asyncio.wait_for(tool.run(args, context), timeout=tool.timeout)
            result = returned if isinstance(returned, ToolResult) else ToolResult(str(returned))
            for hook in self.hooks:
                result = await hook.after_call(item, result, self.context)
        except asyncio.CancelledError:
            self._status(message, call, ToolCallStatus.CANCELLED, "Cancelled by the user.", is_error=True, tool=tool)
            raise
        except TimeoutError:
            outcome = "timeout"
            self._status(message, call, ToolCallStatus.ERROR, f"{tool.name} timed out after {tool.timeout:g} s.", is_error=True, tool=tool)
        except ToolError as exc:
            outcome = "error"
            self._status(message, call, ToolCallStatus.ERROR, str(exc), is_error=True, tool=tool)
        except Exception as exc:  # a tool bug becomes an error result, never a crashed run
            outcome = "failed"
            log.exception("tool %s failed", tool.name)
            self._status(message, call, ToolCallStatus.ERROR, f"{tool.name} failed: {type(exc).__name__}: {exc}", is_error=True, tool=tool)
        else:
            outcome = "error result" if result.is_error else "ok"
            self._status(message, call, ToolCallStatus.ERROR if result.is_error else ToolCallStatus.DONE, result, tool=tool)
        finally:
            close()
            level = logging.INFO if outcome in ("ok", "cancelled") else logging.WARNING
            log.log(level, "tool run: name=%s id=%s outcome=%s duration=%.3fs",
                    tool.name, call.id, outcome, time.monotonic() - started)
