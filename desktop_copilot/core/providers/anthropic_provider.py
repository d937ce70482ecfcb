"""The Anthropic provider: owns the SDK client (key, base URL, retries) and streams unified events."""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.anthropic_wire import AnthropicEventMapper, build_params
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.busy_retry import call_retrying, open_retrying, sdk_retry_wait
from desktop_copilot.core.providers.deadlines import DEFAULT_DEADLINES, StreamDeadlines, StreamTimeout, idle_watched
from desktop_copilot.core.providers.request_log import RequestLog
from desktop_copilot.core.keys.redaction import redact_error_in_place
from desktop_copilot.core.providers.stream_reader import SSEReader
from desktop_copilot.core.keys.secrets import Secret

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.anthropic.com"
INTERRUPTED_MESSAGE = "The connection closed before the reply finished. The partial reply was kept."


def describe_status_error(status: int | None, body: Any, fallback: str) -> str:
    """A sentence for the user about an API error, with what to do about it."""
    detail = ""
    if isinstance(body, dict):
        error = body.get("error") if isinstance(body.get("error"), dict) else body
        detail = str(error.get("message") or "") if isinstance(error, dict) else ""
        kind = error.get("type") if isinstance(error, dict) else None
    else:
        kind = None
    detail = detail or fallback
    if status == 200:  # an SSE `error` event after the reply had begun
        return f"The API reported an error mid-reply ({kind or 'error'}: {detail}). The partial reply was kept."
    if status == 401 or kind == "authentication_error":
        return f"The Anthropic API rejected the key (401: {detail}). Check the key in Settings or ANTHROPIC_API_KEY."
    if status == 403 or kind == "permission_error":
        return f"The key is not allowed to do this (403: {detail})."
    if status == 404 or kind == "not_found_error":
        return f"Not found (404: {detail}). Check the model name and the base URL."
    if status == 429 or kind == "rate_limit_error":
        return f"Rate limited by the API (429: {detail}). Wait a moment and retry."
    if status == 529 or kind == "overloaded_error":
        return f"The API is overloaded (529: {detail}). Retry in a little while."
    if status == 400 or kind == "invalid_request_error":
        return f"The API refused the request (400: {detail})."
    if status:
        return f"The API answered {status}: {detail}"
    return detail


def _stream_error(response: Any, data: bytes) -> Exception:
    """What the SDK raises for an SSE `error` event after a 200: an APIStatusError whose status is 200."""
    import anthropic

    text = data.decode("utf-8", "replace")
    try:
        body: Any = json.loads(text)
        message = f"{body}"
    except ValueError:
        body, message = text, text or f"Error code: {response.status_code}"
    return anthropic.APIStatusError(message, response=response, body=body)


class AnthropicProvider:
    """Streams Claude replies through the official SDK. The SDK is imported on first use."""

    def __init__(
        self,
        api_key: Secret,
        base_url: str | None = None,
        *,
        max_retries: int = 3,
        timeout: float = 600.0,
        deadlines: StreamDeadlines = DEFAULT_DEADLINES,
    ) -> None:
        self._api_key = api_key
        self._base_url = base_url or DEFAULT_BASE_URL
        self._max_retries = max_retries
        self._timeout = timeout
        self._deadlines = deadlines
        self._client: Any = None

    def __repr__(self) -> str:
        return f"AnthropicProvider(base_url={self._base_url!r}, api_key={self._api_key!r})"

    def client(self) -> Any:
        if self._client is None:
            import anthropic

            self._client = anthropic.AsyncAnthropic(
                api_key=self._api_key.reveal(),
                base_url=self._base_url,
                max_retries=0,  # the stream retries a busy answer itself (busy_retry), each try within its deadline
                timeout=self._timeout,
            )
        return self._client

    async def aclose(self) -> None:
        """Close the SDK's HTTP connections (call before the event loop closes)."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    async def list_models(self) -> list[str]:
        """Model ids from `GET /v1/models` (raises the SDK's errors)."""
        started = time.monotonic()
        import anthropic

        try:
            page, _ = await call_retrying(lambda: self.client().models.list(limit=100), sdk_retry_wait(anthropic, self._max_retries))
        except anthropic.APIError as exc:  # the SDK's message and body may quote the key a server echoed back
            raise redact_error_in_place(exc)
        log.info("anthropic models list: %d models in %.3fs", len(page.data), time.monotonic() - started)
        return [m.id for m in page.data]

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ev.Event]:
        import anthropic
        import httpx2  # the SDK's transport: its errors inside a stream reach us unwrapped

        mapper = AnthropicEventMapper()
        record = RequestLog("anthropic", request)
        failure: ev.Error | None = None
        try:
            try:
                # The SDK sends the request (auth, HTTP errors); the body's events are read here as plain
                # JSON: no SDK object is built per event (the largest CPU cost per delta of `messages.create(stream=True)`).
                async with contextlib.AsyncExitStack() as stack:
                    params = build_params(request)
                    opened, retries = await open_retrying(
                        self._deadlines, stack, lambda: self.client().messages.with_streaming_response.create(**params, stream=True),
                        sdk_retry_wait(anthropic, self._max_retries))
                    http = opened.http_response
                    record.response(http)
                    record.retries = retries
                    reader = SSEReader()
                    chunks = await stack.enter_async_context(contextlib.aclosing(idle_watched(self._deadlines, http.aiter_bytes())))
                    async for chunk in chunks:
                        for name, data in reader.feed(chunk):
                            if name == "error":
                                raise _stream_error(http, data)
                            if not name or name == "ping" or not data:  # as the SDK's stream skips them
                                continue
                            for event in mapper.feed(json.loads(data)):
                                record.event(event)
                                yield event
            except anthropic.APIStatusError as exc:
                record.error(exc)
                message = describe_status_error(exc.status_code, exc.body, exc.message)
                failure = ev.Error(reason="error", message=message, status_code=exc.status_code)
            except (anthropic.APIConnectionError, anthropic.APIResponseValidationError, httpx2.TransportError) as exc:
                record.error(exc)
                if not mapper.finished:
                    failure = self._connection_failure(mapper.started, exc)
            except StreamTimeout as exc:
                record.error(exc)
                failure = exc.as_error("the Anthropic API", started=mapper.started)
            except json.JSONDecodeError as exc:
                kept = " The partial reply was kept." if mapper.started else ""
                failure = ev.Error(reason="interrupted" if mapper.started else "error",
                                   message=f"The Anthropic API sent an event that is not JSON ({exc}); the reply was cut there.{kept}")
            except Exception as exc:  # a broken stream must not escape as an exception
                log.exception("unexpected failure while streaming")
                detail = f"{type(exc).__name__}: {exc}."
                failure = ev.Error(
                    reason="interrupted" if mapper.started else "error",
                    message=f"{detail} The partial reply was kept." if mapper.started else detail,
                )
            else:
                if not mapper.finished:
                    failure = ev.Error(reason="interrupted", message=INTERRUPTED_MESSAGE)
            if failure is not None:
                failure.message = self._api_key.redact(failure.message)
                record.event(failure)
                yield failure
        finally:
            record.finish()

    def _connection_failure(self, started: bool, exc: Exception) -> ev.Error:
        if started:
            return ev.Error(reason="interrupted", message=INTERRUPTED_MESSAGE)
        return ev.Error(reason="error", message=f"Could not reach the Anthropic API at {self._base_url}: {exc}")
