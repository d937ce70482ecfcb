"""A Tavily error body that echoes the key: the tool result (what the model and the database get) and the log
line show it masked."""

from __future__ import annotations

import json
import secrets

import httpx
import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.agent.execution import ToolExecutor
from desktop_copilot.core.conversation.models import Message, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.tools.base import ToolContext
from desktop_copilot.core.tools.tavily import TavilySearch
from tests.support.log_support import logging_to_profile, read_log
from tests.support.loopback import ScriptedResponse


def echo_key_in_a_500(request) -> ScriptedResponse:  # a misbehaving proxy that repeats what it was sent
    body = json.dumps({"detail": f"upstream failed for {request.headers['authorization']}"}).encode()
    return ScriptedResponse(500, {"Content-Type": "application/json"}, [body])


@pytest.mark.asyncio
async def test_a_500_echoing_the_key_gives_a_result_and_a_log_without_it(loopback):
    key = f"tvly-{secrets.token_hex(16)}"
    loopback.set_handler("/search", echo_key_in_a_500)
    results: list[ev.ToolStatus] = []
    call = ToolCallBlock(id="toolu_1", name="tavily_search", arguments={"query": "weather"})
    with logging_to_profile() as path:
        async with httpx.AsyncClient() as http:
            context = ToolContext({"tavily": Secret(key)}, http, {"tavily": loopback.url})
            executor = ToolExecutor([TavilySearch()], context, lambda _message, event: results.append(event))
            await executor.run_all(Message.assistant(), [call])
        text = read_log(path)
    assert loopback.requests[0].headers["authorization"] == f"Bearer {key}"  # the server did see the key
    final = results[-1]
    assert final.status is ToolCallStatus.ERROR and final.is_error
    assert final.result.startswith("Tavily answered 500: ") and "upstream failed for Bearer " in final.result
    assert key not in final.result and key[-4:] in final.result
    assert "tool run: name=tavily_search id=toolu_1 outcome=error duration=" in text
    assert key not in text
