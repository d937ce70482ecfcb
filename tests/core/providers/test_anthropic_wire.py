"""Unit tests of the Anthropic wire format: history to `messages`, request params, raw events to unified events."""

from __future__ import annotations

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import (
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.core.providers.anthropic_wire import (
    AnthropicEventMapper,
    build_messages,
    build_params,
    tool_results,
)
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.wire_common import EMPTY_TOOL_RESULT, UNFINISHED_TOOL_RESULT

SERVER_TOOL_USE = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "weather"}}
SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": [{"type": "web_search_result", "title": "T", "url": "https://x.test", "encrypted_content": "Eo4U", "page_age": None}],
}


def assistant(*blocks, status=MessageStatus.COMPLETED) -> Message:
    return Message(role=Role.ASSISTANT, blocks=list(blocks), status=status)


def call(call_id="toolu_1", *, status=ToolCallStatus.DONE, result: str | None = "42", is_error=False) -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name="calc", arguments={"x": 1}, status=status, result=result, is_error=is_error)


def test_tool_results_follow_tool_use_in_one_user_turn_before_next_text():
    history = [
        Message.user("what is 6*7?"),
        assistant(TextBlock(text="Let me compute."), call("toolu_1"), call("toolu_2", result="oops", is_error=True, status=ToolCallStatus.ERROR)),
        Message.user("thanks; and 1+1?"),
    ]
    turns = build_messages(history)
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert turns[1]["content"] == [
        {"type": "text", "text": "Let me compute."},
        {"type": "tool_use", "id": "toolu_1", "name": "calc", "input": {"x": 1}},
        {"type": "tool_use", "id": "toolu_2", "name": "calc", "input": {"x": 1}},
    ]
    assert turns[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "42", "is_error": False},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "oops", "is_error": True},
        {"type": "text", "text": "thanks; and 1+1?"},
    ]


def test_unsigned_thinking_is_dropped_and_signed_kept_verbatim():
    signed = ThinkingBlock(thinking="Let me think.\n", signature="EqQBCkYIBxgCKkD/sig==")
    cut_off = ThinkingBlock(thinking="half a thou")
    turns = build_messages([Message.user("q"), assistant(signed, TextBlock(text="A"), cut_off)])
    assert turns[1]["content"] == [
        {"type": "thinking", "thinking": "Let me think.\n", "signature": "EqQBCkYIBxgCKkD/sig=="},
        {"type": "text", "text": "A"},
    ]


def test_redacted_thinking_kept_verbatim():
    data = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"
    turns = build_messages([Message.user("q"), assistant(RedactedThinkingBlock(data=data), TextBlock(text="ok"))])
    assert turns[1]["content"][0] == {"type": "redacted_thinking", "data": data}


def test_raw_blocks_are_replayed_verbatim_in_order():
    turns = build_messages(
        [Message.user("q"), assistant(RawBlock(data=SERVER_TOOL_USE), RawBlock(data=SEARCH_RESULT), TextBlock(text="Sunny."))]
    )
    assert turns[1]["content"] == [SERVER_TOOL_USE, SEARCH_RESULT, {"type": "text", "text": "Sunny."}]
    assert len(turns) == 2  # server tools need no tool_result from us


def test_empty_assistant_is_dropped_and_the_user_turns_around_it_merge():
    failed = assistant(TextBlock(text=""), ThinkingBlock(thinking="unsigned"), status=MessageStatus.FAILED)
    turns = build_messages([Message.user("first"), failed, Message.user("second")])
    assert turns == [{"role": "user", "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]}]


def test_tool_call_without_result_gets_an_error_result():
    interrupted = assistant(call("toolu_9", status=ToolCallStatus.RUNNING, result=None), status=MessageStatus.INTERRUPTED)
    turns = build_messages([Message.user("go"), interrupted])
    assert turns[-1] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": UNFINISHED_TOOL_RESULT, "is_error": True}],
    }


def test_tool_results_for_cancelled_and_empty_output():
    message = assistant(call("a", status=ToolCallStatus.CANCELLED, result="Stopped by the user.", is_error=True), call("b", result=""))
    assert tool_results(message) == [
        {"type": "tool_result", "tool_use_id": "a", "content": "Stopped by the user.", "is_error": True},
        {"type": "tool_result", "tool_use_id": "b", "content": EMPTY_TOOL_RESULT, "is_error": False},
    ]


def test_adjacent_user_turns_are_merged_and_empty_user_text_dropped():
    turns = build_messages([Message.user("one"), Message.user(""), Message.user("two")])
    assert turns == [{"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}]


def test_build_params_thinking_tools_and_system():
    tool = ToolSpec("calc", "Calculate.", {"type": "object"})
    plain = build_params(ProviderRequest(model="m", messages=[Message.user("q")], max_tokens=1000))
    assert plain == {"model": "m", "max_tokens": 1000, "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]}
    full = build_params(
        ProviderRequest(model="m", messages=[Message.user("q")], system="S", tools=[tool], max_tokens=1000, thinking_budget=3000)
    )
    assert full["system"] == "S"
    assert full["tools"] == [{"name": "calc", "description": "Calculate.", "input_schema": {"type": "object"}}]
    assert full["thinking"] == {"type": "enabled", "budget_tokens": 3000}
    assert full["max_tokens"] > 3000  # the budget must fit below max_tokens


# --- AnthropicEventMapper on plain dict events --------------------------------------------


def feed_all(mapper: AnthropicEventMapper, raws: list[dict]) -> list[ev.Event]:
    return [e for raw in raws for e in mapper.feed(raw)]


def test_mapper_server_tool_use_becomes_a_raw_block_with_parsed_input():
    start = {**SERVER_TOOL_USE, "input": {}}
    events = feed_all(
        AnthropicEventMapper(),
        [
            {"type": "content_block_start", "index": 0, "content_block": start},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"query": '}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '"weather"}'}},
            {"type": "content_block_stop", "index": 0},
        ],
    )
    assert events == [ev.RawBlockEvent(index=0, data=SERVER_TOOL_USE)]


def test_mapper_ignores_pings_unknown_events_and_repeated_stops():
    mapper = AnthropicEventMapper()
    events = feed_all(
        mapper,
        [
            {"type": "ping"},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "Hi"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {"type": "x"}}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_stop", "index": 0},
            {"type": "some_future_event"},
        ],
    )
    assert events == [
        ev.TextStart(index=0),
        ev.TextDelta(index=0, text="Hi"),
        ev.TextCitation(index=0, citation={"type": "x"}),
        ev.TextEnd(index=0),
    ]


def test_mapper_message_stop_closes_blocks_left_open():
    mapper = AnthropicEventMapper()
    events = feed_all(
        mapper,
        [
            {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "n", "input": {}}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": "b'}},
            {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 9}},
            {"type": "message_stop"},
        ],
    )
    assert events[-2:] == [ev.ToolCallEnd(index=0, arguments={}), ev.Done(reason="max_tokens")]
    assert mapper.finished and mapper.usage.output_tokens == 9


def test_mapper_thinking_signature_and_usage():
    mapper = AnthropicEventMapper()
    events = feed_all(
        mapper,
        [
            {"type": "message_start", "message": {"id": "msg_1", "model": "claude-x", "usage": {"input_tokens": 7, "output_tokens": 1,
             "cache_read_input_tokens": 3, "cache_creation_input_tokens": None}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "SIG"}},
            {"type": "content_block_stop", "index": 0},
        ],
    )
    assert events[0] == ev.Start(model="claude-x", provider_message_id="msg_1")
    assert events[1].usage.model_dump() == {"input_tokens": 7, "output_tokens": 1, "cache_read_tokens": 3, "cache_write_tokens": 0, "reasoning_tokens": 0}
    assert events[2:] == [ev.ThinkingStart(index=0), ev.ThinkingDelta(index=0, text="hmm"), ev.ThinkingEnd(index=0, signature="SIG")]
    assert mapper.started and not mapper.finished


def test_whitespace_only_text_is_never_sent_back():
    spaced = assistant(TextBlock(text=" "), TextBlock(text="\n\n"), TextBlock(text="Answer."))
    turns = build_messages([Message.user("q"), spaced, Message.user("  \n")])
    assert turns == [
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Answer."}]},
    ]


def test_citations_and_provider_fields_are_sent_back_verbatim():
    citation = {"type": "web_search_result_location", "url": "https://a.test", "title": "A", "cited_text": "x", "encrypted_index": "E"}
    call_block = ToolCallBlock(id="toolu_9", name="calc", arguments={"x": 1}, status=ToolCallStatus.DONE, result="1",
                               provider_fields={"caller": {"type": "direct"}})
    content = build_messages([assistant(TextBlock(text="Cited.", citations=[citation]), call_block)])[0]["content"]
    assert content == [
        {"type": "text", "text": "Cited.", "citations": [citation]},
        {"type": "tool_use", "id": "toolu_9", "name": "calc", "input": {"x": 1}, "caller": {"type": "direct"}},
    ]


def test_another_providers_reply_is_sent_as_its_text_and_tool_calls_only():
    gemini_call = ToolCallBlock(id="call_0a1b", name="calc", arguments={"x": 1}, status=ToolCallStatus.DONE, result="1",
                                provider_fields={"thoughtSignature": "CiQB-gemini"})
    foreign = assistant(ThinkingBlock(thinking="let me think", signature="not-an-anthropic-signature"),
                        TextBlock(text="Computing.", citations=[{"type": "x"}]), gemini_call)
    foreign.provider = "gemini"
    turns = build_messages([Message.user("q"), foreign])
    assert turns[1] == {"role": "assistant", "content": [
        {"type": "text", "text": "Computing."},
        {"type": "tool_use", "id": "call_0a1b", "name": "calc", "input": {"x": 1}},
    ]}
    assert turns[2]["content"][0]["tool_use_id"] == "call_0a1b"


def test_each_usage_update_carries_its_own_usage_which_later_frames_leave_as_it_was():
    """A reply keeps the usage object of its last update (accumulate does not copy it): the mapper's running count
    must never be that object."""
    events = feed_all(AnthropicEventMapper(), [
        {"type": "message_start", "message": {"id": "m", "model": "claude", "usage": {"input_tokens": 10, "output_tokens": 1}}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 7}},
        {"type": "message_stop"},
    ])
    updates = [event.usage for event in events if isinstance(event, ev.UsageUpdate)]
    assert len(updates) >= 2 and len({id(usage) for usage in updates}) == len(updates)
    assert (updates[0].input_tokens, updates[0].output_tokens) == (10, 1)
    assert (updates[-1].input_tokens, updates[-1].output_tokens) == (10, 7)
