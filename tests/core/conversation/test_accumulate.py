"""Unit tests of `accumulate`: each unified event folded into an assistant message, in place."""

from __future__ import annotations

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import (
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
    Usage,
)


def fold(*events: ev.Event, message: Message | None = None) -> Message:
    message = message or Message.assistant()
    for event in events:
        assert accumulate(message, event) is message
    return message


def test_start_marks_streaming_and_sets_model():
    message = fold(ev.Start(model="claude-x", provider_message_id="msg_1"))
    assert message.status is MessageStatus.STREAMING and message.model == "claude-x"
    assert fold(ev.Start(model=""), message=Message.assistant(model="kept")).model == "kept"


def test_text_events_build_a_text_block():
    message = fold(ev.TextStart(index=0), ev.TextDelta(index=0, text="Hel"), ev.TextDelta(index=0, text="lo"), ev.TextEnd(index=0))
    assert message.blocks == [TextBlock(text="Hello")] and message.text == "Hello"


def test_text_delta_without_start_creates_the_block():
    assert fold(ev.TextDelta(index=0, text="orphan")).settle().blocks == [TextBlock(text="orphan")]


def test_deltas_append_in_place_without_copying_blocks():
    message = fold(ev.TextStart(index=0), ev.ThinkingStart(index=1))
    blocks, text_block, thinking_block = message.blocks, message.blocks[0], message.blocks[1]
    for i in range(200):
        fold(ev.TextDelta(index=0, text="x"), ev.ThinkingDelta(index=1, text="y"), message=message)
    assert message.blocks is blocks
    assert message.blocks[0] is text_block and message.blocks[1] is thinking_block
    assert text_block.text == "" and thinking_block.thinking == ""  # kept as pieces: no delta copied the text so far
    assert message.settle() is message
    assert text_block.text == "x" * 200 and thinking_block.thinking == "y" * 200


def test_a_streaming_text_is_joined_when_read_as_a_whole():
    message = fold(ev.TextStart(index=0), ev.TextDelta(index=0, text="Hel"), ev.TextDelta(index=0, text="lo"))
    assert message.text == "Hello"  # Message.text settles
    fold(ev.TextDelta(index=0, text=" there"), message=message)
    assert message.model_dump()["blocks"][0]["text"] == "Hello there"  # so does dumping it (history, exports)
    fold(ev.TextDelta(index=0, text="!"), ev.ToolCallStart(index=1, tool_call_id="t", name="n"), message=message)
    assert message.blocks[0].text == "Hello there!"  # an event that is not a delta settles first


def test_revision_bumps_on_every_event():
    message = fold(ev.Start(), ev.TextStart(index=0), ev.TextDelta(index=0, text="a"), ev.TextEnd(index=0))
    assert message.revision == 4


def test_thinking_events_record_text_signature_and_times():
    message = fold(ev.ThinkingStart(index=0), ev.ThinkingDelta(index=0, text="Let me "), ev.ThinkingDelta(index=0, text="see."))
    block = message.blocks[0]
    assert isinstance(block, ThinkingBlock) and block.started_at is not None and block.ended_at is None
    fold(ev.ThinkingEnd(index=0, signature="SIG=="), message=message)
    assert (block.thinking, block.signature) == ("Let me see.", "SIG==")
    assert block.ended_at >= block.started_at


def test_redacted_thinking_is_kept_whole():
    message = fold(ev.ThinkingStart(index=0, redacted_data="opaque=="), ev.ThinkingDelta(index=0, text="ignored"), ev.ThinkingEnd(index=0))
    assert message.blocks == [RedactedThinkingBlock(data="opaque==")]


def test_tool_call_events_build_a_pending_call():
    arguments = {"location": "Florence"}
    message = fold(
        ev.ToolCallStart(index=0, tool_call_id="toolu_1", name="weather"),
        ev.ToolCallDelta(index=0, partial_json='{"location": '),
        ev.ToolCallDelta(index=0, partial_json='"Florence"}'),
        ev.ToolCallEnd(index=0, arguments=arguments),
    )
    (call,) = message.tool_calls
    assert (call.id, call.name, call.status) == ("toolu_1", "weather", ToolCallStatus.PENDING)
    assert call.partial_arguments == '{"location": "Florence"}'
    assert call.arguments == arguments and call.arguments is not arguments


def test_raw_block_is_placed_at_its_index():
    data = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}
    message = fold(ev.TextStart(index=0), ev.TextDelta(index=0, text="a"), ev.RawBlockEvent(index=1, data=data))
    assert message.blocks[1] == RawBlock(data=data)


def test_block_beyond_the_end_is_appended_and_restart_replaces():
    message = fold(ev.TextStart(index=3), ev.TextDelta(index=0, text="kept"))
    assert message.settle().blocks == [TextBlock(text="kept")]
    fold(ev.ToolCallStart(index=0, tool_call_id="t", name="n"), message=message)
    assert message.blocks == [ToolCallBlock(id="t", name="n")]


def test_the_reply_takes_the_last_usage_update_and_leaves_the_earlier_ones_as_they_were():
    first, last = Usage(input_tokens=5), Usage(input_tokens=5, output_tokens=7, cache_read_tokens=2)
    message = fold(ev.UsageUpdate(usage=first), ev.UsageUpdate(usage=last))
    assert message.usage == Usage(input_tokens=5, output_tokens=7, cache_read_tokens=2)
    assert first == Usage(input_tokens=5)  # (each event's usage is its own: the wires copy their running count into it)


def test_done_completes_and_closes_open_thinking():
    message = fold(ev.Start(), ev.ThinkingStart(index=0), ev.ThinkingDelta(index=0, text="t"), ev.Done(reason="tool_use"))
    assert message.status is MessageStatus.COMPLETED and message.stop_reason == "tool_use"
    assert message.blocks[0].ended_at is not None


@pytest.mark.parametrize(
    ("reason", "status"),
    [("error", MessageStatus.FAILED), ("interrupted", MessageStatus.INTERRUPTED), ("aborted", MessageStatus.STOPPED)],
)
def test_error_sets_status_and_keeps_partial_content(reason, status):
    message = fold(ev.Start(), ev.TextStart(index=0), ev.TextDelta(index=0, text="part"), ev.ThinkingStart(index=1),
                   ev.Error(reason=reason, message="it broke"))
    assert (message.status, message.error, message.text) == (status, "it broke", "part")
    assert message.blocks[1].ended_at is not None
    assert fold(ev.Error(reason=reason)).error is None


def test_tool_status_updates_the_matching_call_only():
    message = fold(ev.ToolCallStart(index=0, tool_call_id="a", name="n"), ev.ToolCallStart(index=1, tool_call_id="b", name="n"))
    a, b = message.tool_calls
    fold(ev.ToolStatus(tool_call_id="a", status=ToolCallStatus.RUNNING), message=message)
    assert a.status is ToolCallStatus.RUNNING and a.started_at is not None and b.status is ToolCallStatus.PENDING
    fold(ev.ToolStatus(tool_call_id="a", status=ToolCallStatus.ERROR, result="boom", is_error=True), message=message)
    assert (a.status, a.result, a.is_error) == (ToolCallStatus.ERROR, "boom", True) and a.ended_at is not None
    fold(ev.ToolStatus(tool_call_id="missing", status=ToolCallStatus.DONE, result="x"), message=message)
    assert b.result is None


def test_loop_events_only_bump_the_revision():
    message = fold(ev.TextDelta(index=0, text="a"))
    before = message.model_dump(exclude={"revision"})
    fold(ev.MessageCreated(message=Message.user("x")), ev.LoopDetected(name="n"), ev.RunFinished(), message=message)
    assert message.model_dump(exclude={"revision"}) == before and message.revision == 4


def test_a_streamed_tool_reply_is_what_validating_its_data_makes_and_keeps_its_fields_set_small():
    message = fold(ev.Start(model="claude-x"), ev.TextStart(index=0), ev.TextDelta(index=0, text="Looking."),
                   ev.ToolCallStart(index=1, tool_call_id="t1", name="search", arguments={}),
                   ev.ToolCallEnd(index=1, arguments={"q": "x"}),
                   ev.ToolStatus(tool_call_id="t1", status=ToolCallStatus.RUNNING),
                   ev.ToolStatus(tool_call_id="t1", status=ToolCallStatus.DONE, result="found"),
                   ev.UsageUpdate(usage=Usage(input_tokens=5, output_tokens=9)), ev.Done(reason="tool_use"))
    assert Message.model_validate(message.model_dump()) == message
    assert message.stop_reason == "tool_use" and message.blocks[1].result == "found" and message.usage.output_tokens == 9
    # assignments do not grow pydantic's record of the fields set (a set past its inline table costs ~0.5 KB more)
    assert len(message.__pydantic_fields_set__) <= 4 and len(message.blocks[1].__pydantic_fields_set__) <= 4
