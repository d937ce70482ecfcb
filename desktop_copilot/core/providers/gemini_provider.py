"""The Gemini provider: owns an httpx client for the Gemini API (key in the `x-goog-api-key` header, never in a
URL), streams `streamGenerateContent?alt=sse` as unified events and retries busy answers before the stream starts.

httpx rather than google-genai: httpx is a dependency already, and importing google-genai costs about 0.55 s more
(`python -X importtime`, with pydantic and httpx already loaded: 429 modules against httpx's 178)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.busy_retry import BUSY_STATUSES, busy_wait, retry_after, too_long_words
from desktop_copilot.core.providers.deadlines import DEFAULT_DEADLINES, StreamDeadlines, StreamTimeout, idle_watched, open_within
from desktop_copilot.core.providers.gemini_wire import PROVIDER_ID, GeminiEventMapper, build_body
from desktop_copilot.core.providers.request_log import RequestLog
from desktop_copilot.core.keys.secrets import Secret

if TYPE_CHECKING:  # httpx is imported on first use, not at start-up
    import httpx

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
"""Longest wait (seconds) a busy answer may ask for before a retry; a longer one is reported to the user instead."""
MAX_MODEL_PAGES = 5
_RAW_LINES_LIMIT = 200
_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


class GeminiAPIError(Exception):
    """A Gemini API error in words (never the key), from `list_models`."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


def _error_body(raw: bytes | str) -> tuple[dict[str, Any], str]:
    """(the `error` object, its message) of a Google API error body, or ({}, the body shortened)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}, " ".join(text.split())[:300]
    if isinstance(data, list) and data and isinstance(data[0], dict):  # some proxies wrap it in an array
        data = data[0]
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return {}, " ".join(text.split())[:300]
    return error, str(error.get("message") or error.get("status") or "").strip()


def _reasons(error: dict[str, Any]) -> set[str]:
    return {str(d.get("reason")) for d in error.get("details") or [] if isinstance(d, dict) and d.get("reason")}


def describe_error(status: int | None, raw: bytes | str, model: str = "") -> str:
    """A sentence for the user about a Gemini API error, with what to do about it."""
    error, detail = _error_body(raw)
    kind = str(error.get("status") or "")
    detail = detail or kind or "no details"
    if status is None:
        return f"Gemini reported an error ({kind or 'error'}: {detail})."
    if status == 200:
        return f"Gemini reported an error mid-reply ({kind or 'error'}: {detail}). The partial reply was kept."
    if status in (401, 403) or kind in ("UNAUTHENTICATED", "PERMISSION_DENIED") or "API_KEY_INVALID" in _reasons(error):
        return f"Gemini rejected the key ({status}: {detail}). Check the Gemini key in Settings or GEMINI_API_KEY."
    if status == 404:
        return f"Gemini has no model {model!r} here (404: {detail}). Check the model name and the base URL."
    if status == 429:
        return f"Rate limited by Gemini (429: {detail}). Wait a moment and retry."
    if status in (500, 502, 503, 504):
        return f"Gemini is overloaded or failing ({status}: {detail}). Retry in a little while."
    if status == 400:
        return f"Gemini refused the request (400: {detail})."
    return f"Gemini answered {status}: {detail}"


def retry_delay(headers: Any, raw: bytes) -> float | None:
    """Seconds the server asks us to wait: `Retry-After` (seconds or a date), else Google's `RetryInfo`."""
    asked = retry_after(headers)
    if asked is not None:
        return asked
    error, _ = _error_body(raw)
    for detail in error.get("details") or []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = _DELAY.match(str(detail.get("retryDelay") or ""))
            if match:
                return float(match.group(1))
    return None


class GeminiProvider:
    """Streams Gemini replies over httpx (imported on first use)."""

    def __init__(self, api_key: Secret, base_url: str = DEFAULT_BASE_URL, *, max_retries: int = 3, timeout: float = 600.0,
                 deadlines: StreamDeadlines = DEFAULT_DEADLINES) -> None:
        self._deadlines = deadlines
        url = (base_url or DEFAULT_BASE_URL).strip().rstrip("/")
        for suffix in ("/v1beta", "/v1"):  # a base URL copied with its version
            url = url.removesuffix(suffix)
        self._api_key = api_key
        self._base_url = url
        self._max_retries = max(0, max_retries)
        self._timeout = timeout
        self._client: httpx.AsyncClient | None = None

    def __repr__(self) -> str:
        return f"GeminiProvider(base_url={self._base_url!r}, api_key={self._api_key!r})"

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient(
                headers={"x-goog-api-key": self._api_key.reveal()},
                timeout=httpx.Timeout(self._timeout, connect=min(self._timeout, 15.0)),
            )
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP connections (call before the event loop closes)."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    async def list_models(self) -> list[str]:
        """Ids (without `models/`) of the models that generate content, from `GET /v1beta/models`, following
        `nextPageToken` for a few pages. Raises GeminiAPIError in words, or httpx's connection errors."""
        started = time.monotonic()
        ids: list[str] = []
        token = ""
        for _ in range(MAX_MODEL_PAGES):
            params = {"pageSize": "1000", **({"pageToken": token} if token else {})}
            response = await self.client().get(f"{self._base_url}/v1beta/models", params=params)
            if response.status_code >= 400:
                message = self._api_key.redact(describe_error(response.status_code, response.content))
                raise GeminiAPIError(message, response.status_code)
            data = response.json()
            for model in data.get("models") or []:
                methods = model.get("supportedGenerationMethods")
                if methods is None or "generateContent" in methods or "streamGenerateContent" in methods:
                    ids.append(str(model.get("name") or "").removeprefix("models/"))
            token = data.get("nextPageToken") or ""
            if not token:
                break
        log.info("gemini models list: %d models in %.3fs", len(ids), time.monotonic() - started)
        return [i for i in ids if i]

    def _url(self, model: str) -> str:
        name = quote(model.strip().removeprefix("models/"), safe="-._~")
        return f"{self._base_url}/v1beta/models/{name}:streamGenerateContent"

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ev.Event]:
        import httpx

        record = RequestLog(PROVIDER_ID, request)
        mapper = GeminiEventMapper()
        failure: ev.Error | None = None
        interruption = "The stream ended before Gemini said the reply was finished"
        stall = ""
        try:
            try:
                body = build_body(request)
                for attempt in range(self._max_retries + 1):
                    try:
                        async with contextlib.AsyncExitStack() as stack:
                            opening = self.client().stream("POST", self._url(request.model), params={"alt": "sse"}, json=body)
                            response = await open_within(self._deadlines, stack, opening)
                            record.response(response)
                            record.retries = attempt
                            if response.status_code >= 400:
                                raw = await response.aread()
                                wait = self._retry_wait(response.status_code, response.headers, raw, attempt)
                                if wait is not None:
                                    log.info("gemini answered %d: retrying in %.1fs", response.status_code, wait)
                                    await asyncio.sleep(wait)
                                    continue
                                failure = self._http_failure(response.status_code, response.headers, raw, request.model)
                                break
                            async with contextlib.aclosing(self._events(response, mapper, request.model)) as events:
                                async for event in events:  # an error is the last event
                                    if isinstance(event, ev.Error):
                                        failure = event
                                    else:
                                        record.event(event)
                                        yield event
                            break
                    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                        if attempt >= self._max_retries:
                            raise
                        log.info("gemini unreachable (%s): retrying", type(exc).__name__)
                        await asyncio.sleep(min(8.0, 0.5 * 2**attempt))
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol) as exc:
                record.error(exc)
                failure = ev.Error(reason="error", message=f"Could not reach Gemini at {self._base_url}: {exc or type(exc).__name__}.")
            except StreamTimeout as exc:
                record.error(exc)
                failure = exc.as_error("Gemini", started=mapper.started)
                if mapper.started:  # the end of what came: its open blocks closed, then the stall
                    failure, stall = None, exc.describe("Gemini", started=True)
            except httpx.TransportError as exc:  # the connection broke or went silent mid-reply
                record.error(exc)
                interruption = f"The connection to Gemini broke before the reply finished ({type(exc).__name__}: {exc or 'no details'})"
                failure = None if mapper.started else ev.Error(reason="error", message=f"{interruption}.")
            except Exception as exc:  # a broken stream must not escape as an exception
                log.exception("unexpected failure while streaming from Gemini")
                interruption = f"{type(exc).__name__}: {exc}"
                failure = None if mapper.started else ev.Error(reason="error", message=f"{interruption}.")
            if failure is None:  # the end of the stream: done, the error its finish reason means, or interrupted
                for event in mapper.finish(interruption):
                    if isinstance(event, ev.Error):
                        event.message = self._api_key.redact(stall or event.message)
                    record.event(event)
                    yield event
            else:
                failure.message = self._api_key.redact(failure.message)
                record.event(failure)
                yield failure
        finally:
            record.finish()

    def _retry_wait(self, status: int, headers: Any, raw: bytes, attempt: int) -> float | None:
        """Seconds to wait before retrying a busy answer, or None to give up."""
        return busy_wait(status, retry_delay(headers, raw), attempt, self._max_retries)

    def _http_failure(self, status: int, headers: Any, raw: bytes, model: str) -> ev.Error:
        asked = retry_delay(headers, raw) if status in BUSY_STATUSES else None
        return ev.Error(reason="error", message=describe_error(status, raw, model) + too_long_words(asked, "Gemini"), status_code=status)

    async def _events(self, response: httpx.Response, mapper: GeminiEventMapper, model: str) -> AsyncIterator[ev.Event]:
        """Unified events from the SSE body: each event's `data:` lines joined, CRLF or LF; a raw JSON object
        outside `data:` lines (how Google writes an error into a stream) is read whole. An error ends it."""
        async with contextlib.aclosing(self._chunks(response)) as chunks:
            async for text in chunks:
                events = self._chunk_events(text, mapper, model)
                for event in events:
                    yield event
                if events and isinstance(events[-1], ev.Error):
                    return

    async def _chunks(self, response: httpx.Response) -> AsyncIterator[str]:
        """The JSON text of each SSE event (`data:` lines joined), or of a raw JSON object written line by line."""
        data: list[str] = []
        raw: list[str] = []
        async with contextlib.aclosing(idle_watched(self._deadlines, response.aiter_lines())) as lines:
            async for line in lines:
                if line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
                elif line == "":
                    if data:
                        yield "\n".join(data)
                        data = []
                elif not line.startswith((":", "event:", "id:", "retry:")):
                    raw.append(line)  # not SSE: a JSON body written line by line
                    try:
                        json.loads("\n".join(raw))
                    except json.JSONDecodeError:
                        if len(raw) < _RAW_LINES_LIMIT:
                            continue
                    yield "\n".join(raw)
                    raw = []
        leftover = "\n".join(data or raw)
        if leftover.strip():  # the last event without its blank line: read anyway, as Google's SDK does
            try:
                json.loads(leftover)
            except json.JSONDecodeError:  # cut off with the body: the reply was interrupted there
                log.warning("gemini's stream ended inside an event (%d characters)", len(leftover))
                return
            yield leftover

    @staticmethod
    def _chunk_events(text: str, mapper: GeminiEventMapper, model: str) -> list[ev.Event]:
        try:
            chunk = json.loads(text)
        except json.JSONDecodeError:
            chunk = None
        if isinstance(chunk, dict) and isinstance(chunk.get("error"), dict):  # an error written into the stream
            code = chunk["error"].get("code")
            status = code if isinstance(code, int) else None
            return [ev.Error(reason="error", message=describe_error(200 if mapper.started else status, text, model),
                             status_code=status)]
        if not isinstance(chunk, dict):
            if mapper.finished:  # trailing noise after a finished reply changes nothing
                log.warning("gemini sent a stream chunk that is not a JSON object after the reply finished")
                return []
            shown = " ".join(text.split())[:200]
            kept = " The partial reply was kept." if mapper.started else ""
            return [ev.Error(reason="error", message=f"Gemini sent a stream chunk that is not a JSON object ({shown!r}); "
                                                     f"the reply was cut there.{kept}")]
        return mapper.feed(chunk)

