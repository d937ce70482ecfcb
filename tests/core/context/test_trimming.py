"""Old tool results go to the model as a head-and-tail excerpt (core/context/trimming.py); the conversation keeps every
result whole, and the agent loop sends the excerpt over the real Anthropic wire."""

from __future__ import annotations

import httpx
import pytest

from desktop_copilot.core.agent.loop import AgentLoop, RunOptions
from desktop_copilot.core.context.trimming import RESULT_LIMIT, trim_old_tool_results
from desktop_copilot.core.conversation.models import Message, MessageStatus, Role, TextBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider
from desktop_copilot.core.tools.base import ToolContext
from tests.support.anthropic_rules import history_problems
from tests.support.loopback import anthropic_text_reply, sse_response

LINES = [f"line {i:05d}: " + "word " * 12 for i in range(1_000)]
LONG = "\n".join(LINES)
"""A long result: a thousand numbered lines (about 72,000 characters)."""


def tool_round(result: str, *, call_id: str, model_result: str | None = None, status: ToolCallStatus = ToolCallStatus.DONE) -> Message:
    call = ToolCallBlock(id=call_id, name="read_file", arguments={"path": "big.log"}, status=status,
                         result=result if status.finished else None, model_result=model_result)
    return Message(role=Role.ASSISTANT, blocks=[TextBlock(text="Reading it."), call], status=MessageStatus.COMPLETED,
                   stop_reason="tool_use", provider="anthropic", model="claude-test")


def reply(text: str) -> Message:
    return Message(role=Role.ASSISTANT, blocks=[TextBlock(text=text)], status=MessageStatus.COMPLETED, stop_reason="end_turn",
                   provider="anthropic", model="claude-test")


def conversation(turns: int, result: str = LONG) -> list[Message]:
    """`turns` turns, each a question, a tool round reading a file and an answer."""
    messages: list[Message] = []
    for n in range(turns):
        messages += [Message.user(f"question {n}"), tool_round(result, call_id=f"toolu_{n:02d}"), reply(f"answer {n}")]
    return messages


def result_sent(message: Message) -> str:
    call = message.tool_calls[0]
    return call.model_result if call.model_result is not None else call.result


def test_results_older_than_the_last_turns_are_cut_to_head_and_tail():
    messages = conversation(6)
    sent = trim_old_tool_results(messages, keep_turns=4)
    assert len(sent) == len(messages)
    old, recent = [sent[1], sent[4]], [sent[i] for i in range(7, 18, 3)]
    for message in old:
        excerpt = result_sent(message)
        assert len(excerpt) < RESULT_LIMIT + 200
        assert excerpt.startswith(LINES[0]) and excerpt.endswith(LINES[-1])  # whole lines at both ends
        head, tail = excerpt.split("\n\n[… ")[0], excerpt.split(" is in the conversation]\n\n")[1]
        left = len(LONG) - len(head) - len(tail)
        assert f"[… {left:,} characters of this result were left out of the request; the full result is in the conversation]" in excerpt
    assert all(result_sent(message) == LONG for message in recent)


def test_the_conversation_is_never_changed():
    messages = conversation(6)
    before = [message.model_dump() for message in messages]
    sent = trim_old_tool_results(messages, keep_turns=4)
    assert [message.model_dump() for message in messages] == before  # every result whole, no model_result set
    assert sent[1] is not messages[1] and sent[1].tool_calls[0] is not messages[1].tool_calls[0]
    assert sent[1].id == messages[1].id and sent[1].blocks[0] is messages[1].blocks[0]  # only the call is a copy
    assert all(sent[i] is messages[i] for i in range(len(messages)) if i not in (1, 4))


def test_nothing_to_cut():
    short = conversation(6, result="a short result")
    assert trim_old_tool_results(short) == short
    few = conversation(4)
    assert trim_old_tool_results(few, keep_turns=4) is few  # no turn is older than the last four
    assert result_sent(trim_old_tool_results(conversation(2), keep_turns=0)[1]) != LONG  # keep_turns=0: every result is old


def test_the_capped_result_is_what_gets_cut_and_unfinished_calls_stay():
    capped = LONG[:30_000] + "\n\n[Result cut: 30,000 of 72,000 characters shown.]"
    messages = [Message.user("q0"), tool_round(LONG, call_id="toolu_a", model_result=capped), reply("a0"),
                Message.user("q1"), tool_round(LONG, call_id="toolu_b", status=ToolCallStatus.RUNNING), reply("a1"),
                Message.user("q2"), reply("a2")]
    sent = trim_old_tool_results(messages, keep_turns=1)
    assert result_sent(sent[1]).endswith("[Result cut: 30,000 of 72,000 characters shown.]")
    assert "characters of this result were left out" in result_sent(sent[1])
    assert sent[4] is messages[4]


@pytest.mark.asyncio
async def test_the_loop_sends_the_excerpt_and_keeps_the_result(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Done.")))
    history = [*conversation(5), Message.user("and now?")]
    provider = AnthropicProvider(Secret("sk-ant-test-trim"), loopback.url, max_retries=0, timeout=10.0)
    try:
        async with httpx.AsyncClient() as http:
            loop = AgentLoop(provider, [], ToolContext(keys={}, http=http, endpoints={}), RunOptions(model="claude-sonnet-4-6"),
                             lambda event: None)
            finished = await loop.run(history)
    finally:
        await provider.aclose()
    assert finished.outcome == "completed"
    body = loopback.requests_to("/v1/messages")[0].json()
    results = [block["content"] for turn in body["messages"] for block in turn["content"] if block["type"] == "tool_result"]
    assert len(results) == 5
    # six turns with the new question: the first two are older than the last four, whose results go whole
    assert all("characters of this result were left out" in r and len(r) < RESULT_LIMIT + 200 for r in results[:2])
    assert results[2:] == [LONG] * 3
    assert history_problems(body["messages"]) == []
    assert all(message.tool_calls[0].result == LONG and message.tool_calls[0].model_result is None
               for message in history if message.tool_calls)
