"""The agent loop: stream a reply, run the tool calls it asks for, send the results back, repeat.

The loop owns no I/O of its own: the provider, the tools and the `emit` callback are given to
it, so tests drive it with a loopback server and the GUI and `ask` consume the same events.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.agent.execution import ToolExecutor
from desktop_copilot.core.config.app_config import DEFAULT_MAX_TOKENS
from desktop_copilot.core.context.trimming import sent_messages
from desktop_copilot.core.conversation.history import is_refused
from desktop_copilot.core.conversation.models import Compaction, Message, MessageStatus, ToolCallBlock, ToolCallStatus, now
from desktop_copilot.core.providers.base import Provider, ProviderRequest
from desktop_copilot.core.tools.base import Tool, ToolContext
from desktop_copilot.core.tools.hooks import ToolHook
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

Emit = Callable[[ev.Event], None]
ConfirmLoop = Callable[[ev.LoopDetected], Awaitable["LoopChoice | bool"]]
"""Asked when the same call repeats LOOP_REPEATS times: CONTINUE_ONCE (True), ALLOW_REPEATS (this conversation does not
ask again) or STOP (False)."""


class LoopChoice(StrEnum):
    CONTINUE_ONCE = "once"
    ALLOW_REPEATS = "conversation"
    STOP = "stop"

LOOP_REPEATS = 3
STOPPED_RESULT = "Cancelled: the user stopped the reply before this tool call finished."


@dataclass(slots=True)
class RunOptions:
    model: str
    provider: str = "anthropic"
    system: str | None = None
    thinking_budget: int | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    max_tool_rounds: int = 10
    text_tools: bool = False
    thinks_in_tags: bool = False
    temperature: float | None = None
    top_p: float | None = None
    sampling: bool = True
    """What the model's profile and the conversation say (ProviderRequest has their meaning)."""
    context_window: int | None = None
    """The model's context window when a source knows it (not a guess); ProviderRequest has its meaning."""


class RequestContext(Protocol):
    """Keeps each request within the model's context window (core/context_keeper.py): requests send `compactions` in
    place of the messages they cover; `before_request` may compact first; `after_overflow` compacts after the provider
    said a request was too large, True when the request is worth sending once more."""

    compactions: list[Compaction]

    async def before_request(self, history: list[Message]) -> None: ...

    async def after_overflow(self, history: list[Message]) -> bool: ...


class AgentLoop:
    """One run of the conversation: model turns and tool rounds until the model is done."""

    def __init__(
        self,
        provider: Provider,
        tools: list[Tool],
        tool_context: ToolContext,
        options: RunOptions,
        emit: Emit,
        confirm_loop: ConfirmLoop | None = None,
        hooks: list[ToolHook] | None = None,
        context: RequestContext | None = None,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.options = options
        self.emit = emit
        self.confirm_loop = confirm_loop
        self.context = context
        self.executor = ToolExecutor(tools, tool_context, self._apply, hooks)
        self._recent_calls: list[str] = []

    def _apply(self, message: Message, event: ev.Event) -> None:
        event.message_id, event.snapshot = message.id, message
        accumulate(message, event)
        self.emit(event)

    def _finish(self, outcome: ev.RunOutcome, detail: str = "") -> ev.RunFinished:
        finished = ev.RunFinished(outcome=outcome, detail=detail)
        self.emit(finished)
        return finished

    async def run(self, history: list[Message]) -> ev.RunFinished:
        """Continue `history` (which ends with the user's message); appends the replies to it."""
        tool_rounds = 0
        while True:
            if self.context is not None:
                try:
                    await self.context.before_request(history)
                except asyncio.CancelledError:
                    self._finish("stopped", tr("Stopped by the user."))
                    raise
            message = Message.assistant(self.options.model, self.options.provider)
            request = self._request(history)
            history.append(message)
            self.emit(ev.MessageCreated(message=message, round=tool_rounds, message_id=message.id))
            try:
                await self._stream(history, message, request)
            except asyncio.CancelledError:
                self._stop(message)
                raise
            if message.status is not MessageStatus.COMPLETED:
                self._close_calls(message, "Not run: the reply did not finish. " + (message.error or ""))
                outcome = "interrupted" if message.status is MessageStatus.INTERRUPTED else "failed"
                return self._finish(outcome, message.error or "")
            if is_refused(message):
                self._close_calls(message, "Not run: the model declined to answer.")
                return self._finish("refused", message.error or tr("The model declined to answer this request."))
            calls = message.tool_calls
            if not calls:
                return self._finish("completed", message.stop_reason or "")
            if message.stop_reason == "max_tokens":
                self._close_calls(message, "Not run: the reply hit max_tokens while writing this call.")
                return self._finish("completed", "max_tokens")
            if tool_rounds >= self.options.max_tool_rounds:
                limit = self.options.max_tool_rounds
                self._close_calls(message, f"Not run: the limit of {limit} tool rounds was reached.")
                return self._finish("round_limit", tr("Stopped after {limit} tool rounds.").format(limit=limit))
            if not await self._loop_allowed(message, calls):
                self._close_calls(message, "Not run: the same call was repeated and the run was stopped.")
                return self._finish("loop", tr("Stopped: {tool} was called {count} times in a row with the same arguments.").format(
                    tool=calls[0].name, count=LOOP_REPEATS))
            tool_rounds += 1
            try:
                await self.executor.run_all(message, calls)
            except asyncio.CancelledError:
                self._stop(message)
                raise

    async def _stream(self, history: list[Message], message: Message, request: ProviderRequest) -> None:
        """Stream the reply into `message` (the last of `history`). A request the provider found larger than the
        context window, refused before anything arrived, is compacted and sent once more (the reply dated anew: the
        usage it reports counts the compaction, core/context/budget.py); failing again, its error says what to do."""
        retried = False
        while True:
            overflow: ev.Error | None = None
            emit, message_id = self.emit, message.id
            async for event in self.provider.stream(request):
                if type(event) is ev.TextDelta:  # most events: `_apply` inline
                    event.message_id, event.snapshot = message_id, message
                    accumulate(message, event)
                    emit(event)
                    continue
                if isinstance(event, ev.Error) and event.overflow and not message.blocks and self.context is not None:
                    overflow = event
                    continue
                self._apply(message, event)
            if overflow is None:
                return
            earlier = history[:-1]
            if not retried and await self.context.after_overflow(earlier):
                retried, request = True, self._request(earlier)
                message.created_at = now()  # a reply is dated by its request: this one counts the compaction just made
                continue
            from desktop_copilot.core.context.compaction import overflow_words

            overflow.message = overflow_words(overflow.message, compacted=retried)
            self._apply(message, overflow)
            return

    def _request(self, history: list[Message]) -> ProviderRequest:
        return ProviderRequest(
            model=self.options.model,
            messages=sent_messages(history, self.context.compactions if self.context is not None else ()),
            provider=self.options.provider,
            system=self.options.system,
            tools=[tool.spec() for tool in self.tools],
            max_tokens=self.options.max_tokens,
            thinking_budget=self.options.thinking_budget,
            text_tools=self.options.text_tools,
            thinks_in_tags=self.options.thinks_in_tags,
            temperature=self.options.temperature,
            top_p=self.options.top_p,
            sampling=self.options.sampling,
            context_window=self.options.context_window,
        )

    async def _loop_allowed(self, message: Message, calls: list[ToolCallBlock]) -> bool:
        for call in calls:
            signature = call.name.casefold() + json.dumps(call.arguments, sort_keys=True)
            self._recent_calls.append(signature)
            recent = self._recent_calls[-LOOP_REPEATS:]
            if len(recent) == LOOP_REPEATS and len(set(recent)) == 1:
                detected = ev.LoopDetected(name=call.name, arguments=call.arguments, repeats=LOOP_REPEATS, message_id=message.id)
                self.emit(detected)
                answer = await self.confirm_loop(detected) if self.confirm_loop is not None else LoopChoice.STOP
                if answer is True or answer in (LoopChoice.CONTINUE_ONCE, LoopChoice.ALLOW_REPEATS):
                    self._recent_calls.clear()
                    continue
                return False
        return True

    def _close_calls(self, message: Message, result: str, status: ToolCallStatus = ToolCallStatus.CANCELLED) -> None:
        """Give every unfinished call a result, so the history stays valid for the API."""
        for call in message.tool_calls:
            if not call.status.finished:
                self._apply(message, ev.ToolStatus(tool_call_id=call.id, name=call.name, status=status, result=result, is_error=True))

    def _stop(self, message: Message) -> None:
        if not message.status.finished:
            self._apply(message, ev.Error(reason="aborted", message=tr("Stopped by the user. The partial reply was kept.")))
        self._close_calls(message, STOPPED_RESULT)
        self._finish("stopped", tr("Stopped by the user."))
