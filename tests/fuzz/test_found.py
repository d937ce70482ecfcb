"""What the fuzzing found, each as its smallest case, pinned (the properties around them are in the other modules)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.storage.export import ExportFormatError, import_json, to_json
from desktop_copilot.core.conversation.models import Conversation, Message, TextBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.providers.anthropic_wire import build_params
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.storage.store import Store
from tests.fuzz.test_stream_readers import read_sse
from tests.fuzz.wires import (
    anthropic_events,
    anthropic_id_problems,
    chat_completions_events,
    fold,
    gemini_events,
    ollama_events,
    reply_problems,
)
from tests.support.anthropic_rules import history_problems
from tests.support.loopback import anthropic_sse


def test_a_data_line_with_nothing_after_it_is_no_event():
    """stream_reader._event: `data: ` alone gave an event with empty data (the path for several lines gave none)."""
    assert read_sse([b"data: \n\n", b"data:\r\n\r\n", b"event: ping\ndata: \n\n"]) == [("ping", b"")]


START = {"type": "message_start", "message": {"id": "msg_1", "model": "claude", "content": [], "usage": {}}}
STOP = [{"type": "message_stop"}]


@pytest.mark.parametrize("events", [
    [{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ["x"]}}],
    [{"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
     {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": {"a": 1}}}],
    [{"type": "content_block_start", "index": "0", "content_block": {"type": "text"}}],
    [{"type": "content_block_start", "index": [0], "content_block": {"type": "tool_use", "id": "t", "name": "f"}}],
    [{"type": "content_block_start", "index": 0, "content_block": {"type": ["text"]}}],
    [{"type": "content_block_start", "index": 0, "content_block": "text"}],
    [{"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "s", "text": 5}},
     {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}],
    [{"type": "message_delta", "delta": {"stop_reason": ["end_turn"], "stop_details": {"explanation": 5}},
      "usage": {"output_tokens": "many"}}],
    [{"type": "message_start", "message": {"content": 5, "model": [None], "usage": {"input_tokens": 1.5}}}],
])
def test_anthropic_fields_of_the_wrong_type_are_ignored(events):
    message = fold(anthropic_events(anthropic_sse([START, *events, *STOP])), "anthropic")
    assert not reply_problems(message)


@pytest.mark.parametrize("chunk", [
    {"id": 5, "model": [None], "choices": 5},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": 7, "function": {"name": ["f"], "arguments": 5}}]}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": {"index": 0}}, "finish_reason": ["stop"]}]},
])
def test_chat_completions_fields_of_the_wrong_type_are_ignored(chunk):
    body = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in [
        {"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "hi"}}]}, chunk,
        {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]) + b"data: [DONE]\n\n"
    assert not reply_problems(fold(chat_completions_events([body]), "openai"))


@pytest.mark.parametrize("chunk", [
    {"modelVersion": [None], "candidates": [{"content": {"parts": [{"text": "a"}]}}]},
    {"candidates": {"0": {}}},
    {"candidates": [{"content": True}]},
    {"candidates": [{"content": {"parts": [{"text": ["a"]}, {"thoughtSignature": 5, "text": "b"}]}}]},
    {"candidates": [{"content": {"parts": [{"functionCall": {"name": ["f"], "args": 5}}]}, "finishReason": ["STOP"]}]},
    {"usageMetadata": {"promptTokenCount": [1], "candidatesTokenCount": "2"}, "promptFeedback": True},
])
def test_gemini_fields_of_the_wrong_type_are_ignored(chunk):
    chunks = [chunk, {"responseId": "r", "candidates": [{"content": {"parts": [{"text": "hi"}]}}]},
              {"candidates": [{"content": {"parts": []}, "finishReason": "STOP"}]}]
    assert not reply_problems(fold(gemini_events(chunks), "gemini"))


@pytest.mark.parametrize("prompt_tools", [False, True])
@pytest.mark.parametrize("line", [
    {"message": {"content": ["a"], "thinking": 5, "tool_calls": {"function": {}}}},
    {"message": {"tool_calls": [{"id": 5, "function": {"name": ["f"], "arguments": '{"a": "\\ud800"}'}}]}},
    {"done": True, "prompt_eval_count": ":", "eval_count": [1], "done_reason": ["stop"]},
])
def test_ollama_fields_of_the_wrong_type_are_ignored(line, prompt_tools):
    lines = [{"model": "m", "message": {"content": "hi"}}, line, {"done": True, "done_reason": "stop"}]
    events = ollama_events([b"".join(json.dumps(x).encode() + b"\n" for x in lines)], prompt_tools=prompt_tools)
    assert not reply_problems(fold(events, "ollama"))


def test_ollama_arguments_that_are_not_json_keep_their_text():
    """ollama_wire._arguments: a JSON string that did not parse became {} and its text was lost, so the call ran
    with no arguments instead of the model being told they were not valid JSON."""
    line = {"message": {"tool_calls": [{"function": {"name": "f", "arguments": '{"city": "Par'}}]}}
    events = ollama_events([json.dumps(line).encode() + b"\n" + b'{"done": true}\n'])
    [call] = fold(events, "ollama").tool_calls
    assert call.arguments == {} and call.partial_arguments == '{"city": "Par'


def test_text_that_cannot_be_stored_or_sent_is_replaced():
    """accumulate: a lone surrogate (a "\\ud83d" escape cut from its pair) or NaN made the reply unstorable (the
    store's JSON) and every later request unsendable (httpx's JSON is allow_nan=False, strict UTF-8)."""
    message = fold([ev.Start(model="m"), ev.TextStart(index=0), ev.TextDelta(index=0, text="a\ud83d"),
                    ev.TextDelta(index=0, text="\ud83d\ude00"),
                    ev.ToolCallStart(index=1, tool_call_id="t\udc80", name="f", arguments={"x": float("nan"), "y": "\ud800"}),
                    ev.ToolCallEnd(index=1, arguments={"x": float("inf")}), ev.Done(reason="tool_use")], "anthropic")
    assert message.text == "a\ufffd😀"
    assert message.tool_calls[0].id == "t\ufffd" and message.tool_calls[0].arguments == {"x": None}
    assert not reply_problems(message)


def call(call_id: str) -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name="f", arguments={}, status=ToolCallStatus.DONE, result="ok")


def test_anthropic_gets_tool_use_ids_it_accepts():
    """anthropic_wire.build_messages: another provider's call ids ("functions.get_weather:0" from Kimi, "call_0" reused
    in each reply, an empty one) were sent as they were: the API refuses them (pattern, unique), every later turn a 400."""
    replies = []
    for ids in (["functions.get_weather:0", "call_0"], ["call_0", ""], ["", "ok_id"]):
        reply = Message.assistant("m", "moonshot")
        reply.blocks = [call(i) for i in ids]
        replies += [reply, Message.user("next")]
    body = build_params(ProviderRequest(model="m", messages=[Message.user("q"), *replies]))
    assert not anthropic_id_problems(body["messages"]) and not history_problems(body["messages"])
    again = build_params(ProviderRequest(model="m", messages=[Message.user("q"), *replies]))
    assert again == body  # the same ids for the same history (prompt caching keeps working)
    assert [b["id"] for m in body["messages"] for b in m["content"] if b["type"] == "tool_use"][-1] == "ok_id"


@pytest.fixture
def store():
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "s.sqlite3")
        yield store
        store.close()


def test_an_export_naming_one_message_twice_is_refused(store):
    """export.import_json: a message id in two conversations made the second save take the first's row over."""
    message = Message.user("hello")
    first, second = Conversation(messages=[message]), Conversation(messages=[message.model_copy()])
    with pytest.raises(ExportFormatError, match="appears twice"):
        import_json(store, to_json([first, second]))
    assert store.list_conversations() == []


def test_an_export_whose_message_is_stored_elsewhere_is_refused(store):
    message = Message.user("mine")
    mine = Conversation(messages=[message])
    import_json(store, to_json([mine]))
    theirs = Conversation(messages=[Message(id=message.id, role=message.role, blocks=[TextBlock(text="taken over")])])
    with pytest.raises(ExportFormatError, match="already stored"):
        import_json(store, to_json([theirs]))
    assert store.load_conversation(mine.id).messages[0].text == "mine"
    assert store.load_conversation(theirs.id) is None


DEEP_ARGUMENTS = "[" * 100_000


def test_arguments_nested_too_deeply_for_python_are_not_json():
    """ollama_wire._arguments and the text protocol's call reading: json.loads raised RecursionError (the reply failed with
    "RecursionError: maximum recursion depth exceeded") where arguments that are not JSON are reported to the model."""
    line = {"message": {"tool_calls": [{"function": {"name": "f", "arguments": DEEP_ARGUMENTS}}]}}
    [call] = fold(ollama_events([json.dumps(line).encode() + b"\n" + b'{"done": true}\n']), "ollama").tool_calls
    assert call.arguments == {} and call.partial_arguments == DEEP_ARGUMENTS
    written = f'<tool_call>{{"name": "f", "arguments": {DEEP_ARGUMENTS}</tool_call>'
    text = json.dumps({"message": {"content": written}})
    reply = fold(ollama_events([text.encode() + b"\n" + b'{"done": true}\n'], prompt_tools=True), "ollama")
    assert not reply.tool_calls and reply.text == written and "could not be read" in reply.error  # shown, never run


def test_streamed_arguments_nested_too_deeply_for_python_are_not_json():
    events = [START, {"type": "content_block_start", "index": 0,
                      "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": DEEP_ARGUMENTS}},
              {"type": "content_block_stop", "index": 0}, *STOP]
    [call] = fold(anthropic_events(anthropic_sse(events)), "anthropic").tool_calls
    assert call.arguments == {} and call.partial_arguments == DEEP_ARGUMENTS
