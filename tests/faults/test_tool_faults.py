"""Tools under faults, through the real session, store and MCP servers (the demo server over stdio and over
Streamable HTTP): arguments that are not JSON on every wire, a 5 MB result, a tool that hangs, one that raises,
and a server that dies mid-call. Each call ends in a clear state on its card and in the database, the run goes
on, and the history stays valid for every provider."""

from __future__ import annotations

import pytest

from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.mcp.server_config import McpServerConfig
from desktop_copilot.core.mcp.tools import McpTool
from desktop_copilot.core.conversation.models import Conversation, MessageStatus, ToolCallStatus
from tests.faults.sessions import ANTHROPIC
from tests.support.faults import WIRE_IDS, WIRES, WireScript
from tests.support.history_rules import assert_valid_for_every_provider
from tests.support.mcp_servers.http_fixture import DemoHttpServer, stdio_config

FIVE_MB = 5 * 1024 * 1024


def call_reply(wire: WireScript, name: str, raw_arguments: str, call_id: str = "call_fault_1"):
    return wire.reply(wire.tool_call(call_id, name, raw_arguments))


async def run_one_call(session: ChatSession, loopback, wire: WireScript, name: str, raw_arguments: str, prompt: str = "Go"):
    """The model calls `name` once, then answers in text; returns the finished run and the stored tool call."""
    loopback.enqueue(wire.path, call_reply(wire, name, raw_arguments), wire.text_reply("Noted."))
    finished = await session.send(prompt, lambda e: None)
    await session.runtime.aclose()
    stored = session.store.load_conversation(session.conversation.id).messages
    [call] = [c for m in stored for c in m.tool_calls]
    return finished, stored, call


def sent_result(loopback, wire: WireScript) -> str:
    """The text of the tool's result as the second request carried it to the model."""
    return str(loopback.requests_to(wire.path)[-1].json())


@pytest.mark.asyncio
@pytest.mark.parametrize("wire", WIRES, ids=WIRE_IDS)
async def test_arguments_that_are_not_json_are_refused_in_words_and_the_run_goes_on(wire, mcp_session, loopback):
    session = await mcp_session(stdio_config("demo"), wire)
    finished, stored, call = await run_one_call(session, loopback, wire, "mcp__demo__read_note", '{"name": "todo"')
    assert finished.outcome == "completed" and stored[-1].text == "Noted."
    assert call.status is ToolCallStatus.ERROR and call.is_error
    assert "not valid JSON" in call.result or "Invalid arguments" in call.result, call.result
    assert "Fix the arguments" in call.result or "not valid JSON" in call.result
    assert call.result[:40] in sent_result(loopback, wire)  # the model reads why, and may try again
    assert_valid_for_every_provider(stored)


@pytest.mark.asyncio
async def test_a_5_mb_result_is_kept_whole_and_the_model_gets_the_capped_part(mcp_session, loopback):
    session = await mcp_session(stdio_config("demo"))
    finished, stored, call = await run_one_call(session, loopback, ANTHROPIC, "mcp__demo__blob", f'{{"size": {FIVE_MB}}}')
    assert finished.outcome == "completed"
    assert call.status is ToolCallStatus.DONE and len(call.result) == FIVE_MB
    limit = session.runtime.settings.tool_result_limit
    request = loopback.requests_to(ANTHROPIC.path)[-1].json()
    [result] = [b for b in request["messages"][-1]["content"] if b.get("type") == "tool_result"]
    carried = result["content"] if isinstance(result["content"], str) else "".join(p.get("text", "") for p in result["content"])
    assert limit <= len(carried) < limit + 1000, len(carried)  # the cap, and a note saying what was cut
    assert len(loopback.requests_to(ANTHROPIC.path)[-1].body) < 2 * limit + 100_000
    assert_valid_for_every_provider(stored)


@pytest.mark.asyncio
@pytest.mark.parametrize("name, arguments, timeout, words, sent", [
    ("mcp__demo__slow", '{"seconds": 120}', 1.0, " 1 s", " 1 s"),  # hangs: the deadline's words (the executor's or the MCP manager's, whichever fires first)
    ("mcp__demo__boom", '{"reason": "the disk caught fire"}', 60.0, "boom", "boom"),  # raises: the server's words
], ids=["hangs", "raises"])
async def test_a_tool_that_hangs_or_raises_is_an_error_the_model_reads(mcp_session, loopback, monkeypatch, name, arguments,
                                                                        timeout, words, sent):
    monkeypatch.setattr(McpTool, "timeout", timeout)
    session = await mcp_session(stdio_config("demo"))
    finished, stored, call = await run_one_call(session, loopback, ANTHROPIC, name, arguments)
    assert finished.outcome == "completed"
    assert call.status is ToolCallStatus.ERROR and words in call.result, call.result
    assert sent in sent_result(loopback, ANTHROPIC)
    assert_valid_for_every_provider(stored)


@pytest.mark.asyncio
async def test_a_stdio_server_that_dies_mid_call_fails_the_call_and_the_conversation_goes_on(mcp_session, loopback):
    session = await mcp_session(stdio_config("demo"))
    finished, stored, call = await run_one_call(session, loopback, ANTHROPIC, "mcp__demo__crash", "{}")
    assert session.approver.asked == ["mcp__demo__crash"]  # it changes things: the user was asked first
    assert finished.outcome == "completed" and stored[-1].status is MessageStatus.COMPLETED
    assert call.status is ToolCallStatus.ERROR and call.result.strip()
    assert "demo" in call.result  # which server failed
    assert_valid_for_every_provider(stored)


@pytest.fixture
def http_server():
    with DemoHttpServer("http") as server:
        yield server


@pytest.mark.asyncio
async def test_a_streamable_http_server_that_dies_mid_call_fails_the_call_in_words(mcp_session, loopback, http_server):
    session = await mcp_session(McpServerConfig(name="web", url=http_server.url))
    finished, stored, call = await run_one_call(session, loopback, ANTHROPIC, "mcp__web__crash", "{}")
    assert finished.outcome == "completed"
    assert call.status is ToolCallStatus.ERROR and "web" in call.result
    assert http_server.process.poll() is not None  # the server really died mid-call
    assert_valid_for_every_provider(stored)


@pytest.mark.asyncio
async def test_a_streamable_http_tool_that_raises_returns_5_mb_or_hangs(mcp_session, loopback, http_server, monkeypatch):
    session = await mcp_session(McpServerConfig(name="web", url=http_server.url))
    _finished, stored, call = await run_one_call(session, loopback, ANTHROPIC, "mcp__web__boom", '{"reason": "no more paper"}')
    assert call.status is ToolCallStatus.ERROR and "boom" in call.result, call.result
    session.conversation = Conversation(provider=ANTHROPIC.provider, model=ANTHROPIC.model)
    finished, stored, call = await run_one_call(session, loopback, ANTHROPIC, "mcp__web__blob", f'{{"size": {FIVE_MB}}}')
    assert finished.outcome == "completed" and call.status is ToolCallStatus.DONE and len(call.result) == FIVE_MB
    session.conversation = Conversation(provider=ANTHROPIC.provider, model=ANTHROPIC.model)
    monkeypatch.setattr(McpTool, "timeout", 1.0)
    finished, stored, call = await run_one_call(session, loopback, ANTHROPIC, "mcp__web__slow", '{"seconds": 120}')
    assert finished.outcome == "completed" and call.status is ToolCallStatus.ERROR and " 1 s" in call.result  # whichever deadline fired
    assert_valid_for_every_provider(stored)
