"""Unit tests of the Chat Completions wire format: history to `messages`, request params, chunks to unified events."""

from __future__ import annotations

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import (
    Message,
    MessageStatus,
    RawBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.core.providers.wire_common import UNFINISHED_TOOL_RESULT
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.chat_completions_wire import (
    CONTENT_FILTER_WORDS,
    ChatCompletionsEventMapper,
    build_messages,
    build_params,
)
from tests.support.chat_completions_support import chat_chunk, chat_reply


def assistant(*blocks, provider: str | None = "openai", status=MessageStatus.COMPLETED) -> Message:
    return Message(role=Role.ASSISTANT, blocks=list(blocks), status=status, provider=provider)


def call(call_id: str, *, status=ToolCallStatus.DONE, result: str | None = "42", is_error=False, **arguments) -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name="calc", arguments=arguments or {"x": 1}, status=status, result=result, is_error=is_error)


def thought(text: str, signature: str = "") -> ThinkingBlock:
    return ThinkingBlock(thinking=text, signature=signature)


def tool_call_json(call_id: str, arguments: str = '{"x": 1}') -> dict:
    return {"id": call_id, "type": "function", "function": {"name": "calc", "arguments": arguments}}


# --- history -> messages ----------------------------------------------------------------------


def test_one_tool_message_per_call_in_order_right_after_the_assistant():
    history = [
        Message.user("what is 6*7?"),
        assistant(TextBlock(text="Let me compute."), call("call_a"), call("call_b", result="oops", is_error=True, status=ToolCallStatus.ERROR),
                  call("call_c", status=ToolCallStatus.RUNNING, result=None)),
        Message.user("thanks"),
    ]
    assert build_messages(history, vendor="openai") == [
        {"role": "user", "content": "what is 6*7?"},
        {"role": "assistant", "content": "Let me compute.",
         "tool_calls": [tool_call_json("call_a"), tool_call_json("call_b"), tool_call_json("call_c")]},
        {"role": "tool", "tool_call_id": "call_a", "content": "42"},
        {"role": "tool", "tool_call_id": "call_b", "content": "oops"},
        {"role": "tool", "tool_call_id": "call_c", "content": UNFINISHED_TOOL_RESULT},
        {"role": "user", "content": "thanks"},
    ]


def test_assistant_with_only_calls_has_null_content_and_arguments_as_json_text():
    turns = build_messages([Message.user("q"), assistant(call("toolu_01Abc", city="香港"))], vendor="groq")
    assert turns[1] == {"role": "assistant", "content": None, "tool_calls": [tool_call_json("toolu_01Abc", '{"city": "香港"}')]}
    assert turns[2]["tool_call_id"] == "toolu_01Abc"  # ids from other providers are kept as they are


def test_deepseek_reasoning_content_only_on_its_own_tool_call_turns():
    history = [
        Message.user("weather?"),
        assistant(thought("I should look it up."), call("call_1"), provider="deepseek"),
        assistant(thought("Now answer."), TextBlock(text="Sunny."), provider="deepseek"),
        Message.user("and tomorrow?"),
        assistant(call("call_2"), provider="deepseek"),  # a tool-call turn whose thinking was empty
        assistant(TextBlock(text="Rain.")),  # another provider's reply without calls
        Message.user("and Sunday?"),
        assistant(thought("OpenAI's own thoughts"), call("call_3"), provider="openai"),
        assistant(thought("Claude thinks", "sig=="), call("call_4"), provider=None),
    ]
    turns = [t for t in build_messages(history, vendor="deepseek") if t["role"] == "assistant"]
    assert [t.get("reasoning_content") for t in turns] == ["I should look it up.", None, "", None, None, None]
    assert "reasoning_content" not in turns[1]
    assert all("reasoning_content" not in t for t in build_messages(history, vendor="openai"))
    moonshot = [t for t in build_messages([*history[:2], assistant(thought("k"), call("c"), provider="moonshot")], vendor="moonshot")
                if t["role"] == "assistant"]
    assert [t.get("reasoning_content") for t in moonshot] == [None, "k"]


def test_other_providers_thinking_and_raw_blocks_are_not_sent_but_their_text_is():
    search = RawBlock(data={"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "hk"}})
    result = RawBlock(data={"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []})
    claude = assistant(thought("hmm", "EqQBsig=="), TextBlock(text="Let me search."), search, result,
                       TextBlock(text="It is "), TextBlock(text="sunny", citations=[{"type": "web_search_result_location"}]),
                       TextBlock(text=" today."), provider="anthropic")
    turns = build_messages([Message.user("hk weather"), claude, Message.user("thanks")], vendor="deepseek")
    assert turns[1] == {"role": "assistant", "content": "Let me search.\n\nIt is sunny today."}


def test_whitespace_text_and_empty_turns_are_dropped_and_user_turns_merge():
    failed = assistant(TextBlock(text="  \n"), thought("cut off"), status=MessageStatus.FAILED)
    turns = build_messages([Message.user("first"), failed, Message.user(" "), Message.user("second")], vendor="openai")
    assert turns == [{"role": "user", "content": "first\n\nsecond"}]
    spaced = assistant(TextBlock(text=" "), call("call_9"))
    assert build_messages([Message.user("q"), spaced], vendor="openai")[1]["content"] is None


def test_build_params_system_usage_limits_and_tools():
    tool = ToolSpec("calc", "Calculate.", {"type": "object", "properties": {"x": {"type": "integer"}}})
    request = ProviderRequest(model="gpt-4o", messages=[Message.user("q")], provider="openai", system="Be brief.", max_tokens=1000)
    assert build_params(request, vendor="openai") == {
        "model": "gpt-4o",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "q"}],
        "stream_options": {"include_usage": True},
        "max_completion_tokens": 1000,
    }
    request.tools, request.system = [tool], None
    params = build_params(request, vendor="deepseek")
    assert params["max_tokens"] == 1000 and "max_completion_tokens" not in params
    assert params["messages"] == [{"role": "user", "content": "q"}]
    assert params["tools"] == [{"type": "function", "function": {"name": "calc", "description": "Calculate.", "parameters": tool.input_schema}}]


@pytest.mark.parametrize(("vendor", "model", "budget", "effort"), [
    ("openai", "o3", 2048, "low"),
    ("openai", "o4-mini", 8000, "medium"),
    ("openai", "gpt-5.1", 32000, "high"),
    ("openai", "gpt-5-chat-latest", 32000, None),
    ("openai", "gpt-4o", 32000, None),
    ("openai", "o3", None, None),
    ("deepseek", "deepseek-reasoner", 32000, None),
    ("openrouter", "openai/o3", 32000, None),
])
def test_reasoning_effort_only_for_openai_reasoning_models(vendor, model, budget, effort):
    request = ProviderRequest(model=model, messages=[Message.user("q")], max_tokens=4000, thinking_budget=budget)
    params = build_params(request, vendor=vendor)
    assert params.get("reasoning_effort") == effort
    limit = params.get("max_completion_tokens", params.get("max_tokens"))
    assert limit > budget if effort else limit == 4000


# --- chunks -> events -------------------------------------------------------------------------


def feed_all(mapper: ChatCompletionsEventMapper, chunks: list[dict]) -> list[ev.Event]:
    return [e for chunk in chunks for e in mapper.feed(chunk)] + mapper.finish()


def test_thinking_text_calls_and_resumed_text_take_consecutive_block_indices():
    chunks = [
        chat_chunk({"role": "assistant", "content": None, "reasoning_content": "Plan"}),
        chat_chunk({"content": "Checking.", "reasoning_content": None}),
        chat_chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "calc", "arguments": '{"x"'}}]}),
        chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}),
        chat_chunk({"content": "Done."}),
        chat_chunk({}, finish_reason="tool_calls"),
    ]
    events = feed_all(ChatCompletionsEventMapper(), chunks)
    assert events == [
        ev.Start(model="gpt-test", provider_message_id="chatcmpl-loopback"),
        ev.ThinkingStart(index=0), ev.ThinkingDelta(index=0, text="Plan"), ev.ThinkingEnd(index=0, signature=""),
        ev.TextStart(index=1), ev.TextDelta(index=1, text="Checking."), ev.TextEnd(index=1),
        ev.ToolCallStart(index=2, tool_call_id="call_1", name="calc"), ev.ToolCallDelta(index=2, partial_json='{"x"'),
        ev.ToolCallDelta(index=2, partial_json=": 1}"),
        ev.TextStart(index=3), ev.TextDelta(index=3, text="Done."),
        ev.TextEnd(index=3), ev.ToolCallEnd(index=2, arguments={"x": 1}),
        ev.Done(reason="tool_use"),
    ]


def test_reasoning_field_of_openrouter_and_groq_is_thinking():
    events = feed_all(ChatCompletionsEventMapper(), chat_reply("Hi", reasoning="think", reasoning_key="reasoning", pieces=1))
    assert [e.kind for e in events] == ["start", "thinking_start", "thinking_delta", "thinking_end", "text_start", "text_delta",
                                        "text_end", "usage", "done"]


def test_calls_without_ids_get_stable_made_ids():
    chunks = chat_reply(calls=[(None, "calc", {"x": 1}), (None, "calc", {"x": 2})])
    first = [e.tool_call_id for e in feed_all(ChatCompletionsEventMapper(position=3), chunks) if isinstance(e, ev.ToolCallStart)]
    again = [e.tool_call_id for e in feed_all(ChatCompletionsEventMapper(position=3), chunks) if isinstance(e, ev.ToolCallStart)]
    elsewhere = [e.tool_call_id for e in feed_all(ChatCompletionsEventMapper(position=5), chunks) if isinstance(e, ev.ToolCallStart)]
    assert first == again and len(set(first)) == 2 and not set(first) & set(elsewhere)
    assert all(len(i) == 29 and i.startswith("call_") and all(c in "0123456789abcdef" for c in i[5:]) for i in first)


def test_whole_calls_in_one_chunk_without_index_and_a_late_name():
    chunks = [
        chat_chunk({"role": "assistant", "tool_calls": [{"id": "call_x", "function": {"name": "add", "arguments": {"a": 2}}}]}),
        chat_chunk({"tool_calls": [{"id": "call_y", "function": {"arguments": '{"b": '}}]}),
        chat_chunk({"tool_calls": [{"function": {"name": "mul", "arguments": "3}"}}]}),
        chat_chunk({}, finish_reason="stop"),  # some servers end a tool-call reply with "stop"
    ]
    events = feed_all(ChatCompletionsEventMapper(), chunks)
    starts = [(e.index, e.tool_call_id, e.name) for e in events if isinstance(e, ev.ToolCallStart)]
    ends = [(e.index, e.arguments) for e in events if isinstance(e, ev.ToolCallEnd)]
    assert starts == [(0, "call_x", "add"), (1, "call_y", "mul")]
    assert ends == [(0, {"a": 2}), (1, {"b": 3})]
    assert events[-1] == ev.Done(reason="tool_use")


def test_invalid_arguments_end_as_empty_with_the_raw_text_streamed():
    events = feed_all(ChatCompletionsEventMapper(), [
        chat_chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "calc", "arguments": '{"q": tru'}}]}),
        chat_chunk({}, finish_reason="length"),
    ])
    assert ev.ToolCallDelta(index=0, partial_json='{"q": tru') in events
    assert ev.ToolCallEnd(index=0, arguments={}) in events and events[-1] == ev.Done(reason="max_tokens")


@pytest.mark.parametrize(("wire", "reason", "detail"), [
    ("stop", "end_turn", ""),
    ("length", "max_tokens", ""),
    ("content_filter", "refusal", CONTENT_FILTER_WORDS),
    ("sensitive", "refusal", CONTENT_FILTER_WORDS),
    ("insufficient_system_resource", "insufficient_system_resource", "capacity"),
    ("something_new", "something_new", ""),
])
def test_finish_reasons(wire, reason, detail):
    done = feed_all(ChatCompletionsEventMapper(), chat_reply("x", finish_reason=wire))[-1]
    assert isinstance(done, ev.Done) and done.reason == reason and detail in done.detail
    assert bool(done.detail) == bool(detail)


def test_no_finish_reason_means_no_done():
    mapper = ChatCompletionsEventMapper()
    events = feed_all(mapper, chat_reply("partial")[:-2])
    assert not mapper.finished and events[-1] == ev.TextDelta(index=0, text="ial")


def test_usage_of_openai_deepseek_and_moonshot():
    mapper = ChatCompletionsEventMapper()
    (openai,) = mapper.feed(chat_chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 2},
                                                   "completion_tokens_details": {"reasoning_tokens": 4}}))[1:]
    assert (openai.usage.input_tokens, openai.usage.output_tokens, openai.usage.cache_read_tokens, openai.usage.reasoning_tokens) == (9, 5, 2, 4)
    deepseek = ChatCompletionsEventMapper().feed(chat_chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 5, "prompt_cache_hit_tokens": 7}))
    assert deepseek[-1].usage.cache_read_tokens == 7
    moonshot = {"index": 0, "delta": {}, "finish_reason": "stop", "usage": {"prompt_tokens": 3, "completion_tokens": 1, "cached_tokens": 1}}
    events = feed_all(ChatCompletionsEventMapper(), [{**chat_chunk({}), "choices": [moonshot]}])
    assert [e.kind for e in events] == ["start", "usage", "done"] and events[1].usage.cache_read_tokens == 1


def test_other_choices_and_chunks_after_the_finish_are_ignored():
    chunks = chat_reply("A", pieces=1)
    chunks.insert(2, {**chat_chunk({}), "choices": [{"index": 1, "delta": {"content": "B"}, "finish_reason": None}]})
    chunks.insert(-1, chat_chunk({"content": "late"}))
    text = "".join(e.text for e in feed_all(ChatCompletionsEventMapper(), chunks) if isinstance(e, ev.TextDelta))
    assert text == "A"


def test_reasoning_after_held_back_content_comes_after_it():
    """A model thinking in tags may send content first: what the reader held back goes out before the thinking."""
    mapper = ChatCompletionsEventMapper(thinks_in_tags=True)
    events = [*mapper.feed(chat_chunk({"content": "Hello"})), *mapper.feed(chat_chunk({"reasoning_content": "second thought"})),
              *mapper.feed(chat_chunk({"content": " Bye"}, finish_reason="stop")), *mapper.finish()]
    starts = [type(e).__name__ for e in events if isinstance(e, ev.TextStart | ev.ThinkingStart)]
    assert starts == ["TextStart", "ThinkingStart", "TextStart"]
