"""`accumulate(message, event)`: fold one unified event into an assistant message snapshot.

The snapshot is updated in place and returned (like the SDK's `accumulate_event`), so the
cost of a delta does not grow with the length of the reply: a streaming text is kept as pieces (Message.grow) and
joined when it is read as a whole (Message.settle). Only the agent loop calls it; the store's recorder and the Qt
model are handed the same events afterwards and read the snapshot (settling it first).

What it takes in is made storable and sendable on the way (core/conversation/clean_values.py: lone surrogates become
U+FFFD, NaN and infinities null), from whichever provider or tool it came.
"""

from __future__ import annotations

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import (
    Message,
    MessageStatus,
    RawBlock,
    TOOL_OUTPUT_LIMIT,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
    now,
)
from desktop_copilot.core.conversation.clean_values import clean_json, clean_text

_ERROR_STATUS = {
    "error": MessageStatus.FAILED,
    "interrupted": MessageStatus.INTERRUPTED,
    "aborted": MessageStatus.STOPPED,
}


def _place(message: Message, index: int, block) -> None:
    if index == len(message.blocks):
        message.blocks.append(block)
    elif index < len(message.blocks):
        message.blocks[index] = block
    else:  # a gap should not happen; keep order without losing the block
        message.blocks.append(block)


def _block(message: Message, index: int, kind: type):
    if 0 <= index < len(message.blocks) and isinstance(message.blocks[index], kind):
        return message.blocks[index]
    return None


_TEXT_DELTA = ev.TextDelta
_GROWING = (ev.TextDelta, ev.ThinkingDelta, ev.ToolCallDelta, ev.UsageUpdate, ev.ToolOutput, ev.TextCitation)
"""Events that add to a block without reading its text: the texts still growing stay in pieces (Message.grow)."""


def accumulate(message: Message, event: ev.Event) -> Message:
    """Apply `event` to `message` and return it."""
    if type(event) is _TEXT_DELTA:  # most events: checked before the match tries each kind in turn
        index, blocks = event.index, message.blocks
        if 0 <= index < len(blocks) and type(blocks[index]) is TextBlock:  # the block is there (all but the first)
            message.grow(index, "text", clean_text(event.text))
        else:
            _add_text(message, index, event.text)
        message.touch()
        return message
    if not isinstance(event, _GROWING):
        message.settle()
    match event:
        case ev.Start(model=model):
            message.status = MessageStatus.STREAMING
            if model:
                message.model = clean_text(model)
        case ev.TextStart(index=i):
            _place(message, i, TextBlock())
        case ev.TextCitation(index=i, citation=citation):
            block = _block(message, i, TextBlock)
            if block is not None:
                block.citations.append(clean_json(citation))
        case ev.ThinkingStart(index=i, redacted_data=data):
            if data is not None:
                _place(message, i, RedactedThinkingBlock(data=clean_text(data)))
            else:
                _place(message, i, ThinkingBlock(started_at=now()))
        case ev.ThinkingDelta(index=i, text=text):
            if _block(message, i, ThinkingBlock) is not None:
                message.grow(i, "thinking", clean_text(text))
        case ev.ThinkingEnd(index=i, signature=signature):
            block = _block(message, i, ThinkingBlock)
            if block is not None:
                block.signature = clean_text(signature)
                block.ended_at = now()
        case ev.ToolCallStart(index=i, tool_call_id=call_id, name=name, arguments=arguments, provider_fields=extra):
            _place(message, i, ToolCallBlock(id=clean_text(call_id), name=clean_text(name), arguments=clean_json(arguments),
                                             provider_fields=clean_json(extra)))
        case ev.ToolCallDelta(index=i, partial_json=fragment):
            if _block(message, i, ToolCallBlock) is not None:
                message.grow(i, "partial_arguments", clean_text(fragment))
        case ev.ToolCallEnd(index=i, arguments=arguments):
            block = _block(message, i, ToolCallBlock)
            if block is not None:
                block.arguments = clean_json(arguments)
        case ev.RawBlockEvent(index=i, data=data):
            _place(message, i, RawBlock(data=clean_json(data)))
        case ev.UsageUpdate(usage=usage):
            message.usage = usage  # each event's own copy (the wires copy their running count into it); never changed
        case ev.Done(reason=reason, detail=detail):
            message.stop_reason = clean_text(reason)
            message.status = MessageStatus.COMPLETED
            message.error = clean_text(detail) or None
            _close_open_thinking(message)
        case ev.Error(reason=reason, message=text):
            message.status = _ERROR_STATUS[reason]
            message.error = clean_text(text) or None
            _close_open_thinking(message)
        case ev.ToolStatus(tool_call_id=call_id, status=status, result=result, is_error=is_error):
            for block in message.tool_calls:
                if block.id == call_id:
                    block.status = status
                    block.source = event.source or block.source
                    block.title = event.title or block.title
                    if status is ToolCallStatus.RUNNING:
                        block.started_at = now()
                    elif status.finished:
                        block.finish(status, clean_text(result or ""), is_error=is_error)
                        block.result_parts = clean_json(event.parts or [])
                        block.model_result = None if event.model_result is None else clean_text(event.model_result)
                        if status is not ToolCallStatus.CANCELLED:  # the result holds the output
                            block.output = ""
        case ev.ToolOutput(tool_call_id=call_id, text=text):
            for block in message.tool_calls:
                if block.id == call_id and not block.status.finished:
                    block.output = _tail(block.output + clean_text(text))  # bounded by TOOL_OUTPUT_LIMIT
        case ev.ToolApprovalChanged(tool_call_id=call_id, approval=approval):
            for block in message.tool_calls:
                if block.id == call_id:
                    block.approval = approval  # the event's own snapshot (execution copies the pending one into it)
    message.touch()
    return message


def _add_text(message: Message, index: int, text: str) -> None:
    """A text delta: the text block at `index` grows, kept in pieces (one is placed there when it is missing)."""
    if _block(message, index, TextBlock) is None:
        message.settle()
        _place(message, index, TextBlock())
    message.grow(index, "text", clean_text(text))


def _tail(output: str) -> str:
    """`output` past TOOL_OUTPUT_LIMIT cut to its last three quarters of the limit, from a line start where one is
    near: the cut is made once per quarter of the limit that arrives, not at every delta."""
    if len(output) <= TOOL_OUTPUT_LIMIT:
        return output
    start = len(output) - TOOL_OUTPUT_LIMIT * 3 // 4
    newline = output.find("\n", start, start + 2000)
    return output[newline + 1 if newline >= 0 else start :]


def _close_open_thinking(message: Message) -> None:
    for block in message.blocks:
        if isinstance(block, ThinkingBlock) and block.ended_at is None:
            block.ended_at = now()
