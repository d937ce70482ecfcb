"""The prompt protocol for models without native tools: system prompt, streaming parser, history text."""

from __future__ import annotations

import json

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Message, TextBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.providers.wire_common import UNFINISHED_TOOL_RESULT
from desktop_copilot.core.providers.base import ToolSpec
from desktop_copilot.core.providers.prompt_tools import (
    PromptToolParser,
    format_tool_call,
    format_tool_results,
    stable_call_id,
    tools_system_prompt,
)

SEARCH = ToolSpec("web_search", "Search the web.", {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})
CALL = '<tool_call>{"name": "web_search", "arguments": {"query": "香港天气"}}</tool_call>'
REPLY = f"Let me look that up.\n{CALL}\nDone."


def run(deltas: list[str], parser: PromptToolParser | None = None) -> list[ev.Event]:
    parser = parser or PromptToolParser()
    events = [e for d in deltas for e in parser.feed(d)]
    return events + parser.finish()


def fold(events: list[ev.Event]) -> Message:
    message = Message.assistant()
    for event in events:
        accumulate(message, event)
    return message


def visible(events: list[ev.Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, ev.TextDelta))


def test_system_prompt_names_protocol_and_every_tool():
    other = ToolSpec("calc", "Add numbers.", {"type": "object", "properties": {"x": {"type": "integer"}}})
    prompt = tools_system_prompt([SEARCH, other])
    assert "<tool_call>" in prompt and "</tool_call>" in prompt and "<tool_result" in prompt
    assert '"arguments"' in prompt and '"name"' in prompt
    assert "- web_search: Search the web." in prompt and "- calc: Add numbers." in prompt
    assert json.dumps(SEARCH.input_schema, sort_keys=True) in prompt


def test_text_without_calls_passes_through_in_one_block():
    events = run(["Hello", ", world", " 1 < 2 and a <b>tag</b>."])
    assert visible(events) == "Hello, world 1 < 2 and a <b>tag</b>."
    assert events[0].kind == "text_start" and events[-1] == ev.TextEnd(index=0)
    assert {e.index for e in events} == {0}


def test_call_is_hidden_from_text_and_becomes_start_and_end():
    events = run([REPLY])
    message = fold(events)
    assert [type(b) for b in message.blocks] == [TextBlock, ToolCallBlock, TextBlock]
    assert message.blocks[0].text == "Let me look that up.\n" and message.blocks[2].text == "\nDone."
    call = message.tool_calls[0]
    assert (call.name, call.arguments) == ("web_search", {"query": "香港天气"})
    assert call.id.startswith("call_") and len(call.id) == 5 + 24
    kinds = [e.kind for e in events]
    assert kinds == ["text_start", "text_delta", "text_end", "toolcall_start", "toolcall_end",
                     "text_start", "text_delta", "text_end"]
    assert "<tool_call>" not in message.text and "web_search" not in message.text


@pytest.mark.parametrize("cut", range(1, len(REPLY)))
def test_a_split_anywhere_gives_the_same_result(cut):
    whole = fold(run([REPLY]))
    split = fold(run([REPLY[:cut], REPLY[cut:]]))
    assert [b.model_dump(exclude={"started_at", "ended_at"}) for b in split.blocks] == \
           [b.model_dump(exclude={"started_at", "ended_at"}) for b in whole.blocks]


def test_character_by_character_never_leaks_a_tag():
    events = run(list(REPLY))
    assert visible(events) == "Let me look that up.\n\nDone."
    assert all("<" not in e.text for e in events if isinstance(e, ev.TextDelta))
    assert fold(events).tool_calls[0].arguments == {"query": "香港天气"}


def test_a_held_back_prefix_that_is_no_tag_is_released():
    parser = PromptToolParser()
    first = parser.feed("See <tool")
    assert visible(first) == "See "  # "<tool" might start a tag: held back
    second = parser.feed("s> for help <tool_c")
    assert visible(second) == "<tools> for help "
    assert visible(parser.finish()) == "<tool_c"  # the stream ended: nothing more can come


def test_several_calls_get_distinct_stable_ids_and_blank_text_between_is_no_block():
    text = CALL + "\n\n" + CALL.replace("香港天气", "weather") + "\n"
    events = run([text])
    message = fold(events)
    assert [type(b) for b in message.blocks] == [ToolCallBlock, ToolCallBlock]
    first, second = message.tool_calls
    assert first.id != second.id
    assert [c.id for c in fold(run([text[:7], text[7:]])).tool_calls] == [first.id, second.id]
    assert first.id == stable_call_id(0, "web_search", {"query": "香港天气"})
    salted = fold(run([text], PromptToolParser(id_salt="2025-08-20T13:48:24Z"))).tool_calls[0]
    assert salted.id != first.id  # the same call in another reply gets another id


def test_invalid_json_becomes_a_call_the_executor_reports():
    events = run(['<tool_call>{"name": "web_search", "arguments": {"query": "x",}}</tool_call>'])
    call = fold(events).tool_calls[0]
    assert call.name == "web_search" and call.arguments == {}
    assert call.partial_arguments == '{"name": "web_search", "arguments": {"query": "x",}}'


@pytest.mark.parametrize("body,expected", [
    ('{"name": "calc"}', {}),
    ('{"name": "calc", "arguments": null}', {}),
    ('{"name": "calc", "parameters": {"x": 1}}', {"x": 1}),
    ('{"name": "calc", "arguments": "{\\"x\\": 2}"}', {"x": 2}),
])
def test_argument_shapes_models_write(body, expected):
    call = fold(run([f"<tool_call>{body}</tool_call>"])).tool_calls[0]
    assert (call.name, call.arguments, call.partial_arguments) == ("calc", expected, "")


def test_unterminated_call_counts_when_its_json_is_complete_else_is_text():
    complete = fold(run(['<tool_call>{"name": "calc", "arguments": {"x": 1}}']))
    assert complete.tool_calls[0].arguments == {"x": 1} and complete.text == ""
    cut = fold(run(['Sure. <tool_call>{"name": "calc", "argu']))
    assert cut.tool_calls == [] and cut.text == 'Sure. <tool_call>{"name": "calc", "argu'


def test_indices_come_from_the_caller():
    taken = iter([5, 6, 7])
    events = run([REPLY], PromptToolParser(lambda: next(taken)))
    assert [e.index for e in events if e.kind.endswith("_start")] == [5, 6, 7]


def test_end_text_closes_the_open_block_for_another_kind():
    parser = PromptToolParser()
    parser.feed("Thinking about it")
    assert parser.end_text() == [ev.TextEnd(index=0)]
    assert parser.end_text() == []
    assert [e.kind for e in parser.feed("…")] == ["text_start", "text_delta"]


def test_history_text_round_trips_through_the_parser():
    written = format_tool_call("web_search", {"query": "香港天气"})
    assert written == CALL
    assert fold(run([written])).tool_calls[0].arguments == {"query": "香港天气"}
    done = ToolCallBlock(id="c1", name="web_search", arguments={}, status=ToolCallStatus.DONE, result="Sunny")
    failed = ToolCallBlock(id="c2", name='we"ird', arguments={}, status=ToolCallStatus.ERROR, result="boom", is_error=True)
    never = ToolCallBlock(id="c3", name="calc", arguments={})
    assert format_tool_results([done, failed, never]) == (
        '<tool_result name="web_search">\nSunny\n</tool_result>\n'
        '<tool_result name="we&quot;ird" error="true">\nboom\n</tool_result>\n'
        f'<tool_result name="calc" error="true">\n{UNFINISHED_TOOL_RESULT}\n</tool_result>'
    )
