"""The real ChatCompletionsProvider and the openai SDK against a loopback server: corpus replays checked against
the SDK's own accumulator, request shape, faults, and the agent loop doing a tool round trip."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any, ClassVar

import httpx
import pytest
import pytest_asyncio
from pydantic import BaseModel

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.agent.loop import AgentLoop, RunOptions
from desktop_copilot.core.conversation.models import Message, MessageStatus, Role, ThinkingBlock, ToolCallBlock, ToolCallStatus, Usage
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.chat_completions_provider import ChatCompletionsProvider
from desktop_copilot.core.providers.chat_completions_wire import FINISH_REASONS
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.tools.base import PydanticTool, ToolContext
from tests.support.chat_completions_support import (
    CHAT,
    MODELS,
    chat_reply,
    chat_response,
    chat_sse,
    openai_error,
    sdk_snapshot,
)
from tests.support.loopback import CORPUS_DIR, LoopbackServer, corpus_chunks, json_response, sse_response

KEY = "sk-proj-test-9c4e2a7b1d5f3e8a6b0c"
CORPUS_FILES = sorted(p.name for p in CORPUS_DIR.glob("openai_*"))


@pytest_asyncio.fixture
async def make_provider():
    """Builds providers aimed at a server (no retries unless asked) and closes them afterwards."""
    made: list[ChatCompletionsProvider] = []

    def build(server: LoopbackServer | str, *, vendor: str = "openai", key: str | None = KEY, max_retries: int = 0,
              **kw: Any) -> ChatCompletionsProvider:
        url = server if isinstance(server, str) else server.url
        made.append(ChatCompletionsProvider(Secret(key) if key else None, url + "/v1", vendor=vendor,
                                            max_retries=max_retries, timeout=10.0, **kw))
        return made[-1]

    yield build
    for provider in made:
        await provider.aclose()


def make_request(**kw: Any) -> ProviderRequest:
    return ProviderRequest(**{"model": "gpt-test", "messages": [Message.user("hi")], "provider": "openai", **kw})


async def collect(provider: ChatCompletionsProvider, request: ProviderRequest | None = None) -> list[ev.Event]:
    return [e async for e in provider.stream(request or make_request())]


def fold(events: list[ev.Event]) -> Message:
    message = Message.assistant()
    for event in events:
        accumulate(message, event)
    return message


def assert_well_formed(events: list[ev.Event]) -> None:
    """Start first; blocks numbered 0, 1, … in order; every block's deltas between its start and its end; one
    terminal event, last."""
    assert isinstance(events[0], ev.Start)
    assert sum(isinstance(e, ev.Done | ev.Error) for e in events) == 1 and isinstance(events[-1], ev.Done | ev.Error)
    opened: list[int] = []
    closed: set[int] = set()
    for event in events:
        if isinstance(event, ev.TextStart | ev.ThinkingStart | ev.ToolCallStart):
            assert event.index == len(opened)
            opened.append(event.index)
        elif isinstance(event, ev.TextEnd | ev.ThinkingEnd | ev.ToolCallEnd):
            assert event.index in opened and event.index not in closed
            closed.add(event.index)
        elif isinstance(event, ev.TextDelta | ev.ThinkingDelta | ev.ToolCallDelta):
            assert event.index in opened and event.index not in closed
    if isinstance(events[-1], ev.Done):
        assert closed == set(opened)


# --- corpus replays against the SDK's accumulator ---------------------------------------------


def test_corpus_is_present():
    assert len(CORPUS_FILES) >= 8, f"Chat Completions corpus not found in {CORPUS_DIR}"


@pytest.mark.asyncio
@pytest.mark.parametrize("name", CORPUS_FILES)
async def test_corpus_replay_matches_sdk(loopback, name, make_provider):
    chunks = corpus_chunks(name)
    loopback.enqueue(CHAT, sse_response(chunks), sse_response(chunks))

    events = await collect(make_provider(loopback))
    snapshot, failure = await sdk_snapshot(loopback.url, KEY)

    assert_well_formed(events)
    message, choice = fold(events), snapshot.choices[0]
    sdk = choice.message
    assert message.text == (sdk.content or "")
    sdk_thinking = getattr(sdk, "reasoning_content", None) or getattr(sdk, "reasoning", None) or ""
    assert "".join(b.thinking for b in message.blocks if isinstance(b, ThinkingBlock)) == sdk_thinking
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        (t.id, t.function.name, json.loads(t.function.arguments or "{}")) for t in sdk.tool_calls or []
    ]
    assert (events[0].model, events[0].provider_message_id) == (snapshot.model, snapshot.id)
    if failure is None:
        assert message.status is MessageStatus.COMPLETED
        assert message.stop_reason == FINISH_REASONS[choice.finish_reason]
        usage = snapshot.usage
        assert message.usage == Usage(
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            cache_read_tokens=(usage.prompt_tokens_details.cached_tokens or 0) if usage.prompt_tokens_details else 0,
            reasoning_tokens=(usage.completion_tokens_details.reasoning_tokens or 0) if usage.completion_tokens_details else 0,
        )
    else:  # the Groq recording: an error object inside the 200 stream, after partial output
        assert choice.finish_reason is None
        assert events[-1].kind == "error" and events[-1].reason == "error" and failure.message in events[-1].message
        assert "mid-reply" in events[-1].message and "partial reply was kept" in events[-1].message
        assert message.status is MessageStatus.FAILED and message.text == "maybe" and sdk_thinking


@pytest.mark.asyncio
async def test_groq_error_file_ends_failed_with_the_partial_kept(loopback, make_provider):
    loopback.enqueue(CHAT, sse_response(corpus_chunks("openai_compat_groq_error_midstream_01.sse")))
    message = fold(await collect(make_provider(loopback, vendor="groq")))
    assert message.status is MessageStatus.FAILED and message.text == "maybe"
    assert message.error.startswith("The Groq API reported an error mid-reply (invalid_request_error: Tool choice is required")
    assert [b.type for b in message.blocks] == ["thinking", "text"] and message.blocks[0].thinking.startswith("The ")


@pytest.mark.asyncio
async def test_corpus_split_into_small_reads_gives_same_events(loopback, make_provider):
    name = "openai_chat_parallel_tool_calls_04.sse"
    loopback.enqueue(CHAT, sse_response(corpus_chunks(name)), sse_response(corpus_chunks(name, split_every=7)))
    provider = make_provider(loopback)
    assert await collect(provider) == await collect(provider)


# --- the request ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_request_carries_key_params_tools_and_deepseek_reasoning(loopback, make_provider):
    loopback.enqueue(CHAT, chat_response(chat_reply("ok")), chat_response(chat_reply("ok")))
    tool = ToolSpec("calc", "Calculate.", {"type": "object", "properties": {"x": {"type": "integer"}}})
    await collect(make_provider(loopback, extra_headers={"HTTP-Referer": "https://desktop-copilot.test"}),
                  make_request(system="Be brief.", max_tokens=900))
    earlier = Message(role=Role.ASSISTANT, provider="deepseek", blocks=[
        ThinkingBlock(thinking="Use calc."), ToolCallBlock(id="call_1", name="calc", arguments={"x": 1}, status=ToolCallStatus.DONE, result="1")])
    history = [Message.user("q"), earlier]
    await collect(make_provider(loopback, vendor="deepseek"), make_request(model="deepseek-reasoner", provider="deepseek",
                                                                          messages=history, tools=[tool], max_tokens=900))

    first, second = loopback.requests_to(CHAT)
    assert first.headers["authorization"] == f"Bearer {KEY}" and first.headers["http-referer"] == "https://desktop-copilot.test"
    assert first.json() == {
        "model": "gpt-test", "stream": True, "stream_options": {"include_usage": True}, "max_completion_tokens": 900,
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
    }
    body = second.json()
    assert body["max_tokens"] == 900 and "max_completion_tokens" not in body
    assert body["tools"] == [{"type": "function", "function": {"name": "calc", "description": "Calculate.", "parameters": tool.input_schema}}]
    assert body["messages"][1] == {"role": "assistant", "content": None, "reasoning_content": "Use calc.",
                                   "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "calc", "arguments": '{"x": 1}'}}]}
    assert body["messages"][2] == {"role": "tool", "tool_call_id": "call_1", "content": "1"}


@pytest.mark.asyncio
async def test_without_a_key_no_authorization_is_sent_not_even_the_environments(loopback, make_provider, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-0000")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-should-not-leak")
    loopback.enqueue(CHAT, chat_response(chat_reply("local")))
    loopback.enqueue(MODELS, json_response({"object": "list", "data": [{"id": "llama3", "object": "model", "created": 0, "owned_by": "me"}]}))
    provider = make_provider(loopback, vendor="lmstudio", key=None)
    assert fold(await collect(provider)).text == "local"
    assert await provider.list_models() == ["llama3"]
    for request in loopback.requests:
        assert "authorization" not in request.headers and "openai-organization" not in request.headers


@pytest.mark.asyncio
async def test_list_models(loopback, make_provider):
    models = [{"id": f"gpt-{n}", "object": "model", "created": 1700000000, "owned_by": "openai"} for n in ("a", "b")]
    loopback.enqueue(MODELS, json_response({"object": "list", "data": models}))
    assert await make_provider(loopback).list_models() == ["gpt-a", "gpt-b"]
    (request,) = loopback.requests_to(MODELS)
    assert request.method == "GET" and request.headers["authorization"] == f"Bearer {KEY}"


def test_key_never_in_repr_and_sdk_not_imported_with_the_module():
    provider = ChatCompletionsProvider(Secret(KEY), "https://api.deepseek.com", vendor="deepseek")
    assert KEY not in repr(provider) and KEY[-4:] in repr(provider) and "deepseek" in repr(provider)
    check = ("import sys, desktop_copilot.core.providers.chat_completions_provider, desktop_copilot.core.providers.chat_completions_wire;"
             "print('openai' in sys.modules, 'httpx2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


# --- faults -----------------------------------------------------------------------------------

PARTIAL = chat_sse(chat_reply("Hello there, world", pieces=3)[:3], done=False)  # role chunk + 2 of 3 text pieces


@pytest.mark.asyncio
async def test_401_in_words_with_the_key_redacted_and_not_retried(loopback, make_provider):
    loopback.set_handler(CHAT, lambda r: openai_error(401, f"Incorrect API key provided: {r.headers['authorization'][7:]}",
                                                      code="invalid_api_key"))
    events = await collect(make_provider(loopback, vendor="deepseek", max_retries=2))
    assert [e.kind for e in events] == ["error"]
    error = events[0]
    assert error.reason == "error" and error.status_code == 401
    assert "DeepSeek" in error.message and "rejected the key" in error.message and "Incorrect API key provided" in error.message
    assert KEY not in error.message and KEY[-4:] in error.message
    assert len(loopback.requests_to(CHAT)) == 1


@pytest.mark.asyncio
async def test_429_with_retry_after_is_retried_then_succeeds(loopback, make_provider):
    loopback.enqueue(CHAT, openai_error(429, "Rate limit reached", "requests", headers={"retry-after": "1"}),
                     chat_response(chat_reply("after the wait")))
    began = time.monotonic()
    events = await collect(make_provider(loopback, max_retries=1))
    assert events[-1] == ev.Done(reason="end_turn")
    assert fold(events).text == "after the wait" and len(loopback.requests_to(CHAT)) == 2
    assert 0.9 <= time.monotonic() - began < 5


@pytest.mark.asyncio
async def test_429_without_retries_left_is_in_words(loopback, make_provider):
    loopback.enqueue(CHAT, openai_error(429, "You exceeded your current quota", "insufficient_quota", code="insufficient_quota"))
    (error,) = await collect(make_provider(loopback))
    assert error.status_code == 429 and "OpenAI account has run out of quota" in error.message


@pytest.mark.asyncio
async def test_connection_dropped_mid_stream_is_interrupted_with_the_partial_kept(loopback, make_provider):
    loopback.enqueue(CHAT, sse_response(PARTIAL, drop=True))
    events = await collect(make_provider(loopback))
    assert events[-1].kind == "error" and events[-1].reason == "interrupted" and "partial reply was kept" in events[-1].message
    message = fold(events)
    assert message.text == "Hello there," and message.status is MessageStatus.INTERRUPTED


@pytest.mark.asyncio
async def test_clean_end_without_finish_reason_is_interrupted(loopback, make_provider):
    loopback.enqueue(CHAT, chat_response(chat_reply("complete text")[:-2]))  # [DONE] came, no finish_reason
    events = await collect(make_provider(loopback))
    assert events[-1].reason == "interrupted" and fold(events).text == "complete text"


@pytest.mark.asyncio
async def test_drop_after_the_finish_reason_still_completes(loopback, make_provider):
    loopback.enqueue(CHAT, chat_response(chat_reply("all said")[:-1], done=False, drop=True))
    events = await collect(make_provider(loopback))
    assert events[-1] == ev.Done(reason="end_turn") and fold(events).status is MessageStatus.COMPLETED


@pytest.mark.asyncio
async def test_malformed_json_chunk_is_an_error_event_not_an_exception(loopback, make_provider):
    loopback.enqueue(CHAT, sse_response([*PARTIAL, b'data: {"id": "chatcmpl-x", "choices": [\n\n']))
    events = await collect(make_provider(loopback))
    assert events[-1].kind == "error" and events[-1].reason == "error" and "not JSON" in events[-1].message
    assert fold(events).text == "Hello there,"


@pytest.mark.asyncio
async def test_error_object_before_any_output(loopback, make_provider):
    loopback.enqueue(CHAT, sse_response([b'data: {"error": {"message": "model overloaded", "type": "server_error"}}\n\n']))
    (error,) = await collect(make_provider(loopback, vendor="openrouter"))
    assert error.reason == "error" and error.message == "The OpenRouter API reported an error (server_error: model overloaded)."


@pytest.mark.asyncio
async def test_unreachable_server_is_an_error_not_an_exception(make_provider):
    with LoopbackServer() as server:
        url = server.url
    (error,) = await collect(make_provider(url, vendor="moonshot"))
    assert error.reason == "error" and url in error.message and "Moonshot" in error.message


@pytest.mark.asyncio
async def test_content_filter_is_a_refusal_in_words(loopback, make_provider):
    """Built stream: no recording of a content_filter finish exists in the corpus."""
    loopback.enqueue(CHAT, chat_response(chat_reply("I can", finish_reason="content_filter")))
    message = fold(await collect(make_provider(loopback)))
    assert message.stop_reason == "refusal" and message.error == "The provider's content filter stopped this reply."


@pytest.mark.asyncio
async def test_deepseek_thinking_then_tool_call_stream(loopback, make_provider):
    """Built stream in DeepSeek's shape (reasoning_content deltas, then a call; cache hits in the usage)."""
    usage = {"prompt_tokens": 50, "completion_tokens": 20, "prompt_cache_hit_tokens": 32, "prompt_cache_miss_tokens": 18,
             "completion_tokens_details": {"reasoning_tokens": 12}}
    loopback.enqueue(CHAT, chat_response(chat_reply(reasoning="Need the date.", calls=[("call_00_abc", "get_date", {})], usage=usage,
                                                    model="deepseek-reasoner")))
    message = fold(await collect(make_provider(loopback, vendor="deepseek")))
    assert [b.type for b in message.blocks] == ["thinking", "tool_call"]
    assert message.blocks[0].thinking == "Need the date." and message.tool_calls[0].id == "call_00_abc"
    assert message.usage == Usage(input_tokens=50, output_tokens=20, cache_read_tokens=32, reasoning_tokens=12)


# --- the whole loop ---------------------------------------------------------------------------


class PairArgs(BaseModel):
    a: int
    b: int


class AddTool(PydanticTool):
    name: ClassVar[str] = "add"
    description: ClassVar[str] = "Add two numbers."
    arguments: ClassVar[type[BaseModel]] = PairArgs

    async def run(self, args: PairArgs, ctx: ToolContext) -> str:
        return str(args.a + args.b)


class MultiplyTool(AddTool):
    name: ClassVar[str] = "multiply"
    description: ClassVar[str] = "Multiply two numbers."

    async def run(self, args: PairArgs, ctx: ToolContext) -> str:
        return str(args.a * args.b)


@pytest.mark.asyncio
async def test_agent_loop_tool_round_trip_with_parallel_calls(loopback, make_provider):
    loopback.enqueue(CHAT, sse_response(corpus_chunks("openai_chat_parallel_tool_calls_02.sse")),
                     sse_response(corpus_chunks("openai_chat_parallel_tool_calls_02_turn2.sse")))
    events: list[ev.Event] = []
    history = [Message.user("Add and multiply 2 and 3.")]
    async with httpx.AsyncClient() as http:
        loop = AgentLoop(make_provider(loopback), [AddTool(), MultiplyTool()], ToolContext(keys={}, http=http, endpoints={}),
                         RunOptions(model="gpt-4o-mini", provider="openai", system="Use the tools."), events.append)
        finished = await loop.run(history)

    assert finished.outcome == "completed"
    assert history[-1].text == "The sum of 2 and 3 is 5, and the product of 2 and 3 is 6."
    first, second = (r.json() for r in loopback.requests_to(CHAT))
    assert [t["function"]["name"] for t in first["tools"]] == ["add", "multiply"]
    assert second["messages"] == [
        {"role": "system", "content": "Use the tools."},
        {"role": "user", "content": "Add and multiply 2 and 3."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_cclGbjTQkZDEnnHrRiU0n7NO", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}},
            {"id": "call_Nob2SzTcxIjro1HvSBPQS6XG", "type": "function", "function": {"name": "multiply", "arguments": '{"a": 2, "b": 3}'}},
        ]},
        {"role": "tool", "tool_call_id": "call_cclGbjTQkZDEnnHrRiU0n7NO", "content": "5"},
        {"role": "tool", "tool_call_id": "call_Nob2SzTcxIjro1HvSBPQS6XG", "content": "6"},
    ]
    assert [h.provider for h in history[1:]] == ["openai", "openai"]


@pytest.mark.parametrize("words, refusal", [
    ("tools param requires --jinja flag", True),
    ('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', True),
    ("registry.ollama.ai/library/gemma3:1b does not support tools", True),
    ("No endpoints found that support tool use.", True),
    ("messages with role 'tool' must be a response to a preceeding message with 'tool_calls'", False),
    ("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'", False),
    ("Invalid 'tools[0].function.name': string does not match pattern", False),
])
def test_only_a_refusal_of_tools_sends_them_as_text(words, refusal):
    """An error about the tools or the history sent is no refusal: the model is not marked a text-tools model."""
    from desktop_copilot.core.providers.chat_completions_provider import refuses_tools
    from desktop_copilot.core.providers.streaming import HttpFailure

    request = make_request(tools=[ToolSpec("calc", "Add.", {"type": "object", "properties": {}})])
    assert refuses_tools(request, HttpFailure(400, {}, {"error": {"message": words, "type": "invalid_request_error"}})) is refusal
