"""The real AnthropicProvider against a loopback server: corpus replays checked against the SDK, and faults."""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import anthropic
import pytest
import pytest_asyncio

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Message, MessageStatus, RawBlock, Usage
from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider
from desktop_copilot.core.providers.anthropic_wire import build_messages
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.keys.secrets import Secret
from tests.support.loopback import (
    CORPUS_DIR,
    LoopbackServer,
    ScriptedResponse,
    anthropic_error,
    anthropic_sse,
    anthropic_text_reply,
    anthropic_tool_reply,
    corpus_chunks,
    json_response,
    sse_response,
)

KEY = "sk-ant-test-5f1e0c3b9a7d4e2f8c6b"
MESSAGES = "/v1/messages"
CORPUS_FILES = sorted(p.name for p in CORPUS_DIR.glob("anthropic_*"))
OUR_BLOCK_TYPES = {"text", "thinking", "redacted_thinking", "tool_use"}


@pytest_asyncio.fixture
async def make_provider():
    """Builds providers aimed at a server (no retries unless asked) and closes them afterwards."""
    made: list[AnthropicProvider] = []

    def build(server: LoopbackServer | str, max_retries: int = 0) -> AnthropicProvider:
        url = server if isinstance(server, str) else server.url
        made.append(AnthropicProvider(Secret(KEY), url, max_retries=max_retries, timeout=10.0))
        return made[-1]

    yield build
    for provider in made:
        await provider.aclose()


def make_request(**kw: Any) -> ProviderRequest:
    return ProviderRequest(model="claude-test", messages=[Message.user("hi")], **kw)


async def collect(provider: AnthropicProvider, request: ProviderRequest | None = None) -> list[ev.Event]:
    return [e async for e in provider.stream(request or make_request())]


def fold(events: list[ev.Event]) -> Message:
    message = Message.assistant()
    for event in events:
        accumulate(message, event)
    return message


# --- the oracle: our own reading of the SSE bytes, and the SDK's accumulator -------------


def parse_sse(body: bytes) -> list[tuple[str | None, dict]]:
    """(event name, JSON data) per dispatched event; like the SSE spec (and the SDK), an event
    not terminated by a blank line before EOF is discarded."""
    out, name, data = [], None, []
    for line in re.split(r"\r\n|\r|\n", body.decode())[:-1]:
        if line == "":
            if data:
                out.append((name, json.loads("\n".join(data))))
            name, data = None, []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    return out


def expected_kinds(sse: list[tuple[str | None, dict]]) -> list[str]:
    """The unified event kinds the provider must yield for these raw events."""
    kinds: list[str] = []
    blocks: dict[int, str] = {}
    open_blocks: list[int] = []
    stopped = False
    for name, data in sse:
        if name in (None, "ping"):
            continue
        match data["type"]:
            case "message_start":
                kinds += ["start", "usage"]
            case "content_block_start":
                block = data["content_block"]
                blocks[data["index"]] = block["type"]
                open_blocks.append(data["index"])
                kinds += {"text": ["text_start"], "thinking": ["thinking_start"], "redacted_thinking": ["thinking_start"],
                          "tool_use": ["toolcall_start"]}.get(block["type"], [])
                if block.get("text") or block.get("thinking"):
                    kinds.append(f"{block['type']}_delta")
                kinds += ["text_citation"] * len(block.get("citations") or [])
            case "content_block_delta":
                delta, kind = data["delta"], blocks[data["index"]]
                if kind not in OUR_BLOCK_TYPES:
                    pass  # applied to the raw block, which arrives whole at its stop
                elif delta["type"] == "text_delta" or (delta["type"] == "thinking_delta" and delta["thinking"]):
                    kinds.append(delta["type"])
                elif delta["type"] == "citations_delta":
                    kinds.append("text_citation")
                elif delta["type"] == "input_json_delta" and kind == "tool_use" and delta["partial_json"]:
                    kinds.append("toolcall_delta")
            case "content_block_stop":
                kind = blocks[data["index"]]
                open_blocks.remove(data["index"])
                kinds.append({"text": "text_end", "thinking": "thinking_end", "redacted_thinking": "thinking_end",
                              "tool_use": "toolcall_end"}.get(kind, "raw_block"))
            case "message_delta":
                kinds.append("usage")
            case "message_stop":
                stopped = True
                kinds.append("done")
    if stopped:
        return kinds
    ends = {"text": "text_end", "thinking": "thinking_end", "redacted_thinking": "thinking_end", "tool_use": "toolcall_end"}
    return [*kinds, *(ends[blocks[i]] for i in open_blocks if blocks[i] in ends), "error"]  # every start gets its end


async def sdk_final_message(url: str) -> Any:
    """What the SDK's own stream helper accumulates from the next scripted reply. The beta
    helper is used because the corpus has beta-only blocks (`mcp_tool_use`) whose streamed
    input the non-beta accumulator does not track."""
    async with anthropic.AsyncAnthropic(api_key=KEY, base_url=url, max_retries=0) as client:
        async with client.beta.messages.stream(
            model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            return await stream.get_final_message()


def _valid_json(text: str) -> bool:
    try:
        return not text.strip() or isinstance(json.loads(text), dict)
    except json.JSONDecodeError:
        return False


def sdk_wire_content(final: Any, events: list[ev.Event]) -> list[dict]:
    """The SDK's content exactly, as it must be replayed: every block verbatim (citations and a
    tool call's `caller` included), with two documented exceptions the API itself demands:
    text that is empty or whitespace only is dropped, and a tool input that never became valid
    JSON is sent as `{}`."""
    valid_inputs = {e.index for e in events if isinstance(e, ev.ToolCallEnd) and _valid_json(fold(events).blocks[e.index].partial_arguments)}
    content = []
    for index, block in enumerate(final.content):
        data = block.to_dict()
        if data["type"] == "text":
            if data.get("citations") is None:
                data.pop("citations", None)
            if not data["text"].strip():
                continue
        elif data["type"] == "tool_use" and index not in valid_inputs:
            data["input"] = {}
        content.append(data)
    return content


def test_corpus_is_present():
    assert len(CORPUS_FILES) >= 20, f"Anthropic corpus not found in {CORPUS_DIR}"


@pytest.mark.asyncio
@pytest.mark.parametrize("name", CORPUS_FILES)
async def test_corpus_replay_matches_sdk(loopback, name, make_provider):
    chunks = corpus_chunks(name)
    loopback.enqueue(MESSAGES, sse_response(chunks), sse_response(chunks))
    sse = parse_sse(b"".join(chunks))

    events = await collect(make_provider(loopback))
    final = await sdk_final_message(loopback.url)

    assert [e.kind for e in events] == expected_kinds(sse)
    message = fold(events)
    assert build_messages([message])[0]["content"] == sdk_wire_content(final, events)
    for index, block in enumerate(final.content):
        if block.type not in OUR_BLOCK_TYPES:
            assert message.blocks[index] == RawBlock(data=block.to_dict())

    start = events[0]
    assert isinstance(start, ev.Start) and (start.model, start.provider_message_id) == (final.model, final.id)
    usage = final.usage
    assert message.usage == Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_input_tokens or 0,
        cache_write_tokens=usage.cache_creation_input_tokens or 0,
    )
    if isinstance(events[-1], ev.Done):
        assert events[-1].reason == final.stop_reason == message.stop_reason
        assert message.status is MessageStatus.COMPLETED
    else:  # the recording lacks a terminated message_stop: the reply counts as interrupted
        assert events[-1] == ev.Error(reason="interrupted", message=events[-1].message)
        assert message.status is MessageStatus.INTERRUPTED


@pytest.mark.asyncio
async def test_corpus_split_into_small_reads_gives_same_events(loopback, make_provider):
    name = "anthropic_thinking_tool_use_01.sse"
    loopback.enqueue(MESSAGES, sse_response(corpus_chunks(name)), sse_response(corpus_chunks(name, split_every=7)))
    whole = await collect(make_provider(loopback))
    split = await collect(make_provider(loopback))
    assert split == whole
    assert fold(split).tool_calls[0].arguments == {"location": "Florence, Italy"}


@pytest.mark.asyncio
async def test_truncated_recording_with_missing_block_stop_still_closes_tool_call(loopback, make_provider):
    """anthropic_max_tokens_tool_use_01.sse was trimmed by hand: no content_block_stop for the
    tool_use and no newline after message_stop. Restoring the newline, message_stop must still
    close the open block, with the truncated input reported as invalid JSON."""
    chunks = corpus_chunks("anthropic_max_tokens_tool_use_01.sse")
    loopback.enqueue(MESSAGES, sse_response([*chunks, b"\n\n"]))
    events = await collect(make_provider(loopback))
    end = [e for e in events if isinstance(e, ev.ToolCallEnd)]
    assert [e.kind for e in events[-2:]] == ["toolcall_end", "done"]
    assert events[-1].reason == "max_tokens"
    partial = fold(events).tool_calls[0].partial_arguments
    assert end[0].arguments == {} and partial.startswith('{"filename": "taxes.txt", "lines_of_text": [')
    assert not _valid_json(partial)


# --- faults --------------------------------------------------------------------------------

PARTIAL = anthropic_text_reply("Hello there, world", pieces=3)[:4]  # message_start, block start, 2 of 3 deltas
OVERLOADED = {
    "type": "error",
    "error": {"details": None, "type": "overloaded_error", "message": "Overloaded"},
    "request_id": "req_011CLoopback",
}


@pytest.mark.asyncio
async def test_text_before_an_error_event_in_the_same_network_chunk_is_kept(loopback, make_provider):
    """The whole body in one chunk: the deltas before the error event are the reply's, as when they come apart."""
    loopback.enqueue(MESSAGES, sse_response(b"".join(anthropic_sse([*PARTIAL, OVERLOADED]))))
    events = await collect(make_provider(loopback))
    message = fold(events)
    assert message.text == "Hello there," and message.status is MessageStatus.FAILED
    assert "partial reply was kept" in events[-1].message


@pytest.mark.asyncio
async def test_sse_error_event_mid_stream_keeps_partial_text(loopback, make_provider):
    """Built stream: no real recording of an Anthropic mid-stream error exists (SOURCES.md)."""
    loopback.enqueue(MESSAGES, sse_response([*PARTIAL, OVERLOADED]))
    events = await collect(make_provider(loopback, max_retries=2))
    error = events[-1]
    assert isinstance(error, ev.Error) and error.reason == "error"
    assert "mid-reply" in error.message and "Overloaded" in error.message and "partial reply was kept" in error.message
    message = fold(events)
    assert message.text == "Hello there,"
    assert message.status is MessageStatus.FAILED
    assert len(loopback.requests_to(MESSAGES)) == 1  # errors inside a stream are not retried


@pytest.mark.asyncio
async def test_connection_dropped_mid_stream_is_interrupted(loopback, make_provider):
    loopback.enqueue(MESSAGES, sse_response(PARTIAL, drop=True))
    events = await collect(make_provider(loopback))
    assert events[-1].kind == "error" and events[-1].reason == "interrupted"
    assert sum(isinstance(e, ev.Error) for e in events) == 1
    message = fold(events)
    assert message.text == "Hello there," and message.status is MessageStatus.INTERRUPTED


@pytest.mark.asyncio
async def test_clean_end_without_message_stop_is_interrupted(loopback, make_provider):
    loopback.enqueue(MESSAGES, sse_response(anthropic_text_reply("complete text")[:-1]))
    events = await collect(make_provider(loopback))
    assert [e.kind for e in events[-2:]] == ["usage", "error"]
    assert events[-1].reason == "interrupted" and "partial reply was kept" in events[-1].message
    assert fold(events).text == "complete text"


@pytest.mark.asyncio
async def test_overloaded_529_is_retried_after_retry_after(loopback, make_provider):
    loopback.enqueue(
        MESSAGES,
        anthropic_error(529, "overloaded_error", "Overloaded", headers={"retry-after": "1"}),
        sse_response(anthropic_text_reply("after the wait")),
    )
    began = time.monotonic()
    events = await collect(make_provider(loopback, max_retries=1))
    elapsed = time.monotonic() - began
    assert events[-1] == ev.Done(reason="end_turn")
    assert fold(events).text == "after the wait"
    assert len(loopback.requests_to(MESSAGES)) == 2
    assert 0.9 <= elapsed < 5


@pytest.mark.asyncio
async def test_401_names_the_key_and_is_not_retried(loopback, make_provider):
    loopback.enqueue(MESSAGES, anthropic_error(401, "authentication_error", "invalid x-api-key"))
    events = await collect(make_provider(loopback, max_retries=2))
    assert len(events) == 1 and isinstance(events[0], ev.Error)
    assert events[0].reason == "error" and events[0].status_code == 401
    assert "key" in events[0].message and "invalid x-api-key" in events[0].message
    assert len(loopback.requests_to(MESSAGES)) == 1


@pytest.mark.asyncio
async def test_400_reports_the_api_message(loopback, make_provider):
    detail = "messages: text content blocks must be non-empty"
    loopback.enqueue(MESSAGES, anthropic_error(400, "invalid_request_error", detail))
    events = await collect(make_provider(loopback, max_retries=2))
    assert [e.kind for e in events] == ["error"]
    assert events[0].status_code == 400 and detail in events[0].message and "refused" in events[0].message
    assert len(loopback.requests_to(MESSAGES)) == 1


@pytest.mark.asyncio
async def test_unreachable_server_is_an_error_not_an_exception(make_provider):
    with LoopbackServer() as server:
        url = server.url
    events = await collect(make_provider(url))
    assert [e.kind for e in events] == ["error"]
    assert events[0].reason == "error" and url in events[0].message


@pytest.mark.asyncio
async def test_max_tokens_stop_reason(loopback, make_provider):
    """Built stream: no real recording of max_tokens on plain text exists (SOURCES.md)."""
    loopback.enqueue(MESSAGES, sse_response(anthropic_text_reply("cut off mid", stop_reason="max_tokens")))
    events = await collect(make_provider(loopback))
    assert events[-1] == ev.Done(reason="max_tokens")
    message = fold(events)
    assert message.stop_reason == "max_tokens" and message.status is MessageStatus.COMPLETED


@pytest.mark.asyncio
async def test_invalid_tool_json_is_reported(loopback, make_provider):
    reply = anthropic_tool_reply([("toolu_1", "search", {})])
    reply[3:3] = [{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"q": tru'}}]
    loopback.enqueue(MESSAGES, sse_response(reply))
    events = await collect(make_provider(loopback))
    end = next(e for e in events if isinstance(e, ev.ToolCallEnd))
    assert fold(events).tool_calls[0].partial_arguments == '{"q": tru' and end.arguments == {}
    assert events[-1] == ev.Done(reason="tool_use")


@pytest.mark.asyncio
async def test_request_carries_key_thinking_and_no_empty_tools(loopback, make_provider):
    loopback.enqueue(MESSAGES, sse_response(anthropic_text_reply("ok")), sse_response(anthropic_text_reply("ok")))
    provider = make_provider(loopback)
    await collect(provider, make_request(system="Be brief.", thinking_budget=2048))
    tool = ToolSpec("web_search", "Search the web.", {"type": "object", "properties": {"q": {"type": "string"}}})
    await collect(provider, make_request(tools=[tool]))

    first, second = loopback.requests_to(MESSAGES)
    assert first.method == "POST"
    assert first.headers["Authorization"] == f"Bearer {KEY}"  # SDK 2.x: Bearer, not x-api-key
    assert "x-api-key" not in first.headers
    body = first.json()
    assert body["stream"] is True and body["model"] == "claude-test" and body["system"] == "Be brief."
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] > 2048
    assert "tools" not in body
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert second.json()["tools"] == [{"name": "web_search", "description": "Search the web.", "input_schema": tool.input_schema}]
    assert "thinking" not in second.json()


@pytest.mark.asyncio
async def test_key_never_shown_in_repr_or_errors(loopback, make_provider):
    def echo_auth(request) -> ScriptedResponse:  # a proxy that echoes what it was sent
        return anthropic_error(401, "authentication_error", f"bad credentials: {request.headers['authorization']}")

    loopback.set_handler(MESSAGES, echo_auth)
    provider = make_provider(loopback)
    assert KEY not in repr(provider) and KEY[-4:] in repr(provider)
    events = await collect(provider)
    loopback.enqueue(MESSAGES, sse_response([*PARTIAL, {**OVERLOADED, "error": {"type": "api_error", "message": KEY}}]))
    events += await collect(provider)
    errors = [e for e in events if isinstance(e, ev.Error)]
    assert len(errors) == 2 and errors[0].status_code == 401
    assert all(KEY not in e.message for e in errors)
    assert "bad credentials" in errors[0].message


def test_sse_helper_encodes_event_names():
    chunks = anthropic_sse([{"type": "ping"}])
    assert chunks == [b'event: ping\ndata: {"type": "ping"}\n\n']
    assert parse_sse(b"".join(chunks)) == [("ping", {"type": "ping"})]


@pytest.mark.asyncio
async def test_list_models(loopback, make_provider):
    models = [{"type": "model", "id": f"claude-{n}", "display_name": n, "created_at": "2026-01-01T00:00:00Z"} for n in ("a", "b")]
    loopback.enqueue("/v1/models", json_response({"data": models, "has_more": False, "first_id": "claude-a", "last_id": "claude-b"}))
    assert await make_provider(loopback).list_models() == ["claude-a", "claude-b"]
    (request,) = loopback.requests_to("/v1/models")
    assert request.method == "GET" and request.query == "limit=100" and request.headers["authorization"] == f"Bearer {KEY}"


# --- the loopback server itself ------------------------------------------------------------


def _fetch(url: str, body: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, headers={"X-Probe": "1"}, method="POST" if body else "GET")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_loopback_routes_by_longest_prefix_then_handler_then_500(loopback):
    loopback.enqueue("/v1", json_response({"from": "v1"}))
    loopback.enqueue(MESSAGES, json_response({"from": "messages"}))
    loopback.set_handler("/search", lambda r: json_response({"echo": r.json()["query"]}))

    assert _fetch(loopback.url + "/v1/messages?beta=true", b'{"a": 1}') == (200, b'{"from": "messages"}')
    assert _fetch(loopback.url + "/v1/messages", b"{}") == (200, b'{"from": "v1"}')
    status, body = _fetch(loopback.url + "/v1/messages", b"{}")
    assert status == 500 and "nothing was scripted" in json.loads(body)["error"]["message"]
    assert _fetch(loopback.url + "/search", b'{"query": "q"}') == (200, b'{"echo": "q"}')

    first = loopback.requests_to(MESSAGES)[0]
    assert (first.method, first.path, first.query, first.json()) == ("POST", MESSAGES, "beta=true", {"a": 1})
    assert first.headers["x-probe"] == first.headers["X-Probe"] == "1"
    assert len(loopback.requests) == 4 and len(loopback.requests_to("/search")) == 1


def test_loopback_hold_delays_and_stop_does_not_hang():
    server = LoopbackServer().start()
    server.enqueue("/slow", ScriptedResponse(hold=0.3, chunks=[b"a", b"b"], delay=0.05))
    began = time.monotonic()
    assert _fetch(server.url + "/slow") == (200, b"ab")
    assert time.monotonic() - began >= 0.4
    server.enqueue("/slow", ScriptedResponse(hold=30))
    outcome: list[object] = []

    def fetch_held() -> None:
        try:
            outcome.append(_fetch(server.url + "/slow"))
        except OSError as exc:  # the server hung up: expected
            outcome.append(exc)

    waiter = threading.Thread(target=fetch_held, daemon=True)
    waiter.start()
    time.sleep(0.1)
    began = time.monotonic()
    server.stop()
    waiter.join(timeout=5)
    assert time.monotonic() - began < 2 and not waiter.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], OSError)



# --- shapes seen in real recordings of other projects, replayed exactly as the SDK reads them ---

def _start(content: list | None = None, stop_reason: str | None = None, **extra: Any) -> dict:
    return {"type": "message_start", "message": {
        "id": "msg_01Shape", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content or [], "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1}, **extra}}


def _delta(stop_reason: str, output_tokens: int = 9, **extra: Any) -> dict:
    return {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None, **extra},
            "usage": {"output_tokens": output_tokens}}


STOP = {"type": "message_stop"}
CITATION = {"type": "web_search_result_location", "cited_text": "Sunny, 24 °C.", "url": "https://weather.example/hk",
            "title": "Hong Kong weather", "encrypted_index": "EpcBCioI"}
SHAPES: dict[str, list[dict]] = {
    "whitespace_text_between_server_tools": [
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srvtoolu_01A", "name": "web_search", "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"query": "hk weather"}'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": " "}},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": "", "citations": None}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "citations_delta", "citation": CITATION}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "It is sunny."}},
        {"type": "content_block_stop", "index": 2},
        _delta("end_turn"), STOP,
    ],
    "compaction_block_with_delta": [
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": None}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": "Summary: the user asked about HK weather."}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Carrying on."}},
        {"type": "content_block_stop", "index": 1},
        _delta("end_turn"), STOP,
    ],
    "tool_input_whole_in_block_start": [
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_01Whole", "name": "calc", "input": {"x": 1, "y": [2, 3]}, "caller": {"type": "direct"}}},
        {"type": "content_block_stop", "index": 0},
        _delta("tool_use"), STOP,
    ],
    "content_and_stop_reason_in_message_start": [
        _start([{"type": "text", "text": "Let me add those."},
                {"type": "tool_use", "id": "toolu_01Start", "name": "calc", "input": {"x": 2}}], stop_reason="tool_use"),
        STOP,
    ],
    "refusal_with_stop_details": [
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_stop", "index": 0},
        _delta("refusal", stop_details={"type": "refusal", "category": "cyber", "explanation": "This looks like exploit development."}),
        STOP,
    ],
}


@pytest.mark.asyncio
@pytest.mark.parametrize("shape", sorted(SHAPES))
async def test_recorded_shapes_replay_like_the_sdk(loopback, shape, make_provider):
    chunks = anthropic_sse(SHAPES[shape])
    loopback.enqueue(MESSAGES, sse_response(chunks), sse_response(chunks))
    events = await collect(make_provider(loopback))
    final = await sdk_final_message(loopback.url)
    message = fold(events)
    assert message.status is MessageStatus.COMPLETED and message.stop_reason == final.stop_reason
    replayed = build_messages([message])
    assert (replayed[0]["content"] if replayed else []) == sdk_wire_content(final, events)
    for index, block in enumerate(final.content):
        if block.type not in OUR_BLOCK_TYPES:
            assert message.blocks[index] == RawBlock(data=block.to_dict())


@pytest.mark.asyncio
async def test_shapes_keep_what_the_issue_found_lost(loopback, make_provider):
    for shape in SHAPES.values():
        loopback.enqueue(MESSAGES, sse_response(anthropic_sse(shape)))
    provider = make_provider(loopback)
    spaced, compaction, whole, started, refused = [fold(await collect(provider)) for _ in range(len(SHAPES))]

    assert [b.text for b in spaced.blocks if hasattr(b, "text")] == [" ", "It is sunny."]  # kept, shown as is
    assert all(block.get("text") != " " for block in build_messages([spaced])[0]["content"])  # never sent back
    assert spaced.blocks[2].citations == [CITATION]
    assert compaction.blocks[0].data["content"] == "Summary: the user asked about HK weather."
    assert whole.tool_calls[0].arguments == {"x": 1, "y": [2, 3]}
    assert build_messages([whole])[0]["content"][0]["caller"] == {"type": "direct"}
    assert (started.text, started.stop_reason, started.tool_calls[0].arguments) == ("Let me add those.", "tool_use", {"x": 2})
    assert refused.stop_reason == "refusal"
    assert "declined" in refused.error and "cyber" in refused.error and "exploit development" in refused.error
