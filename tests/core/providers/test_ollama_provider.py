"""The real OllamaProvider (httpx) against a loopback server: corpus replays, faults, the fallback to
prompt-protocol tools, and agent-loop tool round trips."""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import httpx
import pytest
import pytest_asyncio
from pydantic import BaseModel

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.agent.loop import AgentLoop, RunOptions
from desktop_copilot.core.conversation.models import Message, MessageStatus, TextBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.ollama_provider import OllamaProvider
from desktop_copilot.core.providers.streaming import ProviderError
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.tools.base import PydanticTool, ToolContext
from tests.support.loopback import LoopbackServer, ScriptedResponse, corpus_chunks, json_response
from tests.support.ollama_support import (
    CHAT,
    corpus_lines,
    done_line,
    ndjson_response,
    ollama_error,
    read_lines,
    text_lines,
    text_reply,
)

KEY = "ollama-cloud-key-3b9a7d4e2f8c6b01"
CORPUS_FILES = ["ollama_chat_multiple_tool_calls_01.ndjson", "ollama_chat_text_01.ndjson"]
SEARCH = ToolSpec("web_search", "Search the web.", {"type": "object", "properties": {"query": {"type": "string"}}})
NO_TOOLS = 'registry.ollama.ai/library/gemma3:1b does not support tools'


@pytest_asyncio.fixture
async def make_provider():
    made: list[OllamaProvider] = []

    def build(server: LoopbackServer | str, **kw: Any) -> OllamaProvider:
        made.append(OllamaProvider(server if isinstance(server, str) else server.url, timeout=10.0, **kw))
        return made[-1]

    yield build
    for provider in made:
        await provider.aclose()


def make_request(**kw: Any) -> ProviderRequest:
    kw.setdefault("model", "llama3.2")
    return ProviderRequest(messages=[Message.user("hi")], provider="ollama", **kw)


async def collect(provider: OllamaProvider, request: ProviderRequest | None = None) -> list[ev.Event]:
    return [e async for e in provider.stream(request or make_request())]


def fold(events: list[ev.Event]) -> Message:
    message = Message.assistant(provider="ollama")
    for event in events:
        accumulate(message, event)
    return message


def balanced(events: list[ev.Event]) -> bool:
    """Every *_start has its *_end, at the same index."""
    opened = [(e.kind.split("_")[0], e.index) for e in events if e.kind.endswith("_start")]
    closed = [(e.kind.split("_")[0], e.index) for e in events if e.kind.endswith("_end")]
    return sorted(opened) == sorted(closed)


# --- corpus replay ---------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("name", CORPUS_FILES)
async def test_corpus_replay_matches_an_independent_reading(loopback, make_provider, name):
    loopback.enqueue(CHAT, ndjson_response(corpus_chunks(name)))
    events = await collect(make_provider(loopback))
    expected = read_lines(corpus_lines(name))

    message = fold(events)
    assert isinstance(events[0], ev.Start) and events[0].model == expected.model
    assert message.status is MessageStatus.COMPLETED and events[-1] == ev.Done(reason=expected.stop_reason)
    assert message.text == expected.text
    assert [(c.name, c.arguments) for c in message.tool_calls] == expected.calls
    assert (message.usage.input_tokens, message.usage.output_tokens) == (expected.input_tokens, expected.output_tokens)
    assert balanced(events)


@pytest.mark.asyncio
async def test_corpus_values_read_by_hand(loopback, make_provider):
    """The reading above, pinned to what the two files say."""
    loopback.enqueue(CHAT, ndjson_response(corpus_chunks(CORPUS_FILES[0])), ndjson_response(corpus_chunks(CORPUS_FILES[1])))
    provider = make_provider(loopback)
    calls, text = fold(await collect(provider)), fold(await collect(provider))
    assert [(c.name, c.arguments) for c in calls.tool_calls] == [
        ("MyPlugin_GetCurrentWeather", {"location": "Boston, MA"}),
        ("MyPlugin_FunctionWithException", {"argument": "value"}),
        ("MyPlugin_NonExistentFunction", {"argument": "value"}),
        ("MyPlugin_InvalidArguments", {}),
        ("MyPlugin_IntArguments", {"age": "36"}),
    ]
    assert (calls.stop_reason, calls.usage.input_tokens, calls.usage.output_tokens) == ("tool_use", 152, 22)
    assert text.text == "Okay, here we go!\n\n1, 2, 3, 4, 5\n"
    assert (text.stop_reason, text.usage.input_tokens, text.usage.output_tokens, text.model) == ("end_turn", 16, 22, "gemma3:1b")


@pytest.mark.asyncio
@pytest.mark.parametrize("name", CORPUS_FILES)
async def test_corpus_split_into_small_reads_gives_same_events(loopback, make_provider, name):
    loopback.enqueue(CHAT, ndjson_response(corpus_chunks(name)), ndjson_response(corpus_chunks(name, split_every=7)))
    provider = make_provider(loopback)
    assert await collect(provider) == await collect(provider)


@pytest.mark.asyncio
async def test_request_on_the_wire(loopback, make_provider):
    loopback.enqueue(CHAT, text_reply("ok"))
    await collect(make_provider(loopback), make_request(system="Be brief.", tools=[SEARCH], thinking_budget=1024, max_tokens=500))
    (sent,) = loopback.requests_to(CHAT)
    body = sent.json()
    assert sent.method == "POST" and "authorization" not in sent.headers
    assert body["stream"] is True and body["think"] is True and body["options"] == {"num_predict": 500, "num_ctx": 8192}
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert body["tools"][0]["function"]["name"] == "web_search"


# --- faults ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_error_line_mid_stream_keeps_the_partial(loopback, make_provider):
    """Built stream: no real recording of an Ollama mid-stream error exists (SOURCES.md)."""
    loopback.enqueue(CHAT, ndjson_response([*text_lines("Hello", " there"), {"error": "llama runner process has terminated"}]))
    events = await collect(make_provider(loopback))
    assert [e.kind for e in events][-2:] == ["text_end", "error"] and balanced(events)
    message = fold(events)
    assert message.text == "Hello there" and message.status is MessageStatus.FAILED
    assert "llama runner process has terminated" in message.error and "partial reply was kept" in message.error


@pytest.mark.asyncio
async def test_unknown_model_says_how_to_pull_it(loopback, make_provider):
    loopback.enqueue(CHAT, ollama_error(404, "model 'qwen9:7b' not found"))
    events = await collect(make_provider(loopback), make_request(model="qwen9:7b"))
    assert [e.kind for e in events] == ["error"] and events[0].status_code == 404
    assert "Ollama has no model qwen9:7b; pull it with `ollama pull qwen9:7b`" in events[0].message


@pytest.mark.asyncio
async def test_404_without_a_model_points_at_the_base_url(loopback, make_provider):
    loopback.enqueue(CHAT, ScriptedResponse(status=404, headers={"content-type": "text/plain"}, chunks=[b"404 page not found"]))
    events = await collect(make_provider(loopback))
    assert "Check the base URL" in events[0].message and "404 page not found" in events[0].message


@pytest.mark.asyncio
async def test_server_error_in_words(loopback, make_provider):
    loopback.enqueue(CHAT, ollama_error(500, "model requires more system memory (9.1 GiB) than is available (3.2 GiB)"))
    events = await collect(make_provider(loopback))
    assert [e.kind for e in events] == ["error"] and events[0].status_code == 500
    assert "Ollama failed to answer (500: model requires more system memory" in events[0].message


@pytest.mark.asyncio
async def test_connection_refused_says_to_start_ollama(make_provider):
    with LoopbackServer() as server:
        url = server.url  # closed again: nothing listens on this port
    events = await collect(make_provider(url))
    assert [e.kind for e in events] == ["error"] and events[0].reason == "error"
    assert f"Could not reach Ollama at {url}; is it running (`ollama serve`)?" in events[0].message


@pytest.mark.asyncio
async def test_dropped_connection_is_interrupted_with_the_partial(loopback, make_provider):
    loopback.enqueue(CHAT, ndjson_response(text_lines("Hello", " there"), drop=True))
    events = await collect(make_provider(loopback))
    assert sum(isinstance(e, ev.Error) for e in events) == 1 and events[-1].reason == "interrupted"
    message = fold(events)
    assert message.text == "Hello there" and message.status is MessageStatus.INTERRUPTED
    assert "partial reply was kept" in message.error and balanced(events)


@pytest.mark.asyncio
async def test_stream_ending_without_done_is_interrupted(loopback, make_provider):
    loopback.enqueue(CHAT, ndjson_response(corpus_chunks("ollama_chat_text_01.ndjson")[:-1]))
    events = await collect(make_provider(loopback))
    assert [e.kind for e in events][-2:] == ["text_end", "error"] and events[-1].reason == "interrupted"
    assert fold(events).text == "Okay, here we go!\n\n1, 2, 3, 4, 5\n"


@pytest.mark.asyncio
async def test_a_line_that_is_not_json_fails_in_words(loopback, make_provider):
    loopback.enqueue(CHAT, ndjson_response([*text_lines("Hi"), b"<html>proxy error</html>\n"]))
    events = await collect(make_provider(loopback))
    assert events[-1].kind == "error" and "not a JSON object" in events[-1].message and fold(events).text == "Hi"


@pytest.mark.asyncio
async def test_cancellation_propagates(loopback, make_provider):
    loopback.enqueue(CHAT, ndjson_response([*text_lines("a", "b", "c"), done_line()], delay=0.5))
    seen: list[ev.Event] = []

    async def consume() -> None:
        async for event in make_provider(loopback).stream(make_request()):
            seen.append(event)

    task = asyncio.create_task(consume())
    while not seen:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not any(isinstance(e, ev.Error) for e in seen)


# --- falling back for what a model does not support ------------------------------------------

PROMPT_REPLY = ["I will search. <tool_", 'call>{"name": "web_search", "argum', 'ents": {"query": "HK weather"}}</tool', "_call>\n"]


@pytest.mark.asyncio
async def test_model_without_tools_falls_back_to_the_prompt_protocol(loopback, make_provider):
    loopback.enqueue(CHAT, ollama_error(400, NO_TOOLS), ndjson_response([*text_lines(*PROMPT_REPLY), done_line()]))
    provider = make_provider(loopback)
    request = make_request(model="gemma3:1b", system="Be brief.", tools=[SEARCH])
    assert not provider.uses_prompt_tools("gemma3:1b")
    events = await collect(provider, request)

    first, second = (r.json() for r in loopback.requests_to(CHAT))
    assert "tools" in first and "tools" not in second
    system = second["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("Be brief.\n\n")
    assert "<tool_call>" in system["content"] and '"name": "web_search"' in system["content"] and "Search the web." in system["content"]
    assert not any(isinstance(e, ev.Error) for e in events)
    message = fold(events)
    assert message.text == "I will search. " and "<tool" not in message.text
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("web_search", {"query": "HK weather"})]
    assert message.stop_reason == "tool_use" and balanced(events)
    assert provider.uses_prompt_tools("gemma3:1b") and not provider.uses_prompt_tools("llama3.2")

    loopback.enqueue(CHAT, text_reply("again"))  # remembered: straight to the prompt protocol
    await collect(provider, request)
    assert len(loopback.requests_to(CHAT)) == 3 and "tools" not in loopback.requests_to(CHAT)[2].json()


@pytest.mark.asyncio
async def test_other_400s_are_not_retried(loopback, make_provider):
    loopback.enqueue(CHAT, ollama_error(400, "invalid message format"))
    events = await collect(make_provider(loopback), make_request(tools=[SEARCH]))
    assert [e.kind for e in events] == ["error"] and "Ollama refused the request (400: invalid message format)" in events[0].message
    assert len(loopback.requests_to(CHAT)) == 1


@pytest.mark.asyncio
async def test_model_without_thinking_is_asked_again_without_it(loopback, make_provider):
    loopback.enqueue(CHAT, ollama_error(400, '"gemma3:1b" does not support thinking'), text_reply("fine"))
    provider = make_provider(loopback)
    events = await collect(provider, make_request(model="gemma3:1b", thinking_budget=2048))
    assert fold(events).text == "fine"
    assert [r.json()["think"] for r in loopback.requests_to(CHAT)] == [True, False]


# --- key, URL, models ------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_bearer_key_sent_never_shown(loopback, make_provider):
    loopback.set_handler(CHAT, lambda r: ollama_error(401, f"unauthorized: {r.headers['authorization']}"))
    provider = make_provider(loopback.url + "/api/", api_key=Secret(KEY))
    assert KEY not in repr(provider) and KEY[-4:] in repr(provider)
    events = await collect(provider)
    assert loopback.requests_to(CHAT)[0].headers["authorization"] == f"Bearer {KEY}"
    assert events[0].status_code == 401 and "Check the API key" in events[0].message
    assert KEY not in events[0].message and "unauthorized" in events[0].message


@pytest.mark.asyncio
async def test_list_models(loopback, make_provider):
    loopback.enqueue("/api/tags", json_response({"models": [
        {"name": "llama3.2:latest", "model": "llama3.2:latest", "size": 2019393189},
        {"name": "gemma3:1b", "model": "gemma3:1b", "size": 815319791},
    ]}))
    assert await make_provider(loopback).list_models() == ["llama3.2:latest", "gemma3:1b"]
    assert loopback.requests_to("/api/tags")[0].method == "GET"


@pytest.mark.asyncio
async def test_a_model_list_that_is_not_json_is_said_in_words(loopback, make_provider):
    """A base URL that reaches a web page (a proxy's sign-in, another server) answers 200 with HTML."""
    loopback.enqueue("/api/tags", ScriptedResponse(headers={"content-type": "text/html"}, chunks=[b"<html><body>Sign in</body></html>"]))
    with pytest.raises(ProviderError) as caught:
        await make_provider(loopback).list_models()
    words = str(caught.value)
    assert words.startswith("Ollama answered") and "not JSON" in words and "<html>" in words and loopback.url in words
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


# --- the agent loop ----------------------------------------------------------------------------


class WeatherArgs(BaseModel):
    location: str


class Weather(PydanticTool):
    name: ClassVar[str] = "MyPlugin_GetCurrentWeather"
    description: ClassVar[str] = "Current weather for a place."
    arguments: ClassVar[type[BaseModel]] = WeatherArgs

    async def run(self, args: WeatherArgs, ctx: ToolContext) -> str:
        return f"Sunny in {args.location}"


class SearchArgs(BaseModel):
    query: str


class Search(PydanticTool):
    name: ClassVar[str] = "web_search"
    description: ClassVar[str] = "Search the web."
    arguments: ClassVar[type[BaseModel]] = SearchArgs

    async def run(self, args: SearchArgs, ctx: ToolContext) -> str:
        return f"Results for {args.query}"


async def run_loop(loopback, tools: list[PydanticTool], model: str) -> tuple[ev.RunFinished, list[Message], OllamaProvider]:
    provider = OllamaProvider(loopback.url, timeout=10.0)
    history = [Message.user("What is the weather in Boston?")]
    async with httpx.AsyncClient() as http:
        context = ToolContext(keys={}, http=http, endpoints={})
        loop = AgentLoop(provider, tools, context, RunOptions(model=model, provider="ollama"), lambda e: None)
        try:
            finished = await loop.run(history)
        finally:
            await provider.aclose()
    return finished, history, provider


@pytest.mark.asyncio
async def test_agent_loop_native_tool_round_trip(loopback):
    loopback.enqueue(CHAT, ndjson_response(corpus_chunks("ollama_chat_multiple_tool_calls_01.ndjson")),
                     text_reply("It is sunny in Boston."))
    finished, history, _ = await run_loop(loopback, [Weather()], "llama3.2")

    assert finished.outcome == "completed" and history[-1].text == "It is sunny in Boston."
    calls = history[1].tool_calls
    assert [c.status for c in calls] == [ToolCallStatus.DONE] + [ToolCallStatus.ERROR] * 4
    second = loopback.requests_to(CHAT)[1].json()["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "tool", "tool", "tool", "tool", "tool"]
    assert [c["function"]["name"] for c in second[1]["tool_calls"]] == [c.name for c in calls]
    assert second[1]["tool_calls"][3]["function"]["arguments"] == {}
    tool_messages = second[2:]
    assert [m["tool_name"] for m in tool_messages] == [c.name for c in calls]
    assert [m["tool_call_id"] for m in tool_messages] == [c.id for c in calls]
    assert tool_messages[0]["content"] == "Sunny in Boston, MA"
    assert all(m["content"].startswith("Error: Unknown tool") for m in tool_messages[1:])


@pytest.mark.asyncio
async def test_agent_loop_prompt_tool_round_trip(loopback):
    loopback.enqueue(CHAT, ollama_error(400, NO_TOOLS), ndjson_response([*text_lines(*PROMPT_REPLY), done_line()]),
                     text_reply("HK is sunny."))
    finished, history, provider = await run_loop(loopback, [Search()], "gemma3:1b")

    assert finished.outcome == "completed" and provider.uses_prompt_tools("gemma3:1b")
    assert history[-1].text == "HK is sunny."
    assert [type(b) for b in history[1].blocks] == [TextBlock, ToolCallBlock]
    assert history[1].tool_calls[0].result == "Results for HK weather"
    third = loopback.requests_to(CHAT)[2].json()
    assert "tools" not in third and "<tool_call>" in third["messages"][0]["content"]
    assert [m["role"] for m in third["messages"]] == ["system", "user", "assistant", "user"]
    assert third["messages"][2]["content"] == \
        'I will search. \n\n<tool_call>\n{"name": "web_search", "arguments": {"query": "HK weather"}}\n</tool_call>'
    assert third["messages"][3]["content"] == '<tool_response name="web_search">\nResults for HK weather\n</tool_response>'


def test_support_builders_encode_ndjson():
    response = ndjson_response([{"a": 1}, b'{"b": 2}\n'])
    assert [json.loads(c) for c in response.chunks] == [{"a": 1}, {"b": 2}]
    assert response.headers["content-type"] == "application/x-ndjson"
