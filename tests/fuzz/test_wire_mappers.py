"""Property tests of the four wire mappers, fed as their providers feed them: recorded streams with fields replaced,
dropped and added, and events of any JSON, never raise, and fold into a reply every provider's API accepts as history
and the store can keep; recorded streams cut anywhere give the same reply."""

from __future__ import annotations

import functools
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.support import cuts, fuzz_settings, mutate, pieces, ran, wire_garbage
from tests.fuzz.wires import (
    anthropic_events,
    chat_completions_events,
    fold,
    gemini_events,
    ollama_events,
    reply_problems,
    summary,
)
from tests.support.gemini_support import recorded_chunks
from tests.support.loopback import CORPUS_DIR, corpus_chunks

ANTHROPIC_WORDS = (
    "type", "index", "delta", "content_block", "message", "text", "partial_json", "thinking", "signature", "id", "name",
    "input", "usage", "stop_reason", "stop_details", "citations", "citation", "data", "content", "model",
    "message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta",
    "message_stop", "text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta",
    "compaction_delta", "tool_use", "redacted_thinking", "server_tool_use", "web_search_tool_result", "output_tokens",
    "input_tokens", "refusal", "end_turn", "category", "explanation",
)
CHAT_WORDS = (
    "id", "model", "choices", "index", "delta", "content", "refusal", "reasoning_content", "reasoning", "tool_calls",
    "function", "name", "arguments", "type", "finish_reason", "usage", "prompt_tokens", "completion_tokens",
    "prompt_tokens_details", "cached_tokens", "completion_tokens_details", "reasoning_tokens", "stop", "tool_calls",
    "length", "content_filter", "role", "assistant",
)
GEMINI_WORDS = (
    "candidates", "content", "parts", "text", "thought", "thoughtSignature", "functionCall", "name", "args", "id",
    "partialArgs", "jsonPath", "stringValue", "numberValue", "boolValue", "nullValue", "willContinue", "finishReason",
    "finishMessage", "usageMetadata", "promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount",
    "promptFeedback", "blockReason", "responseId", "modelVersion", "STOP", "MAX_TOKENS", "SAFETY", "$.a", "$.a[0]",
    "$['b']", "executableCode", "inlineData",
)
OLLAMA_WORDS = (
    "model", "created_at", "message", "role", "content", "thinking", "tool_calls", "function", "name", "arguments",
    "id", "done", "done_reason", "error", "prompt_eval_count", "eval_count", "stop", "length", "<tool_call>",
    "</tool_call>", '<tool_call>{"name": "get_weather", "arguments": {"city": "x"}}</tool_call>',
    '{"name": "a", "arguments": "{\\"x\\": NaN}"}',
)


def _files(prefix: str, *suffixes: str) -> list[str]:
    return sorted(p.name for p in CORPUS_DIR.iterdir() if p.name.startswith(prefix) and p.suffix in suffixes)


ANTHROPIC_FILES = _files("anthropic_", ".sse", ".jsonl")
CHAT_FILES = _files("openai_", ".sse")
GEMINI_FILES = _files("gemini_", ".sse", ".jsonl")
OLLAMA_FILES = _files("ollama_", ".ndjson")


def _sse_values(name: str) -> list[Any]:
    from desktop_copilot.core.providers.stream_reader import SSEReader

    reader = SSEReader()
    events = [e for chunk in corpus_chunks(name) for e in reader.feed(chunk)] + reader.close()
    return [json.loads(data) for event, data in events if event not in ("ping", "error") and data and data != b"[DONE]"]


CORPUS_VALUES = {
    **{name: _sse_values(name) for name in ANTHROPIC_FILES + CHAT_FILES},
    **{name: recorded_chunks(name) for name in GEMINI_FILES},
    **{name: [json.loads(line) for line in (CORPUS_DIR / name).read_bytes().splitlines() if line.strip()] for name in OLLAMA_FILES},
}


GARBAGE = {words: wire_garbage(*words) for words in (ANTHROPIC_WORDS, CHAT_WORDS, GEMINI_WORDS, OLLAMA_WORDS)}
ACTIONS = st.integers(0, 5)


@st.composite
def hostile(draw: st.DrawFn, files: list[str], words: tuple[str, ...]) -> list[Any]:
    """A recorded stream with a few of its events changed (fields replaced, dropped or added), dropped, repeated,
    or with events of any JSON put in."""
    garbage = GARBAGE[words]
    events = list(CORPUS_VALUES[draw(st.sampled_from(files))])
    for _ in range(draw(st.integers(0, 6))):
        action, where = draw(ACTIONS), draw(st.integers(0, max(0, len(events) - 1)))
        if action <= 2 and events:
            for _ in range(draw(st.integers(1, 3))):
                events[where] = mutate(draw, events[where], garbage)
        elif action == 3 and events:
            del events[where]
        elif action == 4 and events:
            events.insert(where, events[where])
        else:
            events.insert(where, draw(garbage))
    return events


def sse_body(values: list[Any], *, named: bool) -> bytes:
    """`values` as an event stream (Anthropic names each event by its type)."""
    out = []
    for value in values:
        name = value.get("type") if named and isinstance(value, dict) and isinstance(value.get("type"), str) else None
        head = f"event: {''.join(ch for ch in name if ch not in chr(10) + chr(13))}\n" if name else ""
        out.append((head + "data: " + json.dumps(value) + "\n\n").encode())
    return b"".join(out)


def assert_valid(message, events) -> None:
    problems = reply_problems(message)
    assert not problems, f"{problems}\n{events}"


def assert_cut_anywhere_reads_whole(name: str, data: st.DataObject, replay, provider: str) -> None:
    """Corpus file `name` read by `replay` (a provider's reading loop) in pieces cut anywhere gives the reply it
    gives whole, and that reply is valid."""
    body = b"".join(corpus_chunks(name))
    whole = fold(replay([body]), provider)
    cut = fold(replay(pieces(body, data.draw(cuts(len(body), max_cuts=40)))), provider)
    assert summary(cut) == summary(whole)
    assert_valid(cut, name)


# --- anthropic ---


@fuzz_settings("anthropic_mapper", 80)
@given(hostile(ANTHROPIC_FILES, ANTHROPIC_WORDS))
def test_anthropic_mapper_on_hostile_events(values):
    ran("anthropic_mapper")
    events = anthropic_events([sse_body(values, named=True)])
    assert_valid(fold(events, "anthropic"), events)


@fuzz_settings("anthropic_mapper", 30)
@given(st.sampled_from(ANTHROPIC_FILES), st.data())
def test_anthropic_recorded_streams_cut_anywhere_give_the_same_reply(name, data):
    ran("anthropic_mapper")
    assert_cut_anywhere_reads_whole(name, data, anthropic_events, "anthropic")


# --- chat completions ---


@fuzz_settings("chat_completions_mapper", 80)
@given(hostile(CHAT_FILES, CHAT_WORDS))
def test_chat_completions_mapper_on_hostile_chunks(values):
    ran("chat_completions_mapper")
    events = chat_completions_events([sse_body(values, named=False) + b"data: [DONE]\n\n"])
    assert_valid(fold(events, "openai"), events)


@fuzz_settings("chat_completions_mapper", 25)
@given(st.sampled_from(CHAT_FILES), st.data())
def test_chat_completions_recorded_streams_cut_anywhere_give_the_same_reply(name, data):
    ran("chat_completions_mapper")
    assert_cut_anywhere_reads_whole(name, data, chat_completions_events, "openai")


# --- gemini ---


@fuzz_settings("gemini_mapper", 80)
@given(hostile(GEMINI_FILES, GEMINI_WORDS))
def test_gemini_mapper_on_hostile_chunks(values):
    ran("gemini_mapper")
    events = gemini_events(values)
    assert_valid(fold(events, "gemini"), events)


# --- ollama ---


@fuzz_settings("ollama_mapper", 80)
@given(hostile(OLLAMA_FILES, OLLAMA_WORDS), st.booleans())
def test_ollama_mapper_on_hostile_lines(values, prompt_tools):
    ran("ollama_mapper")
    body = b"".join(json.dumps(value).encode() + b"\n" for value in values)
    events = ollama_events([body], prompt_tools=prompt_tools)
    assert_valid(fold(events, "ollama"), events)


@fuzz_settings("ollama_mapper", 25)
@given(st.sampled_from(OLLAMA_FILES), st.booleans(), st.data())
def test_ollama_recorded_streams_cut_anywhere_give_the_same_reply(name, prompt_tools, data):
    ran("ollama_mapper")
    assert_cut_anywhere_reads_whole(name, data, functools.partial(ollama_events, prompt_tools=prompt_tools), "ollama")
