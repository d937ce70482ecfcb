"""tavily_search: registry gating by key, result formatting, and the HTTP call against a loopback server."""

from __future__ import annotations

import httpx
import pytest

from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup, Secret
from desktop_copilot.core.tools.base import ToolContext, ToolError, find_tool
from desktop_copilot.core.tools.builtin import builtin_registry
from desktop_copilot.core.tools.tavily import TavilySearch, TavilySearchArgs, format_results
from tests.support.loopback import json_response, tavily_results


def test_offered_only_when_a_tavily_key_exists():
    registry = builtin_registry()
    names = lambda tools: [t.name for t in tools]  # noqa: E731
    assert "tavily_search" not in names(registry.enabled_for(KeyLookup([EnvironmentKeys({})])))
    with_key = KeyLookup([EnvironmentKeys({"TAVILY_API_KEY": "tvly-x"})])
    assert "tavily_search" in names(registry.enabled_for(with_key))
    assert "tavily_search" not in names(registry.enabled_for(with_key, {"tavily_search"}))


def test_case_repair():
    tools = [TavilySearch()]
    assert find_tool(tools, "Tavily_Search") is tools[0]
    assert find_tool(tools, "TAVILY-SEARCH") is tools[0]
    assert find_tool(tools, "tavily") is None


def test_format_numbers_entries_and_trims_snippets():
    text = format_results("q", [{"title": f"T{i}", "url": f"https://e/{i}", "content": "word " * 200} for i in range(7)])
    assert text.startswith('Web results for "q":')
    assert "[5] T4" in text and "[6]" not in text
    assert "URL: https://e/0" in text
    assert max(len(line) for line in text.splitlines()) <= 501 + 1


def test_no_results_says_so():
    assert format_results("nothing", []) == 'No web results for "nothing".'


def test_schema_is_what_the_model_sees():
    spec = TavilySearch().spec()
    assert spec.name == "tavily_search"
    assert spec.input_schema["required"] == ["query"]
    assert "title" not in spec.input_schema


@pytest.mark.asyncio
async def test_search_posts_to_the_endpoint_with_bearer_key(loopback):
    loopback.enqueue("/search", tavily_results("qq", [("Title", "https://x.example", "snippet text")]))
    async with httpx.AsyncClient() as http:
        ctx = ToolContext({"tavily": Secret("tvly-secret-9999")}, http, {"tavily": loopback.url})
        result = await TavilySearch().run(TavilySearchArgs(query="qq"), ctx)
    assert "[1] Title\nURL: https://x.example\nsnippet text" in result
    request = loopback.requests[0]
    assert request.headers["authorization"] == "Bearer tvly-secret-9999"
    assert request.json() == {"query": "qq", "max_results": 5}


@pytest.mark.asyncio
async def test_server_error_is_a_tool_error_in_words(loopback):
    loopback.enqueue("/search", json_response({"detail": "boom"}, status=500))
    async with httpx.AsyncClient() as http:
        ctx = ToolContext({"tavily": Secret("tvly-secret-9999")}, http, {"tavily": loopback.url})
        with pytest.raises(ToolError, match="Tavily answered 500"):
            await TavilySearch().run(TavilySearchArgs(query="qq"), ctx)
