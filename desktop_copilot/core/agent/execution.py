"""Runs one round of tool calls: lookup with case repair, argument validation, concurrency, timeouts."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable

from pydantic import ValidationError

from desktop_copilot.core import events as ev
from desktop_copilot.core.models import Message, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.tools.base import Tool, ToolContext, ToolError, describe_validation_error, find_tool

log = logging.getLogger(__name__)

Apply = Callable[[Message, ev.Event], None]


class ToolExecutor:
    def __init__(self, tools: list[Tool], context: ToolContext, apply: Apply) -> None:
        self.tools = tools
        self.context = context
        self._apply = apply

    def _status(self, message: Message, call: ToolCallBlock, status: ToolCallStatus, result: str | None = None,
                *, is_error: bool = False) -> None:
        self._apply(message, ev.ToolStatus(tool_call_id=call.id, name=call.name, status=status, result=result, is_error=is_error))

    async def run_all(self, message: Message, calls: list[ToolCallBlock]) -> None:
        """Run the calls concurrently; each ends done, error or cancelled."""
        await asyncio.gather(*(self._run_one(message, call) for call in calls))

    def _refusal(self, call: ToolCallBlock) -> tuple[Tool | None, str | None]:
        tool = find_tool(self.tools, call.name)
        if tool is None:
            names = ", ".join(t.name for t in self.tools) or "none"
            return None, f"Unknown tool '{call.name}'. Available tools: {names}."
        if call.partial_arguments.strip() and not call.arguments:
            try:
                json.loads(call.partial_arguments)
            except ValueError:
                return None, f"The arguments for {tool.name} were not valid JSON: {call.partial_arguments[:500]}"
        return tool, None

    async def _run_one(self, message: Message, call: ToolCallBlock) -> None:
        tool, refusal = self._refusal(call)
        if tool is None:
            log.warning("tool call refused: name=%r id=%s (unknown tool or arguments not JSON)",
                        call.name[:80], call.id)
            self._status(message, call, ToolCallStatus.ERROR, refusal, is_error=True)
            return
        try:
            args = tool.arguments.model_validate(call.arguments)
        except ValidationError as exc:
            log.warning("tool call refused: name=%s id=%s (%d invalid arguments)",
                        tool.name, call.id, exc.error_count())
            self._status(message, call, ToolCallStatus.ERROR, describe_validation_error(tool.name, exc), is_error=True)
            return
        self._status(message, call, ToolCallStatus.RUNNING)
        started = time.monotonic()
        outcome = "cancelled"
        try:
            result = await asyncio.wait_for(tool.run(args, self.context), timeout=tool.timeout)
        except asyncio.CancelledError:
            self._status(message, call, ToolCallStatus.CANCELLED, "Cancelled by the user.", is_error=True)
            raise
        except TimeoutError:
            outcome = "timeout"
            self._status(message, call, ToolCallStatus.ERROR, f"{tool.name} timed out after {tool.timeout:g} s.", is_error=True)
        except ToolError as exc:
            outcome = "error"
            self._status(message, call, ToolCallStatus.ERROR, str(exc), is_error=True)
        except Exception as exc:  # a tool bug becomes an error result, never a crashed run
            outcome = "failed"
            log.exception("tool %s failed", tool.name)
            self._status(message, call, ToolCallStatus.ERROR, f"{tool.name} failed: {type(exc).__name__}: {exc}", is_error=True)
        else:
            outcome = "ok"
            log.debug("tool %s returned %d characters", tool.name, len(str(result)))
            self._status(message, call, ToolCallStatus.DONE, result)
        finally:
            level = logging.INFO if outcome in ("ok", "cancelled") else logging.WARNING
            log.log(level, "tool run: name=%s id=%s outcome=%s duration=%.3fs",
                    tool.name, call.id, outcome, time.monotonic() - started)
