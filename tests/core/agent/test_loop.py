"""The agent loop against the real Anthropic SDK talking to a loopback server, with real tools."""

from __future__ import annotations

import asyncio
import time
from typing import ClassVar

import httpx
import pytest
from pydantic import BaseModel

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.agent.loop import AgentLoop, RunOptions
from desktop_copilot.core.conversation.models import Message, MessageStatus, ToolCallStatus
from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider
from desktop_copilot.core.providers.anthropic_wire import build_messages
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.tools.base import PydanticTool, ToolContext
from desktop_copilot.core.tools.tavily import TavilySearch
from tests.support.loopback import (
    anthropic_error,
    anthropic_sse,
    anthropic_text_reply,
    anthropic_tool_reply,
    sse_response,
    tavily_results,
)

ANTHROPIC_KEY = "sk-ant-loop-test-7777"
TAVILY_KEY = "tvly-loop-test-8888"


class SleepArgs(BaseModel):
    seconds: float


class SleepTool(PydanticTool):
    name: ClassVar[str] = "sleep"
    description: ClassVar[str] = "Sleep for a while."
    arguments: ClassVar[type[BaseModel]] = SleepArgs
    timeout: ClassVar[float] = 5.0

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def run(self, args: SleepArgs, ctx: ToolContext) -> str:
        self.started.set()
        await asyncio.sleep(args.seconds)
        return f"slept {args.seconds}"


class ImpatientSleepTool(SleepTool):
    name: ClassVar[str] = "impatient_sleep"
    timeout: ClassVar[float] = 0.2


async def run_loop(loopback, tools, *, rounds=10, confirm=None, thinking=None, prompt="hello"):
    provider = AnthropicProvider(Secret(ANTHROPIC_KEY), loopback.url, max_retries=0)
    events: list[ev.Event] = []
    history = [Message.user(prompt)]
    async with httpx.AsyncClient() as http:
        context = ToolContext(keys={"tavily": Secret(TAVILY_KEY)}, http=http, endpoints={"tavily": loopback.url})
        options = RunOptions(model="claude-test", max_tool_rounds=rounds, thinking_budget=thinking)
        loop = AgentLoop(provider, tools, context, options, events.append, confirm)
        try:
            finished = await loop.run(history)
        finally:
            await provider.aclose()
    return finished, history, events


def reply(events):
    return sse_response(events)


@pytest.mark.asyncio
async def test_tavily_round_trip_replays_thinking_and_tool_use(loopback):
    loopback.enqueue(
        "/v1/messages",
        reply(anthropic_tool_reply([("toolu_1", "tavily_search", {"query": "香港天气"})],
                                   thinking="Let me search.", signature="sig-abc")),
        reply(anthropic_text_reply("It is sunny in 香港 🌞.", pieces=4)),
    )
    loopback.enqueue("/search", tavily_results("香港天气", [("HK Observatory", "https://hko.gov.hk", "Sunny, 25°C")]))

    finished, history, events = await run_loop(loopback, [TavilySearch()], thinking=2048)

    assert finished.outcome == "completed"
    first, second = (r.json() for r in loopback.requests_to("/v1/messages"))
    assert [t["name"] for t in first["tools"]] == ["tavily_search"]
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assistant, results = second["messages"][1], second["messages"][2]
    assert assistant["content"][0] == {"type": "thinking", "thinking": "Let me search.", "signature": "sig-abc"}
    assert assistant["content"][1] == {"type": "tool_use", "id": "toolu_1", "name": "tavily_search", "input": {"query": "香港天气"}}
    assert results["role"] == "user"
    assert results["content"][0]["tool_use_id"] == "toolu_1"
    assert results["content"][0]["is_error"] is False
    assert "[1] HK Observatory" in results["content"][0]["content"]
    assert "https://hko.gov.hk" in results["content"][0]["content"]
    search = loopback.requests_to("/search")[0]
    assert search.headers["authorization"] == f"Bearer {TAVILY_KEY}"
    assert search.json() == {"query": "香港天气", "max_results": 5}
    assert history[-1].text == "It is sunny in 香港 🌞."
    statuses = [e.status for e in events if isinstance(e, ev.ToolStatus)]
    assert statuses == [ToolCallStatus.RUNNING, ToolCallStatus.DONE]


@pytest.mark.asyncio
async def test_no_tools_field_when_no_tool_is_available(loopback):
    loopback.enqueue("/v1/messages", reply(anthropic_text_reply("hi")))
    finished, _, _ = await run_loop(loopback, [])
    assert finished.outcome == "completed"
    assert "tools" not in loopback.requests[0].json()


@pytest.mark.asyncio
async def test_parallel_calls_run_concurrently_and_return_in_one_user_message(loopback):
    loopback.enqueue(
        "/v1/messages",
        reply(anthropic_tool_reply([("toolu_a", "sleep", {"seconds": 1}), ("toolu_b", "sleep", {"seconds": 1})])),
        reply(anthropic_text_reply("both done")),
    )
    started = time.monotonic()
    finished, history, _ = await run_loop(loopback, [SleepTool()])
    elapsed = time.monotonic() - started

    assert finished.outcome == "completed"
    assert elapsed < 1.8, f"two 1 s calls took {elapsed:.2f} s: they did not run concurrently"
    results = loopback.requests_to("/v1/messages")[1].json()["messages"][2]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_a", "toolu_b"]
    assert all(r["content"] == "slept 1.0" and not r["is_error"] for r in results)


@pytest.mark.asyncio
async def test_unknown_tool_and_invalid_arguments_become_error_results_and_the_loop_goes_on(loopback):
    loopback.enqueue(
        "/v1/messages",
        reply(anthropic_tool_reply([("toolu_u", "teleport", {"to": "Mars"}), ("toolu_i", "sleep", {"seconds": "soon"})])),
        reply(anthropic_text_reply("sorry")),
    )
    finished, history, _ = await run_loop(loopback, [SleepTool()])

    assert finished.outcome == "completed"
    unknown, invalid = loopback.requests_to("/v1/messages")[1].json()["messages"][2]["content"]
    assert unknown["is_error"] and "Unknown tool 'teleport'" in unknown["content"] and "sleep" in unknown["content"]
    assert invalid["is_error"] and "seconds" in invalid["content"] and "Invalid arguments" in invalid["content"]
    assert [c.status for c in history[1].tool_calls] == [ToolCallStatus.ERROR, ToolCallStatus.ERROR]


@pytest.mark.asyncio
async def test_tool_name_case_is_repaired(loopback):
    loopback.enqueue(
        "/v1/messages",
        reply(anthropic_tool_reply([("toolu_c", "Tavily_Search", {"query": "news"})])),
        reply(anthropic_text_reply("done")),
    )
    loopback.enqueue("/search", tavily_results("news", [("A", "https://a.example", "alpha")]))
    finished, history, _ = await run_loop(loopback, [TavilySearch()])

    assert finished.outcome == "completed"
    result = loopback.requests_to("/v1/messages")[1].json()["messages"][2]["content"][0]
    assert result["is_error"] is False and "[1] A" in result["content"]


@pytest.mark.asyncio
async def test_round_limit_stops_and_closes_the_unrun_calls(loopback):
    for i in range(3):
        loopback.enqueue("/v1/messages", reply(anthropic_tool_reply([(f"toolu_{i}", "sleep", {"seconds": i / 100})])))
    finished, history, _ = await run_loop(loopback, [SleepTool()], rounds=2)

    assert finished.outcome == "round_limit"
    assert len(loopback.requests_to("/v1/messages")) == 3
    last_call = history[-1].tool_calls[0]
    assert last_call.status is ToolCallStatus.CANCELLED and last_call.is_error
    assert "limit of 2 tool rounds" in last_call.result
    wire = build_messages(history)
    assert wire[-1]["role"] == "user" and wire[-1]["content"][0]["tool_use_id"] == "toolu_2"


@pytest.mark.asyncio
async def test_three_identical_calls_are_a_loop(loopback):
    for i in range(3):
        loopback.enqueue("/v1/messages", reply(anthropic_tool_reply([(f"toolu_{i}", "sleep", {"seconds": 0})])))
    finished, history, events = await run_loop(loopback, [SleepTool()])

    assert finished.outcome == "loop"
    assert any(isinstance(e, ev.LoopDetected) and e.name == "sleep" for e in events)
    assert len(loopback.requests_to("/v1/messages")) == 3
    assert history[-1].tool_calls[0].status is ToolCallStatus.CANCELLED


@pytest.mark.asyncio
async def test_confirmed_loop_goes_on(loopback):
    for i in range(3):
        loopback.enqueue("/v1/messages", reply(anthropic_tool_reply([(f"toolu_{i}", "sleep", {"seconds": 0})])))
    loopback.enqueue("/v1/messages", reply(anthropic_text_reply("finally")))
    asked = []

    async def confirm(detected):
        asked.append(detected)
        return True

    finished, history, _ = await run_loop(loopback, [SleepTool()], confirm=confirm)
    assert finished.outcome == "completed" and len(asked) == 1
    assert history[-1].text == "finally"


@pytest.mark.asyncio
async def test_cancelling_mid_tool_marks_calls_cancelled_and_keeps_history_valid(loopback):
    loopback.enqueue("/v1/messages", reply(anthropic_tool_reply([("toolu_s", "sleep", {"seconds": 30})], text="Waiting.")))
    tool = SleepTool()
    provider = AnthropicProvider(Secret(ANTHROPIC_KEY), loopback.url, max_retries=0)
    events: list[ev.Event] = []
    history = [Message.user("wait")]
    async with httpx.AsyncClient() as http:
        loop = AgentLoop(provider, [tool], ToolContext({}, http, {}), RunOptions(model="m"), events.append)
        task = asyncio.create_task(loop.run(history))
        await asyncio.wait_for(tool.started.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await provider.aclose()

    call = history[1].tool_calls[0]
    assert call.status is ToolCallStatus.CANCELLED and call.is_error
    assert history[1].text == "Waiting."
    assert isinstance(events[-1], ev.RunFinished) and events[-1].outcome == "stopped"
    wire = build_messages(history)
    assert wire[-1]["content"][0] == {"type": "tool_result", "tool_use_id": "toolu_s", "content": call.result, "is_error": True}


@pytest.mark.asyncio
async def test_cancelling_mid_stream_keeps_partial_text(loopback):
    events_list = anthropic_text_reply("one two three four five six", pieces=6)
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(events_list), delay=0.2))
    provider = AnthropicProvider(Secret(ANTHROPIC_KEY), loopback.url, max_retries=0)
    seen: list[ev.Event] = []
    history = [Message.user("count")]
    async with httpx.AsyncClient() as http:
        loop = AgentLoop(provider, [], ToolContext({}, http, {}), RunOptions(model="m"), seen.append)
        task = asyncio.create_task(loop.run(history))
        while not any(isinstance(e, ev.TextDelta) for e in seen):
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await provider.aclose()
    assert history[1].status is MessageStatus.STOPPED
    assert history[1].text and "one two three four five six".startswith(history[1].text)


@pytest.mark.asyncio
async def test_tool_timeout_is_an_error_result(loopback):
    loopback.enqueue(
        "/v1/messages",
        reply(anthropic_tool_reply([("toolu_t", "impatient_sleep", {"seconds": 5})])),
        reply(anthropic_text_reply("ok")),
    )
    finished, history, _ = await run_loop(loopback, [ImpatientSleepTool()])
    call = history[1].tool_calls[0]
    assert finished.outcome == "completed"
    assert call.status is ToolCallStatus.ERROR and "timed out after 0.2 s" in call.result


@pytest.mark.asyncio
async def test_provider_error_fails_the_run_with_the_reason(loopback):
    loopback.enqueue("/v1/messages", anthropic_error(401, "authentication_error", "invalid x-api-key"))
    finished, history, _ = await run_loop(loopback, [])
    assert finished.outcome == "failed"
    assert history[1].status is MessageStatus.FAILED
    assert "key" in history[1].error and ANTHROPIC_KEY not in history[1].error


@pytest.mark.asyncio
async def test_tavily_rejecting_the_key_is_explained(loopback):
    loopback.enqueue(
        "/v1/messages",
        reply(anthropic_tool_reply([("toolu_k", "tavily_search", {"query": "x"})])),
        reply(anthropic_text_reply("ok")),
    )
    loopback.enqueue("/search", anthropic_error(401, "unauthorized", "bad key"))
    _, history, _ = await run_loop(loopback, [TavilySearch()])
    call = history[1].tool_calls[0]
    assert call.status is ToolCallStatus.ERROR and "Tavily rejected the API key" in call.result
    assert TAVILY_KEY not in call.result


REFUSAL_STREAM = [
    {"type": "message_start", "message": {"id": "msg_01Refused", "type": "message", "role": "assistant", "model": "claude-test",
                                          "content": [], "stop_reason": None, "usage": {"input_tokens": 9, "output_tokens": 1}}},
    {"type": "message_delta", "delta": {"stop_reason": "refusal", "stop_details": {"type": "refusal", "category": "bio", "explanation": None}},
     "usage": {"output_tokens": 1}},
    {"type": "message_stop"},
]


@pytest.mark.asyncio
async def test_refusal_ends_the_run_in_words_and_the_refused_exchange_is_not_sent_again(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(REFUSAL_STREAM)), sse_response(anthropic_text_reply("Sure.")))
    finished, history, _ = await run_loop(loopback, [], prompt="the refused prompt")
    assert finished.outcome == "refused"
    assert "declined" in finished.detail and "bio" in finished.detail
    assert history[-1].stop_reason == "refusal" and history[-1].error == finished.detail

    history.append(Message.user("something else"))
    provider = AnthropicProvider(Secret(ANTHROPIC_KEY), loopback.url, max_retries=0)
    try:
        loop = AgentLoop(provider, [], ToolContext(keys={}, http=None, endpoints={}), RunOptions(model="claude-test"), lambda e: None)
        assert (await loop.run(history)).outcome == "completed"
    finally:
        await provider.aclose()
    sent = loopback.requests_to("/v1/messages")[-1].json()["messages"]
    assert sent == [{"role": "user", "content": [{"type": "text", "text": "something else"}]}]


@pytest.mark.asyncio
async def test_each_event_carries_the_message_it_was_folded_into(loopback):
    loopback.enqueue("/v1/messages", reply(anthropic_text_reply("Three little pieces.", pieces=3)))

    finished, history, events = await run_loop(loopback, [])

    assert finished.outcome == "completed"
    folded = [e for e in events if e.message_id and not isinstance(e, ev.MessageCreated)]
    assert folded and all(e.snapshot is history[-1] for e in folded)  # the recorder and the view need no lookup
    deltas = [e for e in folded if isinstance(e, ev.TextDelta)]
    assert len(deltas) == 3 and "snapshot" not in deltas[0].to_json()  # never in `ask --json` lines
