"""Prompt-caching breakpoints in the real Anthropic request (core/providers/anthropic_cache.py through build_params):
on the last tool, the system prompt and the latest user turns, never more than four, never on an empty, thinking or
redacted-thinking block; and through the SDK to a loopback server."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_copilot.core.conversation.models import (
    Message,
    MessageStatus,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.providers.anthropic_cache import MAX_BREAKPOINTS, breakpoints, place_breakpoints
from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider
from desktop_copilot.core.providers.anthropic_wire import build_params
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from tests.support.anthropic_rules import history_problems
from tests.support.loopback import anthropic_text_reply, sse_response

CACHED = {"type": "ephemeral"}
LONG_SYSTEM = "You are a careful research assistant. " * 200  # about 1,900 tokens: cacheable on its own
LONG_TEXT = "Please read this report closely and summarise it. " * 120  # about 1,500 tokens
TOOLS = [ToolSpec(f"tool_{n}", "Does one thing well. " * 40, {"type": "object", "properties": {"q": {"type": "string"}}}) for n in range(6)]
"""Six tools of about 220 tokens each: their definitions alone reach the minimum."""


def done_call(call_id: str, result: str = "a result " * 400) -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name="tool_0", arguments={"q": "x"}, status=ToolCallStatus.DONE, result=result)


def reply(*blocks) -> Message:
    return Message(role=Role.ASSISTANT, blocks=list(blocks), status=MessageStatus.COMPLETED, provider="anthropic", model="claude-sonnet-4-6")


def marked(params: dict[str, Any]) -> list[tuple[str, Any]]:
    """Where the breakpoints are: ("tool", name), ("system", None), (turn index, block type)."""
    found = [("tool", tool["name"]) for tool in params.get("tools", []) if "cache_control" in tool]
    system = params.get("system")
    found += [("system", None) for block in (system if isinstance(system, list) else []) if "cache_control" in block]
    found += [(i, block["type"]) for i, turn in enumerate(params["messages"]) for block in turn["content"] if "cache_control" in block]
    return found


def params_for(messages: list[Message], **kw: Any) -> dict[str, Any]:
    params = build_params(ProviderRequest(model="claude-sonnet-4-6", messages=messages, **kw))
    assert history_problems(params["messages"]) == []
    assert breakpoints(params) <= MAX_BREAKPOINTS
    assert all(value == CACHED for value in _values(params))
    return params


def _values(params: dict[str, Any]) -> list[Any]:
    system = params.get("system")
    blocks = [*params.get("tools", []), *(system if isinstance(system, list) else []), *(b for t in params["messages"] for b in t["content"])]
    return [block["cache_control"] for block in blocks if "cache_control" in block]


def test_a_plain_turn_caches_the_users_message():
    params = params_for([Message.user(LONG_TEXT)])
    assert marked(params) == [(0, "text")]
    assert params["messages"][0]["content"][0]["cache_control"] == CACHED
    assert "system" not in params


def test_a_short_request_carries_no_breakpoint_and_keeps_its_system_string():
    params = params_for([Message.user("hi")], system="Be brief.", tools=TOOLS[:1])
    assert marked(params) == [] and params["system"] == "Be brief."


def test_a_tool_round_caches_the_results_and_the_turn_before():
    history = [Message.user(LONG_TEXT), reply(TextBlock(text="Let me look."), done_call("toolu_a"), done_call("toolu_b"))]
    params = params_for(history)
    assert marked(params) == [(0, "text"), (2, "tool_result")]
    last = params["messages"][2]["content"]
    assert "cache_control" not in last[0] and last[1]["cache_control"] == CACHED  # the round's last result


def test_system_prompt_and_tools_in_a_long_conversation_use_all_four():
    history = [Message.user("first question"), reply(TextBlock(text="first answer")),
               Message.user(LONG_TEXT), reply(TextBlock(text="Looking."), done_call("toolu_1")),
               Message.user("thanks, and then?")]
    params = params_for(history, system=LONG_SYSTEM, tools=TOOLS)
    assert marked(params) == [("tool", "tool_5"), ("system", None), (2, "text"), (4, "text")]
    assert params["system"] == [{"type": "text", "text": LONG_SYSTEM, "cache_control": CACHED}]
    assert [b["type"] for b in params["messages"][4]["content"]] == ["tool_result", "text"]  # the round's results and the next question


def test_thinking_blocks_are_never_marked():
    thinking = ThinkingBlock(thinking="Let me think about the file. " * 50, signature="sig-0123456789")
    history = [Message.user(LONG_TEXT),
               reply(thinking, RedactedThinkingBlock(data="EmwKAhgBEgy3va3pzix/LafPsn4aDF"), done_call("toolu_t"))]
    params = params_for(history, thinking_budget=2048, max_tokens=8000)
    kinds = {block["type"]: block for turn in params["messages"] for block in turn["content"]}
    assert "thinking" in kinds and "redacted_thinking" in kinds
    assert all("cache_control" not in block for turn in params["messages"] for block in turn["content"]
               if block["type"] in ("thinking", "redacted_thinking"))
    assert marked(params) == [(0, "text"), (2, "tool_result")]


def test_the_last_block_that_may_carry_one_is_chosen():
    """A turn ending in blocks that may not carry a breakpoint (as a server's reply replayed could): the one before."""
    params = {"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": [{"type": "text", "text": LONG_TEXT}, {"type": "text", "text": "   "},
                                     {"type": "thinking", "thinking": "x", "signature": "s"}, {"type": "redacted_thinking", "data": "d"}]}]}
    place_breakpoints(params)
    assert [("cache_control" in block) for block in params["messages"][0]["content"]] == [True, False, False, False]


def test_a_turn_with_nothing_markable_gets_none():
    params = {"model": "m", "max_tokens": 10, "system": LONG_SYSTEM, "messages": [
        {"role": "user", "content": [{"type": "text", "text": " \n "}]}]}
    place_breakpoints(params)
    assert marked(params) == [("system", None)]


def test_never_more_than_four_the_latest_first():
    """Breakpoints already in the request count: only what is left of the four is placed, the latest turns first (the
    system prompt, left unmarked, stays a string)."""
    tools = [{"name": f"tool_{n}", "description": "Does one thing well. " * 40, "input_schema": {"type": "object"}} for n in range(6)]
    tools[0]["cache_control"] = dict(CACHED)
    tools[1]["cache_control"] = dict(CACHED)
    params = {"model": "m", "max_tokens": 10, "tools": tools, "system": LONG_SYSTEM, "messages": [
        {"role": "user", "content": [{"type": "text", "text": LONG_TEXT}]},
        {"role": "assistant", "content": [{"type": "text", "text": "An answer."}]},
        {"role": "user", "content": [{"type": "text", "text": "And then?"}]}]}
    place_breakpoints(params)
    assert breakpoints(params) == MAX_BREAKPOINTS
    assert marked(params) == [("tool", "tool_0"), ("tool", "tool_1"), (0, "text"), (2, "text")]
    assert params["system"] == LONG_SYSTEM


def test_a_long_history_never_passes_four():
    history: list[Message] = []
    for n in range(12):
        history += [Message.user(f"question {n} " + LONG_TEXT), reply(TextBlock(text=f"answer {n}"), done_call(f"toolu_{n}"))]
    history.append(Message.user("last question"))
    params = params_for(history, system=LONG_SYSTEM, tools=TOOLS)
    assert breakpoints(params) == MAX_BREAKPOINTS
    last = len(params["messages"]) - 1
    assert marked(params) == [("tool", "tool_5"), ("system", None), (last - 2, "text"), (last, "text")]
    assert params["messages"][last]["content"][0]["type"] == "tool_result"  # the last round's result, then the question


def test_the_conversation_is_not_changed():
    history = [Message.user(LONG_TEXT)]
    before = history[0].model_dump()
    params_for(history, system=LONG_SYSTEM)
    assert history[0].model_dump() == before


@pytest.mark.asyncio
async def test_the_sdk_sends_the_breakpoints(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Cached.")))
    provider = AnthropicProvider(Secret("sk-ant-test-cache"), loopback.url, max_retries=0, timeout=10.0)
    history = [Message.user(LONG_TEXT), reply(TextBlock(text="Looking."), done_call("toolu_1"))]
    try:
        events = [e async for e in provider.stream(ProviderRequest(model="claude-sonnet-4-6", messages=history, system=LONG_SYSTEM, tools=TOOLS))]
    finally:
        await provider.aclose()
    assert events[-1].kind == "done"
    body = loopback.requests_to("/v1/messages")[0].json()
    assert marked(body) == [("tool", "tool_5"), ("system", None), (0, "text"), (2, "tool_result")]
    assert history_problems(body["messages"]) == []
