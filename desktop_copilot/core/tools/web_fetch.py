"""`web_fetch`: one http(s) page as readable text, with redirect, time, size and content-type limits."""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from desktop_copilot import __version__
from desktop_copilot.core.tools.base import PydanticTool, Risk, ToolContext, ToolError

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

MAX_REDIRECTS = 5
TOTAL_SECONDS = 20.0
MAX_BODY_BYTES = 2 * 1024 * 1024
DEFAULT_MAX_CHARS = 40_000
USER_AGENT = f"DesktopCopilot/{__version__} (web_fetch)"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"application/json", "application/xml", "application/javascript", "application/x-ndjson", "application/ld+json"})
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


class WebFetchArgs(BaseModel):
    url: str = Field(min_length=1, max_length=8000, description="The http:// or https:// address of the page to fetch.")
    max_chars: int = Field(default=DEFAULT_MAX_CHARS, ge=500, le=100_000, description="At most this many characters of the page's text are returned.")


@dataclass(slots=True)
class FetchedPage:
    url: str
    redirected_from: str
    media_type: str
    charset: str | None
    body: bytes
    cut: bool


def checked_url(url: str) -> str:
    """The URL if it is one web_fetch may request: http(s), with a host, without a user name or password."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        raise ToolError(f"{url!r} is not a valid URL. Give a full http:// or https:// address.") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise ToolError(f"Only http(s) URLs can be fetched; {url!r} uses {parts.scheme or 'no'} scheme.")
    if not host:
        raise ToolError(f"{url!r} has no host name. Give a full http:// or https:// address.")
    if parts.username is not None or parts.password is not None:
        raise ToolError("URLs with a user name or password are not fetched (web_fetch never sends credentials). Remove them from the URL.")
    return url.strip()


def is_text_like(media_type: str) -> bool:
    if not media_type:
        return True  # undeclared: sniffed for binary content after reading
    return media_type.startswith("text/") or media_type in HTML_TYPES or media_type in TEXT_TYPES or media_type.endswith(("+json", "+xml"))


class WebFetch(PydanticTool):
    name: ClassVar[str] = "web_fetch"
    description: ClassVar[str] = (
        "Fetch one web page (http or https) and return its readable text, with its title and the final URL after redirects. "
        "HTML is converted to Markdown-like text; plain text, JSON, XML and Markdown come back as they are. Binary files are refused."
    )
    arguments: ClassVar[type[BaseModel]] = WebFetchArgs
    risk: ClassVar[Risk] = Risk.OPEN_WORLD
    timeout: ClassVar[float] = TOTAL_SECONDS + 15.0
    """The executor's cap; the network part is capped at `total_seconds`, the rest is text extraction."""

    def __init__(self, *, total_seconds: float = TOTAL_SECONDS, max_body_bytes: int = MAX_BODY_BYTES) -> None:
        self.total_seconds = total_seconds
        self.max_body_bytes = max_body_bytes

    async def run(self, args: WebFetchArgs, ctx: ToolContext) -> str:
        start = checked_url(args.url)
        try:
            async with asyncio.timeout(self.total_seconds):
                page = await self._fetch(ctx.http, start)
        except TimeoutError:
            raise ToolError(f"Fetching {start} took longer than {self.total_seconds:g} s and was stopped. Try again later or another page.") from None
        text = decode(page)
        title = ""
        if page.media_type in HTML_TYPES or (not page.media_type and looks_like_html(text)):
            title, text = await asyncio.to_thread(readable_text, text, page.url)
        return format_page(page, title, text, args.max_chars, self.max_body_bytes)

    async def _fetch(self, http: httpx.AsyncClient, url: str) -> FetchedPage:
        import httpx

        current = url
        for _hop in range(MAX_REDIRECTS + 1):
            request = self._request(current)
            try:  # a hand-built request carries none of the client's cookies; an empty Auth keeps any client auth off it
                response = await http.send(request, stream=True, follow_redirects=False, auth=httpx.Auth())
            except httpx.InvalidURL:  # httpx parses a redirect's Location even when not following it
                raise ToolError(f"{current} redirected to an address that is not a valid http(s) URL, which was not followed. "
                                "Only http(s) URLs can be fetched.") from None
            except httpx.TimeoutException:
                raise ToolError(f"{current} did not answer in time. Try again later or another page.") from None
            except httpx.ConnectError as exc:
                raise ToolError(f"Could not connect to {current}: {describe_connect_error(exc)}. Check the address.") from None
            except httpx.HTTPError as exc:
                raise ToolError(f"Fetching {current} failed: {type(exc).__name__}. Check the address or try again.") from None
            try:
                if response.status_code in REDIRECT_STATUSES and "location" in response.headers:
                    current = self._redirect_target(response, current)
                    continue
                return await self._read(response, current, url)
            finally:
                await response.aclose()
        raise ToolError(f"{url} redirected more than {MAX_REDIRECTS} times; stopped. The page may be in a redirect loop.")

    def _request(self, url: str) -> httpx.Request:
        import httpx

        try:
            return httpx.Request(
                "GET", url,
                headers={"User-Agent": USER_AGENT, "Accept": "text/html,text/plain,text/markdown,application/json,application/xml;q=0.9,*/*;q=0.1",
                         "Accept-Encoding": "identity"},
                extensions={"timeout": httpx.Timeout(self.total_seconds, connect=min(10.0, self.total_seconds)).as_dict()},
            )
        except httpx.InvalidURL:
            raise ToolError(f"{url!r} is not a valid URL. Give a full http:// or https:// address.") from None

    @staticmethod
    def _redirect_target(response: httpx.Response, current: str) -> str:
        import httpx

        location = response.headers["location"].strip()
        try:
            target = location if urlsplit(location).scheme else str(response.url.join(location))
        except (ValueError, httpx.InvalidURL):
            raise ToolError(f"{current} redirected to an invalid address.") from None
        try:
            return checked_url(target)
        except ToolError as exc:
            raise ToolError(f"{current} redirected to {target!r}, which was not followed: {exc}") from None

    async def _read(self, response: httpx.Response, final: str, start: str) -> FetchedPage:
        import httpx

        if response.status_code >= 400:
            hint = "The page does not exist; check the URL." if response.status_code in (404, 410) else "Try again later or another page."
            raise ToolError(f"{final} answered {response.status_code} {response.reason_phrase}. {hint}")
        content_type = response.headers.get("content-type", "")
        media_type = content_type.split(";")[0].strip().lower()
        if not is_text_like(media_type):
            raise ToolError(f"{final} is {media_type}, not a text page (HTML, plain text, JSON, XML or Markdown); web_fetch reads only text.")
        body, cut = bytearray(), False
        try:
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > self.max_body_bytes:
                    del body[self.max_body_bytes:]
                    cut = True
                    break
        except httpx.TimeoutException:
            raise ToolError(f"{final} stopped sending the page before it ended. Try again later.") from None
        except httpx.HTTPError as exc:
            raise ToolError(f"Reading {final} failed: {type(exc).__name__}. Try again later.") from None
        if not media_type and b"\x00" in body[:8192]:
            raise ToolError(f"{final} sent binary content without a content type; web_fetch reads only text.")
        return FetchedPage(final, start if final != start else "", media_type, response.charset_encoding, bytes(body), cut)


def describe_connect_error(exc: Exception) -> str:
    text = str(exc).lower()
    if "name or service not known" in text or "nodename nor servname" in text or "getaddrinfo" in text or "name resolution" in text:
        return "the host name could not be resolved"
    return "nothing answered at that address (the connection was refused or failed)"


def decode(page: FetchedPage) -> str:
    """The body as text: the declared charset, else an HTML <meta> charset, else UTF-8, else Windows-1252."""
    candidates = [page.charset]
    if match := _META_CHARSET.search(page.body[:4096]):
        candidates.append(match.group(1).decode("ascii"))
    for charset in candidates:
        if charset:
            try:
                return page.body.decode(charset, errors="replace")
            except LookupError:
                continue
    try:
        return page.body.decode("utf-8")
    except UnicodeDecodeError as exc:
        if page.cut and exc.start >= len(page.body) - 3:
            return page.body[: exc.start].decode("utf-8")
        return page.body.decode("cp1252", errors="replace")


def looks_like_html(text: str) -> bool:
    head = text[:1024].lstrip().lower()
    return head.startswith(("<!doctype html", "<html"))


def readable_text(html: str, url: str) -> tuple[str, str]:
    """(title, text) of an HTML page: trafilatura's Markdown, or the page's text with the tags stripped when it finds nothing."""
    from desktop_copilot.core.tools.html_text import TagStripper  # html.parser: loaded when a page is read

    stripped = TagStripper.text_of(html)
    try:
        import trafilatura
    except ImportError:  # a broken install still gives the stripped text
        log.warning("trafilatura cannot be imported; web_fetch strips tags instead", exc_info=True)
        return stripped.title, stripped.text
    title = ""
    try:
        metadata = trafilatura.extract_metadata(html, default_url=url, extensive=False)
        title = (metadata.title or "") if metadata is not None else ""
    except Exception:  # a page that breaks the metadata parser still has text
        log.debug("web_fetch: no metadata from %s", url, exc_info=True)
    text = None
    try:
        text = trafilatura.extract(html, url=url, output_format="markdown", include_links=True, include_tables=True, include_comments=False)
    except Exception:  # a page that breaks the extractor still has its stripped text
        log.debug("web_fetch: trafilatura failed on %s", url, exc_info=True)
    return title or stripped.title, (text or "").strip() or stripped.text


def format_page(page: FetchedPage, title: str, text: str, max_chars: int, max_body_bytes: int) -> str:
    lines = [f"URL: {page.url}"]
    if page.redirected_from:
        lines.append(f"Redirected from: {page.redirected_from}")
    if title:
        lines.append(f"Title: {title}")
    text = text.strip()
    notes = []
    if page.cut:
        notes.append(f"[The page is larger than {max_body_bytes // 1024} KB; only its first {max_body_bytes // 1024} KB were read, so the text is cut.]")
    if len(text) > max_chars:
        notes.append(f"[Text cut at {max_chars:,} of {len(text):,} characters; call again with a larger max_chars (up to 100,000) for more.]")
        text = text[:max_chars].rstrip()
    return "\n".join(lines) + "\n\n" + (text or "(The page has no readable text.)") + ("\n\n" + "\n".join(notes) if notes else "")
