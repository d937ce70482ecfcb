"""web_fetch against a real loopback HTTP server: readable text, redirects, caps, content types and errors."""

from __future__ import annotations

import httpx
import pytest

from desktop_copilot import __version__
from desktop_copilot.core.tools.base import Risk, ToolArgumentsError, ToolContext, ToolError
from desktop_copilot.core.tools.html_text import TagStripper
from desktop_copilot.core.tools.web_fetch import WebFetch
from tests.support.loopback import ScriptedResponse

ARTICLE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Lighthouse keepers of the north</title>
<script>var tracking = "SCRIPT_SHOULD_NOT_SHOW";</script><style>.x { color: red }</style></head>
<body>
<nav><a href="/home">Home</a> <a href="/about">About</a></nav>
<article>
<h1>Lighthouse keepers of the north</h1>
<p>For more than a century, the keepers of the northern lighthouses trimmed wicks, wound clockwork and logged the weather
every four hours. Their journals describe storms that lasted for weeks and supply boats that could not land.</p>
<p>The last keeper left the island in 1998, when the light was automated. Today a solar panel and a battery do the work
that once needed three families, and the keepers' cottages are a small museum open in the summer months.</p>
<p>Visitors can read the original logbooks, see the great lens up close and walk the path the keepers walked each night.
See <a href="https://example.org/logbooks">the digitised logbooks</a> for the full record.</p>
</article>
<footer>Copyright the museum trust</footer>
</body></html>
"""


def page(body: str | bytes, content_type: str = "text/html; charset=utf-8", status: int = 200, **kw) -> ScriptedResponse:
    data = body.encode() if isinstance(body, str) else body
    return ScriptedResponse(status=status, headers={"content-type": content_type}, chunks=[data], **kw)


def redirect(location: str, status: int = 302) -> ScriptedResponse:
    return ScriptedResponse(status=status, headers={"location": location, "content-type": "text/plain"}, chunks=[b"moved"])


async def fetch(url: str, *, tool: WebFetch | None = None, http: httpx.AsyncClient | None = None, **arguments) -> str:
    tool = tool or WebFetch()
    args = tool.validate({"url": url, **arguments})
    async with http or httpx.AsyncClient() as client:
        return await tool.run(args, ToolContext({}, client, {}))


def test_declares_open_world_and_needs_no_key():
    tool = WebFetch()
    assert tool.risk is Risk.OPEN_WORLD and tool.risk.needs_approval
    assert tool.required_keys == () and not tool.needs_workspace
    assert tool.spec().input_schema["required"] == ["url"]
    with pytest.raises(ToolArgumentsError, match="url"):
        tool.validate({})


@pytest.mark.asyncio
async def test_html_page_becomes_readable_text_with_title_and_url(loopback):
    loopback.enqueue("/article", page(ARTICLE))
    result = await fetch(f"{loopback.url}/article")
    head, _, text = result.partition("\n\n")
    assert head.splitlines() == [f"URL: {loopback.url}/article", "Title: Lighthouse keepers of the north"]
    assert "The last keeper left the island in 1998" in text
    assert "SCRIPT_SHOULD_NOT_SHOW" not in result and "color: red" not in result
    assert "Redirected from" not in result


@pytest.mark.asyncio
async def test_sends_a_plain_user_agent_and_no_cookies_or_credentials(loopback):
    loopback.enqueue("/a", ScriptedResponse(headers={"content-type": "text/plain", "set-cookie": "sid=abc; Path=/"}, chunks=[b"hello"]))
    loopback.enqueue("/a", page("again", "text/plain"))
    client = httpx.AsyncClient(cookies={"session": "jar-cookie"}, auth=("user", "client-password"), headers={"X-Client": "shared"})
    async with client:
        ctx = ToolContext({}, client, {})
        tool = WebFetch()
        assert "hello" in await tool.run(tool.validate({"url": f"{loopback.url}/a"}), ctx)
        assert "again" in await tool.run(tool.validate({"url": f"{loopback.url}/a"}), ctx)
    for request in loopback.requests_to("/a"):
        assert request.headers["user-agent"] == f"DesktopCopilot/{__version__} (web_fetch)"
        assert "cookie" not in request.headers and "authorization" not in request.headers and "x-client" not in request.headers
    assert len(loopback.requests_to("/a")) == 2


@pytest.mark.asyncio
async def test_url_with_credentials_is_refused_before_any_request(loopback):
    with pytest.raises(ToolError, match="user name or password"):
        await fetch(loopback.url.replace("http://", "http://me:secret@") + "/x")
    assert loopback.requests == []


@pytest.mark.asyncio
async def test_redirect_chain_shows_the_final_url(loopback):
    loopback.enqueue("/start", redirect("/middle", 301))
    loopback.enqueue("/middle", redirect(f"{loopback.url}/final", 307))
    loopback.enqueue("/final", page("You made it to the end.", "text/plain"))
    result = await fetch(f"{loopback.url}/start")
    assert result.splitlines()[:2] == [f"URL: {loopback.url}/final", f"Redirected from: {loopback.url}/start"]
    assert result.endswith("You made it to the end.")
    assert [r.path for r in loopback.requests] == ["/start", "/middle", "/final"]


@pytest.mark.asyncio
@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://127.0.0.1/pub/file.txt", "javascript:alert(1)"])
async def test_redirect_to_another_scheme_is_refused(loopback, target):
    loopback.enqueue("/start", redirect(target))
    with pytest.raises(ToolError, match=r"Only http\(s\) URLs can be fetched") as caught:
        await fetch(f"{loopback.url}/start")
    assert "was not followed" in str(caught.value)
    assert [r.path for r in loopback.requests] == ["/start"]


@pytest.mark.asyncio
async def test_too_many_redirects_are_refused(loopback):
    loopback.set_handler("/loop", lambda request: redirect(f"/loop{len(loopback.requests)}"))
    with pytest.raises(ToolError, match="redirected more than 5 times"):
        await fetch(f"{loopback.url}/loop")
    assert len(loopback.requests_to("/loop")) == 6  # the first request and five redirects followed


@pytest.mark.asyncio
async def test_body_larger_than_the_cap_is_cut_with_a_note(loopback):
    chunk = b"line of text that repeats\n" * 400  # 10.4 KB per chunk
    loopback.enqueue("/big", ScriptedResponse(headers={"content-type": "text/plain; charset=utf-8"}, chunks=[chunk] * 200))
    result = await fetch(f"{loopback.url}/big", tool=WebFetch(max_body_bytes=64 * 1024), max_chars=100_000)
    assert "only its first 64 KB were read" in result
    body = result.split("\n\n", 1)[1].rsplit("\n\n", 1)[0]
    assert 60_000 < len(body) <= 64 * 1024


@pytest.mark.asyncio
async def test_long_text_is_cut_at_max_chars_with_a_note(loopback):
    loopback.enqueue("/long", page("word " * 5000, "text/plain"))
    result = await fetch(f"{loopback.url}/long", max_chars=1000)
    assert "[Text cut at 1,000 of 24,999 characters" in result
    assert result.count("word") == 200


@pytest.mark.asyncio
async def test_slow_server_hits_the_time_cap(loopback):
    loopback.enqueue("/slow", page("late", "text/plain", hold=30))
    with pytest.raises(ToolError, match=r"took longer than 0\.5 s"):
        await fetch(f"{loopback.url}/slow", tool=WebFetch(total_seconds=0.5))


@pytest.mark.asyncio
async def test_body_that_trickles_past_the_time_cap_is_stopped(loopback):
    loopback.enqueue("/trickle", ScriptedResponse(headers={"content-type": "text/plain"}, chunks=[b"a"] * 100, delay=0.2))
    with pytest.raises(ToolError, match="took longer than"):
        await fetch(f"{loopback.url}/trickle", tool=WebFetch(total_seconds=0.5))


@pytest.mark.asyncio
@pytest.mark.parametrize("content_type", ["image/png", "application/pdf", "application/octet-stream", "video/mp4"])
async def test_binary_content_type_is_refused(loopback, content_type):
    loopback.enqueue("/file", page(b"\x89PNG\r\n\x1a\n\x00\x00", content_type))
    with pytest.raises(ToolError, match=f"is {content_type}, not a text page"):
        await fetch(f"{loopback.url}/file")


@pytest.mark.asyncio
async def test_undeclared_binary_body_is_refused(loopback):
    loopback.enqueue("/blob", ScriptedResponse(headers={}, chunks=[b"\x00\x01\x02binary"]))
    with pytest.raises(ToolError, match="binary content"):
        await fetch(f"{loopback.url}/blob")


@pytest.mark.asyncio
@pytest.mark.parametrize(("content_type", "body"), [
    ("application/json", '{"answer": 42}'),
    ("text/markdown", "# Heading\n\nSome *markdown*."),
    ("application/atom+xml", "<feed><title>t</title></feed>"),
])
async def test_text_like_types_come_back_as_they_are(loopback, content_type, body):
    loopback.enqueue("/doc", page(body, content_type))
    result = await fetch(f"{loopback.url}/doc")
    assert result == f"URL: {loopback.url}/doc\n\n{body}"


@pytest.mark.asyncio
async def test_declared_charset_is_used(loopback):
    loopback.enqueue("/latin", page("Café crème à Zürich".encode("latin-1"), "text/plain; charset=ISO-8859-1"))
    assert (await fetch(f"{loopback.url}/latin")).endswith("Café crème à Zürich")


@pytest.mark.asyncio
async def test_unknown_charset_falls_back_to_utf8(loopback):
    loopback.enqueue("/odd", page("naïve text".encode(), "text/plain; charset=no-such-charset"))
    assert (await fetch(f"{loopback.url}/odd")).endswith("naïve text")


@pytest.mark.asyncio
async def test_tiny_html_page_keeps_its_text_and_drops_scripts(loopback):
    loopback.enqueue("/tiny", page("<html><head><title>Tiny</title></head><body><div>Hi <b>there</b></div><script>x()</script></body></html>"))
    result = await fetch(f"{loopback.url}/tiny")
    assert result.startswith(f"URL: {loopback.url}/tiny\nTitle: Tiny\n\nHi ")
    assert "there" in result and "x()" not in result


def test_tag_stripping_fallback_gives_title_and_visible_text():
    stripped = TagStripper.text_of(
        "<html><head><title> A  page </title><style>p{}</style></head><body><p>One &amp; two</p><script>bad()</script>"
        "<ul><li>first</li><li>second</li></ul><noscript>enable js</noscript></body></html>"
    )
    assert stripped.title == "A page"
    assert stripped.text == "One & two\nfirst\nsecond"


@pytest.mark.asyncio
@pytest.mark.parametrize(("status", "words"), [(404, "answered 404 Not Found. The page does not exist"), (503, "answered 503 Service Unavailable. Try again")])
async def test_error_status_is_a_tool_error(loopback, status, words):
    loopback.enqueue("/gone", page("<h1>nope</h1>", status=status))
    with pytest.raises(ToolError, match=words):
        await fetch(f"{loopback.url}/gone")


@pytest.mark.asyncio
async def test_refused_connection_is_a_tool_error(loopback):
    url = loopback.url
    loopback.stop()
    with pytest.raises(ToolError, match="Could not connect to .*nothing answered at that address"):
        await fetch(f"{url}/x")


@pytest.mark.asyncio
@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://{host}/x", "gopher://{host}/", "data:text/plain,hi", "{host}/no-scheme"])
async def test_non_http_scheme_is_refused_before_any_request(loopback, url):
    url = url.format(host=loopback.url.removeprefix("http://"))
    with pytest.raises(ToolError, match=r"Only http\(s\) URLs can be fetched"):
        await fetch(url)
    assert loopback.requests == []
