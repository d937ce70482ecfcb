"""Tool calls written as text: every format read while streaming (cut anywhere), hidden from the shown text, given
stable ids and their form; malformed and unfinished markup shown with a problem sentence; markup shown as code left
alone."""

from __future__ import annotations

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.text_protocol.reader import TextReader
from desktop_copilot.core.providers.wire_common import stable_call_id

from .replay import every_split, read, shapes

HERMES = '<tool_call>\n{"name": "web_search", "arguments": {"query": "香港天气"}}\n</tool_call>'
OLD_APP_FORM = '<tool_call>{"name": "web_search", "arguments": {"query": "香港天气"}}</tool_call>'
MINIMAX = ('<minimax:tool_call>\n<invoke name="calc">\n<parameter name="x">2</parameter>\n<parameter name="note">add\nthem</parameter>\n'
           '</invoke>\n<invoke name="web_search">\n<parameter name="query">\nweather\n</parameter>\n</invoke>\n</minimax:tool_call>')
INVOKE_IN_TOOL_CALL = '<tool_call>\n<invoke name="calc">\n<parameter name="x">[1, 2]</parameter>\n</invoke>\n</tool_call>'
BARE_INVOKE = '<invoke name="calc">\n<parameter name="x">3.5</parameter>\n</invoke>'

SEARCH = ("call", "web_search", {"query": "香港天气"}, "hermes")

FORMAT_CASES = {
    "hermes": (f"Let me look.\n{HERMES}", [("text", "Let me look.\n"), SEARCH]),
    "the app's own old form": (f"Let me look.\n{OLD_APP_FORM}\nDone.", [("text", "Let me look.\n"), SEARCH, ("text", "\nDone.")]),
    "hermes, several": (f"{HERMES}\n{HERMES.replace('香港天气', 'rain')}\n",
                        [SEARCH, ("call", "web_search", {"query": "rain"}, "hermes")]),
    "hermes, a list": ('<tool_call>[{"name": "calc", "arguments": {"x": 1}}, {"name": "calc", "parameters": {"x": 2}}]</tool_call>',
                       [("call", "calc", {"x": 1}, "hermes"), ("call", "calc", {"x": 2}, "hermes")]),
    "minimax, two invokes": (f"Checking.\n\n{MINIMAX}", [
        ("text", "Checking.\n\n"), ("call", "calc", {"x": 2, "note": "add\nthem"}, "minimax"),
        ("call", "web_search", {"query": "weather"}, "minimax")]),
    "invoke inside <tool_call>": (INVOKE_IN_TOOL_CALL, [("call", "calc", {"x": [1, 2]}, "minimax")]),
    "bare invoke": (f"Sure: {BARE_INVOKE} done", [("text", "Sure: "), ("call", "calc", {"x": 3.5}, "invoke"), ("text", " done")]),
    "text before, between and after": (f"A {HERMES} B {BARE_INVOKE} C", [
        ("text", "A "), SEARCH, ("text", " B "), ("call", "calc", {"x": 3.5}, "invoke"), ("text", " C")]),
    "after thinking": (f"<think>I need a search.</think>\n{HERMES}", [("thinking", "I need a search."), SEARCH]),
    "after a lone closing tag": (f"I need a search.\n</think>\n\n{MINIMAX}", [
        ("thinking", "I need a search.\n"), ("call", "calc", {"x": 2, "note": "add\nthem"}, "minimax"),
        ("call", "web_search", {"query": "weather"}, "minimax")]),
    "after a closed fence": (f"```xml\n<b/>\n```\n{HERMES}", [("text", "```xml\n<b/>\n```\n"), SEARCH]),
}


@pytest.mark.parametrize("name", FORMAT_CASES)
def test_each_format_is_read_wherever_the_deltas_are_cut(name):
    text, expected = FORMAT_CASES[name]
    whole = read([text])
    assert shapes(whole.message) == expected
    assert whole.reader.problems == [] and whole.reader.calls == len(whole.calls)
    for deltas in every_split(text):
        assert read(deltas).blocks == whole.blocks, deltas


def test_calls_get_stable_ids_from_position_name_arguments_and_salt():
    text = f"{HERMES}\n{HERMES}"
    first, second = read([text], id_salt="2025-08-20T13:48:24Z").calls
    assert first.id == stable_call_id(0, "web_search", {"query": "香港天气"}, "2025-08-20T13:48:24Z")
    assert second.id == stable_call_id(1, "web_search", {"query": "香港天气"}, "2025-08-20T13:48:24Z")
    assert first.id != second.id
    assert read([text], id_salt="another reply").calls[0].id != first.id


def test_a_call_is_one_start_and_end_carrying_its_form():
    events = TextReader(Parts(), think_tags=False, tool_names=["calc"]).feed(BARE_INVOKE)
    assert events == [
        ev.ToolCallStart(index=0, tool_call_id=stable_call_id(0, "calc", {"x": 3.5}), name="calc", arguments={"x": 3.5},
                         provider_fields={"text_form": "invoke"}),
        ev.ToolCallEnd(index=0, arguments={"x": 3.5}),
    ]


@pytest.mark.parametrize("raw,expected", [
    ("42", 42), ("-1.5", -1.5), ("true", True), ("false", False), ("null", None), ('{"a": [1, {"b": null}]}', {"a": [1, {"b": None}]}),
    ("[]", []), ("plain words", "plain words"), ('"quoted"', '"quoted"'), ("007", "007"), ("NaN", "NaN"), ("1e999", "1e999"),
    ("\nkept  \n", "kept  "), ("\n\ntwo\n\n", "\ntwo\n"), ("  spaced  ", "  spaced  "), ("", ""), ("tru", "tru"),
])
def test_parameter_values_are_read_as_json_only_when_they_are_json_values_other_than_strings(raw, expected):
    [call] = read([f'<invoke name="calc"><parameter name="v">{raw}</parameter></invoke>']).calls
    assert call.arguments == {"v": expected}


@pytest.mark.parametrize("body,expected", [
    ('{"name": "calc"}', {}),
    ('{"name": "calc", "arguments": null}', {}),
    ('{"name": "calc", "parameters": {"x": 1}}', {"x": 1}),
    ('{"name": "calc", "arguments": "{\\"x\\": 2}"}', {"x": 2}),
    ('{"type": "function", "function": {"name": "calc", "arguments": {"x": 3}}}', {"x": 3}),
    ('```json\n{"name": "calc", "arguments": {"x": 4}}\n```', {"x": 4}),
    ('{"name": " calc ", "arguments": {"s": "\\ud800"}}', {"s": "\ufffd"}),
])
def test_hermes_argument_shapes_models_write(body, expected):
    [call] = read([f"<tool_call>{body}</tool_call>"]).calls
    assert (call.name, call.arguments) == ("calc", expected)


def unreadable(tag: str, reason: str) -> str:
    return f"The model wrote a tool call as text that could not be read ({tag} with {reason}), so it did not run."


MALFORMED = {
    '<tool_call>{"name": "calc", "arguments": {"x": 1,}}</tool_call>': unreadable("<tool_call>", "invalid JSON"),
    '<tool_call>{"arguments": {"x": 1}}</tool_call>': unreadable("<tool_call>", "no tool name"),
    '<tool_call>{"name": "", "arguments": {}}</tool_call>': unreadable("<tool_call>", "no tool name"),
    '<tool_call>{"name": "calc", "arguments": [1]}</tool_call>': unreadable("<tool_call>", "arguments that are not a JSON object"),
    '<tool_call>{"name": "calc", "arguments": "{x"}</tool_call>': unreadable("<tool_call>", "arguments that are not valid JSON"),
    '<tool_call>["calc"]</tool_call>': unreadable("<tool_call>", "JSON that is not an object"),
    "<tool_call>[]</tool_call>": unreadable("<tool_call>", "no call in it"),
    "<tool_call></tool_call>": unreadable("<tool_call>", "invalid JSON"),
    "<minimax:tool_call>calc(x=1)</minimax:tool_call>": unreadable("<minimax:tool_call>", "no <invoke> in it"),
    '<minimax:tool_call><invoke name="">x</invoke></minimax:tool_call>': unreadable("<minimax:tool_call>", "an <invoke> without a tool name"),
    '<minimax:tool_call><invoke name="calc"></minimax:tool_call>': unreadable("<minimax:tool_call>", "an <invoke> that is not closed"),
    '<tool_call><invoke name="calc"><parameter name="x">1</invoke></tool_call>': unreadable("<tool_call>", "a <parameter> that is not closed"),
    '<invoke name="calc"><parameter>1</parameter></invoke>': unreadable("<invoke>", "a <parameter> without a name"),
}


@pytest.mark.parametrize("markup", MALFORMED)
def test_a_malformed_call_stays_visible_does_not_run_and_says_so(markup):
    text = f"Before {markup} after"
    whole = read([text])
    assert whole.blocks == [("text", text)]
    assert whole.reader.problems == [MALFORMED[markup]] and whole.reader.calls == 0
    for deltas in every_split(text):
        split = read(deltas)
        assert (split.blocks, split.reader.problems) == (whole.blocks, whole.reader.problems), deltas


@pytest.mark.parametrize("text,tag", [
    ('Sure. <tool_call>{"name": "calc", "argu', "<tool_call>"),
    ('<tool_call>{"name": "calc", "arguments": {}}', "<tool_call>"),
    ('<minimax:tool_call>\n<invoke name="calc">\n', "<minimax:tool_call>"),
    ('<invoke name="calc"><parameter name="x">1</parameter>', "<invoke>"),
    ("<tool_call></tool_", "<tool_call>"),
])
def test_an_unfinished_call_stays_visible_does_not_run_and_says_so(text, tag):
    sentence = f"The model's reply ended inside a tool call written as text ({tag} was never closed), so it did not run."
    for deltas in [[text], *every_split(text)]:
        replay = read(deltas)
        assert (replay.blocks, replay.reader.problems, replay.reader.calls) == ([("text", text)], [sentence], 0), deltas


def test_a_bad_call_among_good_ones_fails_alone_and_each_problem_is_said_once():
    bad = "<tool_call>{oops}</tool_call>"
    replay = read([f"{HERMES}\n{bad}\n{bad}\n{BARE_INVOKE}"])
    assert shapes(replay.message) == [SEARCH, ("text", f"\n{bad}\n{bad}\n"), ("call", "calc", {"x": 3.5}, "invoke")]
    assert replay.reader.problems == [unreadable("<tool_call>", "invalid JSON")]


SHOWN_AS_CODE = [
    f"The format:\n```xml\n{HERMES}\n```\nThat is all.",
    f"Write `{OLD_APP_FORM}` to call.",
    f"Indented:\n   ```\n   {BARE_INVOKE}\n   ```",
    f"Fenced with four:\n````\n```\n{MINIMAX}\n```\n````",
    f"Inline with two: ``{OLD_APP_FORM}`` ok",
]


@pytest.mark.parametrize("text", SHOWN_AS_CODE)
def test_calls_shown_as_code_are_text(text):
    for deltas in [[text], *every_split(text)]:
        replay = read(deltas)
        assert (replay.blocks, replay.reader.problems) == ([("text", text)], []), deltas


def test_an_unclosed_inline_span_ends_at_the_line_break():
    text = f"A stray ` backtick\n{OLD_APP_FORM}"
    assert shapes(read([text]).message) == [("text", "A stray ` backtick\n"), SEARCH]


def test_without_offered_tools_no_call_is_read():
    text = f"{HERMES} {MINIMAX} {BARE_INVOKE}"
    replay = read([text], tool_names=None)
    assert (replay.blocks, replay.reader.problems) == ([("text", text)], [])


def test_a_call_to_a_tool_not_offered_still_runs_so_the_executor_can_answer_it():
    assert shapes(read([OLD_APP_FORM], tool_names=["calc"]).message) == [SEARCH]


def test_ordinary_text_passes_through_at_once_one_delta_per_delta():
    reader = TextReader(Parts(), think_tags=False, tool_names=["calc"])
    deltas = ["Hello", ", world", " 1 < 2 and a <b>tag</b>", ".\n", "Next ", "line."]
    events = [event for delta in deltas for event in reader.feed(delta)] + reader.finish()
    assert events == [ev.TextStart(index=0), *[ev.TextDelta(index=0, text=d) for d in deltas], ev.TextEnd(index=0)]


def test_a_held_back_prefix_that_is_no_tag_is_released():
    reader = TextReader(Parts(), think_tags=False, tool_names=["calc"])
    assert reader.feed("See <tool") == [ev.TextStart(index=0), ev.TextDelta(index=0, text="See ")]
    assert reader.feed("s> and <invoke") == [ev.TextDelta(index=0, text="<tools> and ")]
    assert reader.feed("r") == [ev.TextDelta(index=0, text="<invoker")]
    assert reader.feed(" <minimax:tool_") == [ev.TextDelta(index=0, text=" ")]
    assert reader.finish() == [ev.TextDelta(index=0, text="<minimax:tool_"), ev.TextEnd(index=0)]


def test_blank_text_between_calls_opens_no_text_part():
    replay = read([f"\n{HERMES}\n\n  \n{BARE_INVOKE}\n"])
    assert shapes(replay.message) == [SEARCH, ("call", "calc", {"x": 3.5}, "invoke")]


@pytest.mark.parametrize("lax_json", [False, True])
def test_a_fence_whose_backticks_are_split_across_deltas_still_hides_a_call_shown_in_it(lax_json):
    """A run of backticks cut between two deltas is one run: the call shown inside the fence stays text."""
    shown = 'Example:\n```xml\n<tool_call>{"name": "get", "arguments": {}}</tool_call>\n```\nThat is all.'
    at = shown.index("```") + 1
    for pieces in (["Example:\n`", shown[at:]], [shown[:at], shown[at:at + 1], shown[at + 1:]]):
        reader = TextReader(Parts(), think_tags=False, tool_names=["get"], lax_json=lax_json)
        events = [e for piece in pieces for e in reader.feed(piece)] + reader.finish()
        assert not [e for e in events if isinstance(e, ev.ToolCallStart)], pieces
        assert "".join(e.text for e in events if isinstance(e, ev.TextDelta)) == shown
