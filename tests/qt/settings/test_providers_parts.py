"""The checks behind Add endpoint…: ids made from names, http(s) base URLs, and headers that never carry a secret."""

from __future__ import annotations

import pytest

from desktop_copilot.qt.settings.providers_parts import EndpointError, make_id, parse_headers, url_problem


@pytest.mark.parametrize(("name", "taken", "expected"), [
    ("LM Studio", set(), "lm-studio"),
    ("  vLLM (GPU box) ", set(), "vllm-gpu-box"),
    ("Ünïcode Gateway", set(), "unicode-gateway"),
    ("本地模型", set(), "endpoint"),
    ("DeepSeek", {"deepseek"}, "deepseek-2"),
    ("Tavily", {"tavily", "tavily-2"}, "tavily-3"),
])
def test_an_id_is_made_from_the_name(name, taken, expected):
    assert make_id(name, taken) == expected


@pytest.mark.parametrize(("text", "required", "problem"), [
    ("", False, None),
    ("", True, "is needed"),
    ("http://127.0.0.1:1234/v1", True, None),
    ("HTTPS://gateway.example/v1", False, None),
    ("localhost:1234", False, "must start with http:// or https://"),
    ("https://", False, "has no host name"),
])
def test_base_urls_must_be_http_with_a_host(text, required, problem):
    assert url_problem(text, required=required) == problem


def test_headers_are_name_value_lines():
    assert parse_headers("X-Title: Desktop Copilot\n\nHTTP-Referer:  https://example.org \n") == {
        "X-Title": "Desktop Copilot", "HTTP-Referer": "https://example.org"}
    with pytest.raises(EndpointError, match="line 1"):
        parse_headers("no colon here")
    with pytest.raises(EndpointError, match="line 2"):
        parse_headers("X-A: 1\nBad Name: 2")


@pytest.mark.parametrize("line", [
    "Authorization: Bearer abc", "authorization: abc", "api-key: abc", "X-API-Key: abc", "x-goog-api-key: abc",
    "Cookie: session=1", "X-Portkey-Api-Key: abc", "X-Auth-Token: abc", "X-Custom: sk-proj-0123456789abcdefghij",
    "X-Custom: Bearer abc",
])
def test_a_header_that_carries_a_secret_is_refused_with_where_to_put_the_key(line):
    with pytest.raises(EndpointError, match="API key field"):
        parse_headers(line)
