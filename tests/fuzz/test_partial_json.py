"""Property tests of tool-call arguments that stream as JSON text: any prefix or garbage never raises; arguments
that are not a JSON object end as `{}` with the raw text kept in the call's `partial_arguments` (what the tool
executor reports to the model), through every wire that streams them and the text protocol."""

from __future__ import annotations

import json
import math

from hypothesis import example, given
from hypothesis import strategies as st

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import ToolCallBlock
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.text_protocol.reader import TextReader
from desktop_copilot.core.providers.wire_common import parse_arguments
from tests.fuzz.support import any_text, cuts, fuzz_settings, json_values, pieces, ran
from tests.fuzz.wires import (
    anthropic_events,
    chat_completions_events,
    fold,
    gemini_events,
    ollama_events,
    reply_problems,
)
from tests.support.chat_completions_support import chat_chunk, chat_sse
from tests.support.loopback import anthropic_sse

OPEN, CLOSE = "<tool_call>", "</tool_call>"

finite_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)
objects = st.dictionaries(st.text(max_size=8), finite_json, max_size=5)


@st.composite
def argument_texts(draw: st.DrawFn) -> str:
    """The text of a call's arguments: an object's JSON, a prefix of one (a reply cut off), or any text."""
    text = json.dumps(draw(objects), ensure_ascii=draw(st.booleans()))
    kind = draw(st.integers(0, 2))
    if kind == 1:
        return text[: draw(st.integers(0, len(text) - 1))]
    if kind == 2:
        return draw(any_text | st.sampled_from(['{"a": NaN}', '{"a": Infinity}', "[1, 2]", "null", "5", '"x"', "{", "}",
                                                '{"a": 1} trailing', '{"a": "\\ud83d"}']))
    return text


def expected_arguments(text: str) -> dict:
    """A JSON object is taken; anything else is `{}`. What cannot be stored or sent on is replaced: NaN and
    infinities by null, a lone surrogate (from a `\\ud83d` escape) by U+FFFD."""
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return {}
    return _sendable(value) if isinstance(value, dict) else {}


def _sendable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_sendable(k): _sendable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_sendable(v) for v in value]
    return value


def assert_kept(call: ToolCallBlock, text: str) -> None:
    expected = expected_arguments(text)
    assert json.dumps(call.arguments, sort_keys=True, allow_nan=False) == json.dumps(expected, sort_keys=True)
    if not expected and text.strip() and text.strip() != "{}":  # the raw text is kept for the executor to report
        assert call.partial_arguments.strip() == _sendable(text).strip()


@fuzz_settings("partial_json", 100)
@given(argument_texts())
@example('{"a": NaN}')
def test_parse_arguments_never_raises_and_gives_an_object(text):
    ran("partial_json")
    value = parse_arguments(text)
    assert isinstance(value, dict)
    if value:
        assert json.dumps(value) == json.dumps(json.loads(text))


@fuzz_settings("partial_json", 80)
@given(argument_texts(), st.data())
@example('{"a": NaN}', None)
@example('{"a": "\\ud83d"}', None)
def test_anthropic_input_json_deltas_cut_anywhere(text, data):
    ran("partial_json")
    fragments = pieces(text, data.draw(cuts(len(text), max_cuts=8))) if data else [text]
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude", "content": [], "usage": {}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": f}} for f in fragments),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ]
    message = fold(anthropic_events(anthropic_sse(events)), "anthropic")
    [call] = message.tool_calls
    assert_kept(call, text)
    assert not reply_problems(message)


@fuzz_settings("partial_json", 80)
@given(argument_texts(), st.data())
def test_chat_completions_argument_fragments_cut_anywhere(text, data):
    ran("partial_json")
    fragments = pieces(text, data.draw(cuts(len(text), max_cuts=8)))
    chunks = [chat_chunk({"role": "assistant", "content": ""}),
              chat_chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}]}),
              *(chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": f}}]}) for f in fragments),
              chat_chunk({}, finish_reason="tool_calls")]
    message = fold(chat_completions_events(chat_sse(chunks)), "openai")
    [call] = message.tool_calls
    assert_kept(call, text)
    assert not reply_problems(message)


@fuzz_settings("partial_json", 80)
@given(argument_texts() | objects)
@example('{"a": 1')
@example("[1, 2]")
def test_ollama_arguments_as_text_or_object(arguments):
    ran("partial_json")
    line = {"model": "m", "created_at": "t", "done": False,
            "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": arguments}}]}}
    done = {"model": "m", "created_at": "t", "done": True, "done_reason": "stop", "message": {"role": "assistant", "content": ""}}
    body = b"".join(json.dumps(x).encode() + b"\n" for x in (line, done))
    message = fold(ollama_events([body]), "ollama")
    [call] = message.tool_calls
    assert_kept(call, arguments if isinstance(arguments, str) else json.dumps(arguments))
    assert not reply_problems(message)


paths = st.sampled_from(["$.a", "$.a.b", "$.a[0]", "$.a[2].b", "$['x y']", '$["q"]', "$", "$.", "$[99999]", "a", "$..a",
                         "$.a[0][1]", "$['a'][0]"]) | any_text.map(lambda t: "$." + t)
pieces_of_args = st.fixed_dictionaries({"jsonPath": paths}, optional={
    "stringValue": any_text, "numberValue": st.floats() | st.integers(), "boolValue": st.booleans(), "nullValue": st.none(),
    "willContinue": st.booleans()})


@fuzz_settings("partial_json", 60)
@given(st.lists(st.lists(pieces_of_args | json_values(), max_size=4), max_size=5))
def test_gemini_streamed_arguments_any_paths_and_values(batches):
    ran("partial_json")
    chunks = [{"responseId": "r", "candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "willContinue": True}}]}}]}]
    chunks += [{"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": batch, "willContinue": True}}]}}]}
               for batch in batches]
    chunks.append({"candidates": [{"content": {"parts": [{"functionCall": {}}]}, "finishReason": "STOP"}]})
    message = fold(gemini_events(chunks), "gemini")
    [call] = message.tool_calls
    json.dumps(call.arguments, allow_nan=False)
    assert not reply_problems(message)


@st.composite
def prompt_replies(draw: st.DrawFn) -> str:
    """Text with `<tool_call>` blocks whose bodies are valid calls, argument texts, or garbage; tags cut or repeated."""
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        parts.append(draw(st.text(max_size=15) | st.sampled_from(["<", "<tool", "</tool_call>", "<tool_call>", "\n"])))
        body = draw(argument_texts().map(lambda a: f'{{"name": "f", "arguments": {a}}}') | argument_texts()
                    | objects.map(lambda o: json.dumps({"name": "f", "arguments": o})))
        parts.append(OPEN + body + (CLOSE if draw(st.integers(0, 4)) else ""))
    return "".join(parts)


def _prompt_fold(deltas: list[str]):
    parser = TextReader(Parts(), think_tags=False, tool_names=["f"])
    events = [event for delta in deltas for event in parser.feed(delta)] + parser.finish()
    return fold([ev.Start(model="m"), *events, ev.Done(reason="tool_use" if parser.calls else "end_turn")], "ollama")


@fuzz_settings("partial_json", 60)
@given(prompt_replies(), st.data())
def test_prompt_tool_calls_in_text_cut_anywhere(reply, data):
    ran("partial_json")
    whole = _prompt_fold([reply])
    cut = _prompt_fold(pieces(reply, data.draw(cuts(len(reply), max_cuts=10))))
    assert cut.text == whole.text
    assert [(c.name, c.arguments, c.partial_arguments) for c in cut.tool_calls] == \
        [(c.name, c.arguments, c.partial_arguments) for c in whole.tool_calls]
    assert not reply_problems(whole)
