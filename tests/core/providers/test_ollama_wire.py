"""Unit tests of the Ollama wire format: history to the `/api/chat` body, NDJSON lines to unified events."""

from __future__ import annotations

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
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
from desktop_copilot.core.providers.wire_common import UNFINISHED_TOOL_RESULT
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.ollama_wire import OllamaEventMapper, build_body
from desktop_copilot.core.providers.wire_common import stable_call_id
from tests.support.ollama_support import CREATED, corpus_lines, done_line, text_lines, tool_call_line

SEARCH = ToolSpec("web_search", "Search the web.", {"type": "object", "properties": {"query": {"type": "string"}}})


def assistant(*blocks, provider: str | None = "ollama") -> Message:
    return Message(role=Role.ASSISTANT, blocks=list(blocks), status=MessageStatus.COMPLETED, provider=provider)


def call(call_id: str, name: str = "web_search", *, result: str | None = "ok", status=ToolCallStatus.DONE, is_error=False, **args) -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name=name, arguments=args, status=status, result=result, is_error=is_error)


def request(*messages: Message, **kw) -> ProviderRequest:
    return ProviderRequest(model="llama3.2", messages=list(messages) or [Message.user("hi")], provider="ollama", **kw)


def feed(lines: list[dict], **kw) -> list[ev.Event]:
    mapper = OllamaEventMapper(**kw)
    return [e for line in lines for e in mapper.feed(line)]


def fold(events: list[ev.Event]) -> Message:
    message = Message.assistant()
    for event in events:
        accumulate(message, event)
    return message


# --- build_body ------------------------------------------------------------------------------


def test_body_has_system_first_stream_num_predict_and_no_tools_field():
    body = build_body(request(system="Be brief.", max_tokens=321))
    assert body == {
        "model": "llama3.2",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
        "stream": True,
        "think": False,
        "options": {"num_predict": 321, "num_ctx": 8192},  # the smallest window asked for
    }


def test_thinking_budget_switches_think_on_unless_the_model_refused_it():
    assert build_body(request(thinking_budget=2048))["think"] is True
    assert build_body(request(thinking_budget=2048), think_supported=False)["think"] is False


def test_tools_in_function_form():
    body = build_body(request(tools=[SEARCH]))
    assert body["tools"] == [{"type": "function", "function": {
        "name": "web_search", "description": "Search the web.", "parameters": SEARCH.input_schema}}]


def test_tool_calls_and_one_tool_message_per_call_in_order():
    history = [
        Message.user("weather in HK and SG?"),
        assistant(TextBlock(text="Checking both."), call("c1", query="HK"), call("c2", query="SG", result="timeout", is_error=True,
                                                                                status=ToolCallStatus.ERROR),
                  call("c3", "calc", result=None, status=ToolCallStatus.PENDING)),
        Message.user("thanks"),
    ]
    messages = build_body(request(*history))["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "tool", "user"]
    assert messages[1] == {"role": "assistant", "content": "Checking both.", "tool_calls": [
        {"id": "c1", "function": {"name": "web_search", "arguments": {"query": "HK"}}},
        {"id": "c2", "function": {"name": "web_search", "arguments": {"query": "SG"}}},
        {"id": "c3", "function": {"name": "calc", "arguments": {}}},
    ]}
    assert messages[2:5] == [
        {"role": "tool", "tool_name": "web_search", "tool_call_id": "c1", "content": "ok"},
        {"role": "tool", "tool_name": "web_search", "tool_call_id": "c2", "content": "Error: timeout"},
        {"role": "tool", "tool_name": "calc", "tool_call_id": "c3", "content": f"Error: {UNFINISHED_TOOL_RESULT}"},
    ]


def test_only_ollamas_own_thinking_goes_back():
    foreign = assistant(ThinkingBlock(thinking="Claude thinks.", signature="EqQBsig=="), RedactedThinkingBlock(data="Em=="),
                        RawBlock(data={"type": "server_tool_use", "id": "srv"}), TextBlock(text="Claude says."), provider="anthropic")
    legacy = assistant(ThinkingBlock(thinking="Old thinks."), TextBlock(text="Old says."), provider=None)  # stored before providers: Anthropic's
    own = assistant(ThinkingBlock(thinking="Ollama thinks."), TextBlock(text="Ollama says."))
    messages = build_body(request(Message.user("a"), foreign, Message.user("b"), legacy, Message.user("c"), own, Message.user("d")))["messages"]
    assert messages[1] == {"role": "assistant", "content": "Claude says."}
    assert messages[3] == {"role": "assistant", "content": "Old says."}
    assert messages[5] == {"role": "assistant", "content": "Ollama says.", "thinking": "Ollama thinks."}


def test_whitespace_text_and_empty_turns_are_never_sent():
    history = [
        Message.user("q"),
        assistant(ThinkingBlock(thinking="only thought")),  # nothing else: no assistant turn at all
        assistant(TextBlock(text="  \n"), TextBlock(text="Real answer."), TextBlock(text=" ")),
        Message(role=Role.USER, blocks=[TextBlock(text=" ")]),
        Message.user("next"),
    ]
    messages = build_body(request(*history))["messages"]
    assert messages == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "Real answer."},
        {"role": "user", "content": "next"},
    ]


def test_prompt_mode_describes_tools_in_system_and_writes_calls_and_results_as_text():
    history = [
        Message.user("weather?"),
        assistant(TextBlock(text="Looking."), call("c1", query="HK", result="Sunny"), TextBlock(text="More."),
                  call("c2", query="SG", result="Rain")),
        Message.user("and tomorrow?"),
    ]
    body = build_body(request(*history, system="Be brief.", tools=[SEARCH]), prompt_tools=True)
    assert "tools" not in body
    system, user, turn, results = body["messages"]
    assert system["role"] == "system" and system["content"].startswith("Be brief.\n\n")
    assert "<tool_call>" in system["content"] and '"name": "web_search"' in system["content"] and "Search the web." in system["content"]
    assert user == {"role": "user", "content": "weather?"}
    assert turn == {"role": "assistant", "content":
                    'Looking.\n\n<tool_call>\n{"name": "web_search", "arguments": {"query": "HK"}}\n</tool_call>\n\nMore.\n\n'
                    '<tool_call>\n{"name": "web_search", "arguments": {"query": "SG"}}\n</tool_call>'}
    assert results == {"role": "user", "content":
                       '<tool_response name="web_search">\nSunny\n</tool_response>\n<tool_response name="web_search">\nRain\n</tool_response>'
                       "\n\nand tomorrow?"}


def test_prompt_mode_without_tools_has_no_protocol_but_history_stays_text():
    history = [Message.user("q"), assistant(call("c1", query="HK")), Message.user("go on")]
    body = build_body(request(*history), prompt_tools=True)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert "tool_calls" not in body["messages"][1] and "<tool_call>" in body["messages"][1]["content"]


# --- OllamaEventMapper ------------------------------------------------------------------------


def test_thinking_then_text_then_done():
    events = feed([*text_lines("Hel", "lo", thinking=("Let me ", "think.")), done_line(prompt_eval_count=30, eval_count=9)])
    assert [e.kind for e in events] == ["start", "thinking_start", "thinking_delta", "thinking_delta", "thinking_end",
                                        "text_start", "text_delta", "text_delta", "text_end", "usage", "done"]
    assert events[0] == ev.Start(model="llama3.2")
    message = fold(events)
    assert message.blocks[0].thinking == "Let me think." and message.text == "Hello"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (30, 9)
    assert message.stop_reason == "end_turn" and message.status is MessageStatus.COMPLETED


def test_stop_reasons():
    assert feed([*text_lines("a"), done_line(done_reason="length")])[-1] == ev.Done(reason="max_tokens")
    assert feed([tool_call_line(("calc", {"x": 1})), done_line()])[-1] == ev.Done(reason="tool_use")
    assert feed([done_line(done_reason="load")])[-1] == ev.Done(reason="load")


def test_missing_prompt_eval_count_is_zero():
    events = feed([*text_lines("a"), done_line(prompt_eval_count=None, eval_count=3)])
    assert fold(events).usage.input_tokens == 0 and fold(events).usage.output_tokens == 3


def test_whole_tool_calls_get_stable_ids_and_arguments():
    lines = corpus_lines("ollama_chat_multiple_tool_calls_01.ndjson")
    events = feed(lines)
    starts = [e for e in events if isinstance(e, ev.ToolCallStart)]
    assert [s.name for s in starts] == ["MyPlugin_GetCurrentWeather", "MyPlugin_FunctionWithException",
                                        "MyPlugin_NonExistentFunction", "MyPlugin_InvalidArguments", "MyPlugin_IntArguments"]
    assert starts[3].arguments == {}
    assert starts[0].tool_call_id == stable_call_id(0, "MyPlugin_GetCurrentWeather", {"location": "Boston, MA"}, lines[0]["created_at"])
    assert len({s.tool_call_id for s in starts}) == 5
    assert [s.tool_call_id for s in starts] == [s.tool_call_id for s in feed(lines) if isinstance(s, ev.ToolCallStart)]
    assert [e.kind for e in events] == ["start", *["toolcall_start", "toolcall_end"] * 5, "usage", "done"]


def test_wire_ids_and_string_arguments_are_taken():
    line = tool_call_line(("calc", None))
    line["message"]["tool_calls"] = [{"id": "call_ab12cd34", "function": {"index": 0, "name": "calc", "arguments": '{"x": 2}'}}]
    call = fold(feed([line, done_line()])).tool_calls[0]
    assert (call.id, call.arguments) == ("call_ab12cd34", {"x": 2})


def test_text_then_tool_call_closes_the_text_block():
    events = feed([*text_lines("Checking."), tool_call_line(("web_search", {"query": "x"})), done_line()])
    message = fold(events)
    assert [type(b) for b in message.blocks] == [TextBlock, ToolCallBlock]
    assert [e.kind for e in events][3:6] == ["text_end", "toolcall_start", "toolcall_end"]


def test_error_line_fails_with_the_partial_kept():
    mapper = OllamaEventMapper()
    events = [e for line in text_lines("Partial") for e in mapper.feed(line)]
    events += mapper.feed({"error": "an error was encountered while running the model: unexpected EOF"})
    assert mapper.failed and not mapper.finished
    assert [e.kind for e in events][-2:] == ["text_end", "error"]
    message = fold(events)
    assert message.text == "Partial" and message.status is MessageStatus.FAILED
    assert "unexpected EOF" in message.error and "partial reply was kept" in message.error


def test_error_as_first_line_says_no_partial():
    events = feed([{"error": "model requires more system memory (9.1 GiB) than is available (3.2 GiB)"}])
    assert [e.kind for e in events] == ["error"] and "partial" not in events[0].message
    assert "more system memory" in events[0].message


def test_prompt_mode_parses_calls_in_content_split_across_lines():
    pieces = ["Let me check. <tool", '_call>{"name": "web_search", ', '"arguments": {"query": "HK"}}</tool_', "call>"]
    events = feed([*text_lines(*pieces, thinking=("Hmm.",)), done_line()], prompt_tools=True)
    message = fold(events)
    assert [type(b) for b in message.blocks] == [ThinkingBlock, TextBlock, ToolCallBlock]
    assert message.text == "Let me check. " and message.tool_calls[0].arguments == {"query": "HK"}
    assert message.tool_calls[0].id == stable_call_id(0, "web_search", {"query": "HK"}, CREATED)
    assert message.stop_reason == "tool_use"
