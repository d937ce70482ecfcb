"""The tools' shared HTTP client is made at its first request, and then serves every tool of the process."""

from __future__ import annotations

import asyncio

from desktop_copilot.core.runtime import ToolsHttpClient
from tests.support.loopback import json_response


def test_no_client_until_a_tool_makes_a_request_then_one_client(loopback):
    loopback.set_handler("/ping", lambda request: json_response({"ok": True}))
    shared = ToolsHttpClient()
    assert shared._client is None

    async def two_requests():
        first = await shared.get(loopback.url + "/ping")
        client = shared._client
        second = await shared.post(loopback.url + "/ping", json={})
        assert shared._client is client
        await shared.aclose()
        return first.json(), second.status_code

    assert asyncio.run(two_requests()) == ({"ok": True}, 200)
    assert shared._client is None
