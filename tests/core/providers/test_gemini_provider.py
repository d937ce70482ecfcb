"""The real GeminiProvider (httpx) against a loopback server: every recorded Gemini stream replayed and checked
against a plain reading of its chunks, the request on the wire, faults, and an agent-loop tool round trip."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from typing import Any, ClassVar

import httpx
import pytest
import pytest_asyncio
from pydantic import BaseModel

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.agent.loop import AgentLoop, RunOptions
from desktop_copilot.core.conversation.models import Message, MessageStatus, ToolCallStatus, Usage
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.gemini_provider import GeminiAPIError, GeminiProvider
from desktop_copilot.core.providers.gemini_wire import build_body
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.tools.base import PydanticTool, ToolContext
from tests.support.gemini_support import (
    MODEL,
    MODELS,
    STREAM,
    chunk,
    corpus_response,
    gemini_error,
    gemini_sse,
    read_reply,
    recorded_chunks,
    text_reply,
    usage,
)
from tests.support.loopback import CORPUS_DIR, LoopbackServer, ScriptedResponse, json_response

KEY = "AIzaSyLoopbackTestKey0123456789abcdef"
CORPUS_FILES = sorted(p.name for p in CORPUS_DIR.glob("gemini_*"))
PAIRS = {"text_start": "text_end", "thinking_start": "thinking_end", "toolcall_start": "toolcall_end"}


@pytest_asyncio.fixture
async def make_provider():
    made: list[GeminiProvider] = []

    def build(server: LoopbackServer | str, max_retries: int = 0) -> GeminiProvider:
        url = server if isinstance(server, str) else server.url
        made.append(GeminiProvider(Secret(KEY), url, max_retries=max_retries, timeout=10.0))
        return made[-1]

    yield build
    for provider in made:
        await provider.aclose()


def make_request(**kw: Any) -> ProviderRequest:
    return ProviderRequest(**{"model": MODEL, "messages": [Message.user("hi")], "provider": "gemini", **kw})


async def collect(provider: GeminiProvider, request: ProviderRequest | None = None) -> list[ev.Event]:
    return [e async for e in provider.stream(request or make_request())]


def fold(events: list[ev.Event]) -> Message:
    message = Message.assistant(MODEL, "gemini")
    for event in events:
        accumulate(message, event)
    return message


def snapshot(message: Message) -> dict[str, Any]:
    """The message without what differs between two runs (ids, clocks)."""
    data = message.model_dump(exclude={"id", "created_at"})
    for block in data["blocks"]:
        block.pop("started_at", None), block.pop("ended_at", None)
    return data


def assert_well_formed(events: list[ev.Event]) -> None:
    """One start first; every block start has its end at the same index; nothing after the terminal event."""
    assert events[0].kind == "start" and sum(e.kind == "start" for e in events) == 1
    terminal = [i for i, e in enumerate(events) if e.kind in ("done", "error")]
    assert terminal == [len(events) - 1]
    for i, event in enumerate(events):
        if event.kind in PAIRS:
            ends = [e for e in events[i + 1:] if e.kind == PAIRS[event.kind] and e.index == event.index]
            assert ends, f"{event.kind} at {event.index} never ended"


# --- corpus replay ---------------------------------------------------------------------------


def test_corpus_is_present():
    assert len(CORPUS_FILES) >= 5, f"Gemini corpus not found in {CORPUS_DIR}"


@pytest.mark.asyncio
@pytest.mark.parametrize("name", CORPUS_FILES)
async def test_corpus_replay_matches_a_plain_reading(loopback, name, make_provider):
    loopback.enqueue(STREAM, corpus_response(name), corpus_response(name, split_every=7))
    provider = make_provider(loopback)
    events = await collect(provider)
    split = await collect(provider)  # CRLFs and JSON cut anywhere by the transport
    reading = read_reply(recorded_chunks(name))

    assert_well_formed(events)
    assert [(e.kind, getattr(e, "index", None)) for e in split] == [(e.kind, getattr(e, "index", None)) for e in events]
    message = fold(events)
    assert snapshot(fold(split)) == snapshot(message)
    assert message.status is MessageStatus.COMPLETED and reading.finish == "STOP"
    assert message.stop_reason == ("tool_use" if reading.calls else "end_turn")
    assert message.text == reading.text
    assert "".join(b.thinking for b in message.blocks if b.type == "thinking") == reading.thinking
    calls = message.tool_calls
    assert [(c.name, c.arguments) for c in calls] == [(r.name, r.args) for r in reading.calls]
    assert [c.provider_fields.get("thoughtSignature", "") for c in calls] == [r.signature for r in reading.calls]
    for call, read in zip(calls, reading.calls):
        assert call.id == read.id if read.id else re.fullmatch(r"call_[0-9a-f]{24}", call.id)
    assert len({c.id for c in calls}) == len(calls)
    assert [c.id for c in fold(split).tool_calls] == [c.id for c in calls]  # stable across replays
    thoughts = reading.usage.get("thoughtsTokenCount", 0)
    assert message.usage == Usage(input_tokens=reading.usage["promptTokenCount"],
                                  output_tokens=reading.usage["candidatesTokenCount"] + thoughts, reasoning_tokens=thoughts)
    assert (events[0].model, events[0].provider_message_id) == (reading.model, reading.response_id)
    assert message.model == reading.model


@pytest.mark.asyncio
@pytest.mark.parametrize("name", CORPUS_FILES)
async def test_corpus_calls_go_back_as_the_parts_they_came_in(loopback, name, make_provider):
    """The next request carries each complete recorded functionCall part as it was (name, args, id, signature)."""
    loopback.enqueue(STREAM, corpus_response(name))
    message = fold(await collect(make_provider(loopback)))
    for call in message.tool_calls:
        call.finish(ToolCallStatus.DONE, "5", is_error=False)
    body = build_body(make_request(messages=[Message.user("hi"), message]))
    whole = [p for c in recorded_chunks(name) for p in c["candidates"][0]["content"]["parts"]
             if "name" in p.get("functionCall", {}) and not p["functionCall"].get("willContinue")]
    recorded = [{**p, "functionCall": {"args": {}, **p["functionCall"]}} for p in whole]  # no "args": none
    sent = [p for p in body["contents"][1]["parts"] if "functionCall" in p]
    assert recorded and sent[:len(recorded)] == recorded
    assert [p["functionResponse"]["name"] for p in body["contents"][2]["parts"]] == [c.name for c in message.tool_calls]


# --- the request on the wire -----------------------------------------------------------------


@pytest.mark.asyncio
async def test_request_path_key_header_and_body(loopback, make_provider):
    loopback.enqueue(STREAM, gemini_sse(text_reply("ok")), gemini_sse(text_reply("ok")))
    provider = make_provider(loopback)
    await collect(provider, make_request(system="Be brief.", thinking_budget=2048, max_tokens=1000))
    tool = ToolSpec("web_search", "Search the web.", {"type": "object", "title": "Args", "additionalProperties": False,
                                                       "properties": {"q": {"type": "string", "title": "Q"}}, "required": ["q"]})
    await collect(provider, make_request(tools=[tool]))

    first, second = loopback.requests_to(STREAM)
    assert (first.method, first.path, first.query) == ("POST", STREAM, "alt=sse")
    assert first.headers["x-goog-api-key"] == KEY
    assert "authorization" not in first.headers and KEY not in first.path + first.query
    body = first.json()
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["generationConfig"] == {"maxOutputTokens": 2048 + 4096,
                                        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 2048}}
    assert "tools" not in body
    assert second.json()["tools"] == [{"functionDeclarations": [{
        "name": "web_search", "description": "Search the web.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]}]
    assert "thinkingConfig" not in second.json()["generationConfig"]


@pytest.mark.asyncio
async def test_base_url_with_version_and_models_prefix(loopback, make_provider):
    loopback.enqueue(STREAM, gemini_sse(text_reply("ok")))
    provider = make_provider(loopback.url + "/v1beta/")
    events = await collect(provider, ProviderRequest(model=f"models/{MODEL}", messages=[Message.user("hi")], provider="gemini"))
    assert events[-1] == ev.Done(reason="end_turn")
    assert loopback.requests[0].path == STREAM


# --- faults ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_401_rejected_key_in_words_redacted_and_not_retried(loopback, make_provider, caplog):
    caplog.set_level(logging.DEBUG)

    def echo_key(request) -> ScriptedResponse:  # a proxy that repeats what it was sent
        return gemini_error(401, f"bad credentials: {request.headers['x-goog-api-key']}", "UNAUTHENTICATED")

    loopback.set_handler(STREAM, echo_key)
    provider = make_provider(loopback, max_retries=2)
    assert KEY not in repr(provider) and KEY[-4:] in repr(provider)
    events = await collect(provider)
    assert [e.kind for e in events] == ["error"]
    error = events[0]
    assert error.status_code == 401 and error.reason == "error"
    assert "Gemini rejected the key" in error.message and "bad credentials" in error.message
    assert KEY not in error.message and KEY[-4:] in error.message
    assert len(loopback.requests_to(STREAM)) == 1
    assert all(KEY not in r.path + r.query for r in loopback.requests)
    assert "gemini request: model=gemini-test status=401" in caplog.text and KEY not in caplog.text


@pytest.mark.asyncio
async def test_invalid_key_400_is_named_as_the_key(loopback, make_provider):
    details = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]
    loopback.enqueue(STREAM, gemini_error(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT", details=details))
    (error,) = await collect(make_provider(loopback, max_retries=2))
    assert error.status_code == 400 and "rejected the key" in error.message and "API key not valid" in error.message


@pytest.mark.asyncio
async def test_400_reports_gemini_message(loopback, make_provider):
    detail = "Please ensure that function response turn comes immediately after a function call turn."
    loopback.enqueue(STREAM, gemini_error(400, detail, "INVALID_ARGUMENT"))
    (error,) = await collect(make_provider(loopback, max_retries=2))
    assert error.status_code == 400 and detail in error.message and "Gemini refused the request" in error.message


@pytest.mark.asyncio
async def test_429_with_retry_after_is_retried_then_succeeds(loopback, make_provider):
    loopback.enqueue(STREAM, gemini_error(429, "Resource has been exhausted", "RESOURCE_EXHAUSTED", headers={"retry-after": "1"}),
                     gemini_sse(text_reply("after ", "the wait")))
    began = time.monotonic()
    events = await collect(make_provider(loopback, max_retries=2))
    elapsed = time.monotonic() - began
    assert events[-1] == ev.Done(reason="end_turn") and fold(events).text == "after the wait"
    assert len(loopback.requests_to(STREAM)) == 2
    assert 0.9 <= elapsed < 5


@pytest.mark.asyncio
async def test_503_honours_google_retry_info(loopback, make_provider):
    retry = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.3s"}]
    loopback.enqueue(STREAM, gemini_error(503, "The model is overloaded.", "UNAVAILABLE", details=retry),
                     gemini_sse(text_reply("fine")))
    began = time.monotonic()
    events = await collect(make_provider(loopback, max_retries=1))
    assert events[-1] == ev.Done(reason="end_turn") and time.monotonic() - began >= 0.25


@pytest.mark.asyncio
async def test_long_retry_wait_and_last_try_are_reported_not_slept(loopback, make_provider):
    quota = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "120s"}]
    loopback.enqueue(STREAM, gemini_error(429, "Quota exceeded for metric generate_content_free_tier_requests", "RESOURCE_EXHAUSTED",
                                          details=quota))
    began = time.monotonic()
    (error,) = await collect(make_provider(loopback, max_retries=3))
    assert time.monotonic() - began < 2
    assert error.status_code == 429 and "Rate limited by Gemini" in error.message and "wait 120 s" in error.message
    loopback.enqueue(STREAM, gemini_error(500, "Internal error", "INTERNAL"))
    (error,) = await collect(make_provider(loopback, max_retries=0))
    assert error.status_code == 500 and "Gemini is overloaded or failing" in error.message


@pytest.mark.asyncio
async def test_dropped_connection_is_interrupted_with_the_partial_kept(loopback, make_provider):
    loopback.enqueue(STREAM, gemini_sse([chunk({"text": "Hello "}), chunk({"text": "there,"})], drop=True))
    events = await collect(make_provider(loopback))
    assert events[-1].kind == "error" and events[-1].reason == "interrupted"
    assert "partial reply was kept" in events[-1].message and sum(e.kind == "error" for e in events) == 1
    message = fold(events)
    assert message.text == "Hello there," and message.status is MessageStatus.INTERRUPTED


@pytest.mark.asyncio
async def test_clean_end_without_finish_reason_is_interrupted(loopback, make_provider):
    loopback.enqueue(STREAM, gemini_sse([chunk({"text": "Half an ans"})]))
    events = await collect(make_provider(loopback))
    assert [e.kind for e in events] == ["start", "text_start", "text_delta", "text_end", "error"]
    assert events[-1].reason == "interrupted" and fold(events).text == "Half an ans"


@pytest.mark.asyncio
async def test_malformed_json_line_is_an_error_with_the_partial_kept(loopback, make_provider):
    chunks = [f"data: {json.dumps(chunk({'text': 'Good so far'}))}\r\n\r\n".encode(), b'data: {"candidates": [{"conte\r\n\r\n',
              f"data: {json.dumps(chunk({'text': 'never read'}, finish='STOP'))}\r\n\r\n".encode()]
    loopback.enqueue(STREAM, ScriptedResponse(headers={"content-type": "text/event-stream"}, chunks=chunks))
    events = await collect(make_provider(loopback))
    assert events[-1].kind == "error" and events[-1].reason == "error"
    assert "not a JSON object" in events[-1].message and "partial reply was kept" in events[-1].message
    assert fold(events).text == "Good so far" and fold(events).status is MessageStatus.FAILED


@pytest.mark.asyncio
async def test_error_written_into_the_stream(loopback, make_provider):
    """Built stream: no public recording of a Gemini mid-stream error exists (SOURCES.md, Known gaps)."""
    error_lines = json.dumps({"error": {"code": 503, "message": f"overloaded {KEY}", "status": "UNAVAILABLE"}}, indent=2)
    chunks = [f"data: {json.dumps(chunk({'text': 'Partial'}))}\r\n\r\n".encode(), error_lines.encode() + b"\n"]
    loopback.enqueue(STREAM, ScriptedResponse(headers={"content-type": "text/event-stream"}, chunks=chunks))
    events = await collect(make_provider(loopback))
    assert events[-1].kind == "error" and events[-1].status_code == 503
    assert "mid-reply" in events[-1].message and "UNAVAILABLE" in events[-1].message and KEY not in events[-1].message
    assert fold(events).text == "Partial"


@pytest.mark.asyncio
async def test_finish_reasons_in_words(loopback, make_provider):
    """Built streams: the corpus has no MAX_TOKENS, SAFETY or MALFORMED_FUNCTION_CALL recording (SOURCES.md)."""
    loopback.enqueue(
        STREAM,
        gemini_sse(text_reply("cut off mi", finish="MAX_TOKENS")),
        gemini_sse([chunk(finish="SAFETY", usage=usage())]),
        gemini_sse([chunk(finish="MALFORMED_FUNCTION_CALL", finishMessage="Malformed function call: print(default_api.x(")]),
        gemini_sse([{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": usage(candidates=0),
                     "modelVersion": MODEL, "responseId": "r"}]),
    )
    provider = make_provider(loopback)
    cut, unsafe, malformed, blocked = [fold(await collect(provider)) for _ in range(4)]
    assert (cut.status, cut.stop_reason, cut.text) == (MessageStatus.COMPLETED, "max_tokens", "cut off mi")
    assert unsafe.stop_reason == "refusal" and "declined" in unsafe.error and "safety" in unsafe.error
    assert malformed.status is MessageStatus.FAILED
    assert malformed.error.startswith("Gemini produced a malformed function call") and "print(default_api" in malformed.error
    assert blocked.stop_reason == "refusal" and "request was blocked" in blocked.error and "prohibited" in blocked.error


@pytest.mark.asyncio
async def test_unreachable_server_is_an_error_not_an_exception(make_provider):
    with LoopbackServer() as server:
        url = server.url
    events = await collect(make_provider(url))
    assert [e.kind for e in events] == ["error"] and url in events[0].message and "Could not reach Gemini" in events[0].message


@pytest.mark.asyncio
async def test_an_unreachable_server_asked_again_still_ends_as_an_error_in_words(make_provider):
    with LoopbackServer() as server:  # closed at once: every try is refused
        url = server.url
    events = await collect(make_provider(url, max_retries=1))
    assert [e.kind for e in events] == ["error"] and "Could not reach Gemini" in events[0].message


@pytest.mark.asyncio
async def test_cancellation_propagates(loopback, make_provider):
    loopback.enqueue(STREAM, gemini_sse([chunk({"text": "slow"}), chunk({"text": " reply"}, finish="STOP")], delay=0.5))
    seen: list[ev.Event] = []

    async def consume() -> None:
        async for event in make_provider(loopback).stream(make_request()):
            seen.append(event)

    task = asyncio.create_task(consume())
    while not any(e.kind == "text_delta" for e in seen):
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [e.kind for e in seen] == ["start", "text_start", "text_delta"]


# --- models list -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_list_models_pages_and_keeps_generators(loopback, make_provider):
    def page(names: list[tuple[str, list[str]]], token: str | None) -> ScriptedResponse:
        models = [{"name": f"models/{n}", "supportedGenerationMethods": m} for n, m in names]
        return json_response({"models": models, **({"nextPageToken": token} if token else {})})

    loopback.enqueue(MODELS,
                     page([("gemini-2.5-flash", ["generateContent", "countTokens"]), ("text-embedding-004", ["embedContent"])], "p2"),
                     page([("gemini-3-pro-preview", ["generateContent"])], None))
    assert await make_provider(loopback).list_models() == ["gemini-2.5-flash", "gemini-3-pro-preview"]
    first, second = loopback.requests_to(MODELS)
    assert first.method == "GET" and first.path == MODELS and first.headers["x-goog-api-key"] == KEY
    assert "pageToken" not in first.query and "pageToken=p2" in second.query and KEY not in first.query + second.query


@pytest.mark.asyncio
async def test_list_models_error_in_words(loopback, make_provider):
    loopback.enqueue(MODELS, gemini_error(403, f"Permission denied for {KEY}", "PERMISSION_DENIED"))
    with pytest.raises(GeminiAPIError) as caught:
        await make_provider(loopback).list_models()
    assert caught.value.status_code == 403 and "rejected the key" in str(caught.value) and KEY not in str(caught.value)


@pytest.mark.asyncio
async def test_a_model_list_that_is_not_json_is_said_in_words(loopback, make_provider):
    loopback.enqueue(MODELS, ScriptedResponse(headers={"content-type": "text/html"}, chunks=[b"<html><body>Sign in</body></html>"]))
    with pytest.raises(GeminiAPIError) as caught:
        await make_provider(loopback).list_models()
    words = str(caught.value)
    assert words.startswith("Gemini answered") and "not JSON" in words and "<html>" in words and KEY not in words
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


# --- the agent loop --------------------------------------------------------------------------


class PairArgs(BaseModel):
    a: int
    b: int


class AddTool(PydanticTool):
    name: ClassVar[str] = "add"
    description: ClassVar[str] = "Add two integers."
    arguments: ClassVar[type[BaseModel]] = PairArgs

    async def run(self, args: PairArgs, ctx: ToolContext) -> str:
        await asyncio.sleep(0.05)  # finishes after multiply: results still go back in call order
        return str(args.a + args.b)


class MultiplyTool(PydanticTool):
    name: ClassVar[str] = "multiply"
    description: ClassVar[str] = "Multiply two integers."
    arguments: ClassVar[type[BaseModel]] = PairArgs

    async def run(self, args: PairArgs, ctx: ToolContext) -> str:
        return str(args.a * args.b)


@pytest.mark.asyncio
async def test_agent_loop_tool_round_trip(loopback, make_provider):
    name = "gemini_stream_parallel_function_calls_01.sse"
    loopback.enqueue(STREAM, corpus_response(name), gemini_sse(text_reply("2 + 3 = 5 and ", "2 × 3 = 6.")))
    events: list[ev.Event] = []
    history = [Message.user("Add 2 and 3, and multiply 2 by 3.")]
    async with httpx.AsyncClient() as http:
        loop = AgentLoop(make_provider(loopback), [AddTool(), MultiplyTool()], ToolContext(keys={}, http=http, endpoints={}),
                         RunOptions(model=MODEL, provider="gemini"), events.append)
        finished = await loop.run(history)

    assert finished.outcome == "completed" and history[-1].text == "2 + 3 = 5 and 2 × 3 = 6."
    first, second = (r.json() for r in loopback.requests_to(STREAM))
    assert [d["name"] for d in first["tools"][0]["functionDeclarations"]] == ["add", "multiply"]
    recorded = recorded_chunks(name)[0]["candidates"][0]["content"]["parts"]
    user, model, responses = second["contents"]
    assert user == {"role": "user", "parts": [{"text": "Add 2 and 3, and multiply 2 by 3."}]}
    assert model == {"role": "model", "parts": recorded}  # both calls, the signature on the first as it came
    assert responses == {"role": "user", "parts": [
        {"functionResponse": {"name": "add", "response": {"result": "5"}}},
        {"functionResponse": {"name": "multiply", "response": {"result": "6"}}},
    ]}
    statuses = [(e.name, e.status) for e in events if isinstance(e, ev.ToolStatus) and e.status.finished]
    assert sorted(statuses) == [("add", ToolCallStatus.DONE), ("multiply", ToolCallStatus.DONE)]
