"""The Chat Completions provider (OpenAI and compatible vendors): owns the openai SDK client (key, base URL,
retries, headers) and streams unified events; the vendor id picks the wire rules."""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.catalog import PROVIDERS
from desktop_copilot.core.providers.chat_completions_wire import ChatCompletionsEventMapper, build_params
from desktop_copilot.core.providers.busy_retry import call_retrying, open_retrying, sdk_retry_wait
from desktop_copilot.core.providers.deadlines import DEFAULT_DEADLINES, StreamDeadlines, StreamTimeout, idle_watched
from desktop_copilot.core.providers.request_log import RequestLog
from desktop_copilot.core.keys.redaction import redact_error_in_place
from desktop_copilot.core.providers.stream_reader import SSEReader
from desktop_copilot.core.keys.secrets import Secret

log = logging.getLogger(__name__)

INTERRUPTED_MESSAGE = "The connection closed before the reply finished. The partial reply was kept."
KEPT = " The partial reply was kept."


def vendor_name(vendor: str) -> str:
    """The vendor's label in the catalog ("Moonshot (Kimi)"), or the id of a vendor the catalog lacks."""
    spec = PROVIDERS.get(vendor)
    return spec.label if spec is not None else vendor


def _error_parts(body: Any, fallback: str) -> tuple[str, str]:
    """(kind, message) of an error body: OpenAI's `{"error": {message, type, code}}` or its inner object, a
    flat `{"message"}` / `{"detail"}`, or plain text."""
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        message = inner.get("message") or inner.get("detail") or body.get("message") or ""
        kind = inner.get("type") or inner.get("code") or ""
        return str(kind), str(message) or fallback
    if isinstance(body, str) and body.strip():
        return "", body.strip()[:300]
    return "", fallback


def describe_status_error(vendor: str, status: int | None, body: Any, fallback: str) -> str:
    """A sentence for the user about an HTTP error from the vendor, with what to do about it."""
    name = vendor_name(vendor)
    kind, detail = _error_parts(body, fallback)
    code = str(body.get("code") or "") if isinstance(body, dict) else ""
    if status == 401:
        return f"The {name} API rejected the key (401: {detail}). Check the key in Settings."
    if status == 402:
        return f"The {name} account has no credit left (402: {detail}). Top it up, then retry."
    if status == 403:
        return f"The {name} key is not allowed to do this (403: {detail})."
    if status == 404:
        return f"Not found at {name} (404: {detail}). Check the model name and the base URL."
    if status == 429 and "insufficient_quota" in (code, kind):
        return f"The {name} account has run out of quota (429: {detail}). Check its plan and billing."
    if status == 429:
        return f"Rate limited by the {name} API (429: {detail}). Wait a moment and retry."
    if status in (400, 413, 422):
        return f"The {name} API refused the request ({status}: {detail})."
    if status is not None and status >= 500:
        return f"The {name} API failed ({status}: {detail}). Retry in a little while."
    if status:
        return f"The {name} API answered {status}: {detail}"
    return detail


def describe_stream_error(vendor: str, body: Any, fallback: str, *, started: bool) -> str:
    """Words for an error object the vendor sent inside a 200 stream."""
    kind, detail = _error_parts(body, fallback)
    what = f"{kind}: {detail}" if kind else detail
    if started:
        return f"The {vendor_name(vendor)} API reported an error mid-reply ({what}).{KEPT}"
    return f"The {vendor_name(vendor)} API reported an error ({what})."


def _stream_error(response: Any, error: Any) -> Exception:
    """What the SDK raises for an error object inside a 200 stream: an APIError with the inner object as body."""
    import openai

    message = error.get("message") if isinstance(error, dict) else None
    if not message or not isinstance(message, str):
        message = "An error occurred during streaming"
    return openai.APIError(message, response.request, body=error)


class ChatCompletionsProvider:
    """Streams replies from a Chat Completions endpoint through the openai SDK, imported on first use.
    `api_key` None: no Authorization header at all (local servers), and OPENAI_API_KEY is never read."""

    def __init__(
        self,
        api_key: Secret | None,
        base_url: str,
        *,
        vendor: str,
        max_retries: int = 3,
        timeout: float = 600.0,
        extra_headers: dict[str, str] | None = None,
        deadlines: StreamDeadlines = DEFAULT_DEADLINES,
    ) -> None:
        self._api_key = api_key
        self._deadlines = deadlines
        self._base_url = base_url
        self.vendor = vendor
        self._max_retries = max_retries
        self._timeout = timeout
        self._extra_headers = dict(extra_headers or {})
        self._client: Any = None

    def __repr__(self) -> str:
        return f"ChatCompletionsProvider(vendor={self.vendor!r}, base_url={self._base_url!r}, api_key={self._api_key!r})"

    def client(self) -> Any:
        if self._client is None:
            import openai

            async def no_key() -> str:
                return ""

            self._client = openai.AsyncOpenAI(
                api_key=self._api_key.reveal() if self._api_key is not None else no_key,
                base_url=self._base_url,
                max_retries=0,  # the stream retries a busy answer itself (busy_retry), each try within its deadline
                timeout=self._timeout,
                default_headers=self._extra_headers or None,
            )
            if self.vendor != "openai":  # OPENAI_ORG_ID / OPENAI_PROJECT_ID are OpenAI's, not another vendor's
                self._client.organization = self._client.project = None
        return self._client

    def _auth_options(self) -> dict[str, Any]:
        """Per-request options: without a key the SDK wants the Authorization header omitted explicitly."""
        if self._api_key is not None:
            return {}
        import openai

        return {"extra_headers": {"Authorization": openai.Omit()}}

    async def aclose(self) -> None:
        """Close the SDK's HTTP connections (call before the event loop closes)."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    async def list_models(self) -> list[str]:
        """Model ids from `GET /models` (raises the SDK's errors)."""
        started = time.monotonic()
        import openai

        try:
            page, _ = await call_retrying(lambda: self.client().models.list(**self._auth_options()), sdk_retry_wait(openai, self._max_retries))
        except openai.APIError as exc:  # the SDK's message and body may quote the key a server echoed back
            raise redact_error_in_place(exc)
        ids = [model.id for model in page.data]
        log.info("%s models list: %d models in %.3fs", self.vendor, len(ids), time.monotonic() - started)
        return ids

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ev.Event]:
        import httpx2  # the SDK's transport
        import openai

        mapper = ChatCompletionsEventMapper(position=len(request.messages))
        record = RequestLog(self.vendor, request)
        failure: ev.Error | None = None
        try:
            try:
                # The SDK sends the request (auth, HTTP errors); the body's chunks are read here as plain
                # JSON: no SDK object is built per chunk (the largest CPU cost per delta of `create(stream=True)`).
                async with contextlib.AsyncExitStack() as stack:
                    params = build_params(request, vendor=self.vendor)
                    opened, retries = await open_retrying(
                        self._deadlines, stack,
                        lambda: self.client().chat.completions.with_streaming_response.create(**params, stream=True, **self._auth_options()),
                        sdk_retry_wait(openai, self._max_retries))
                    http = opened.http_response
                    record.response(http)
                    record.retries = retries
                    if not record.request_id:
                        record.request_id = http.headers.get("x-request-id", "")
                    reader = SSEReader()
                    done = False
                    chunks = await stack.enter_async_context(contextlib.aclosing(idle_watched(self._deadlines, http.aiter_bytes())))
                    async for raw in chunks:
                        if done:  # after [DONE] the rest is read (and ignored) so the connection can be reused
                            continue
                        for _name, data in reader.feed(raw):
                            if data.startswith(b"[DONE]"):
                                done = True
                                break
                            chunk = json.loads(data)
                            if isinstance(chunk, dict) and chunk.get("error"):  # an error object inside a 200 stream
                                raise _stream_error(http, chunk["error"])
                            for event in mapper.feed(chunk):
                                record.event(event)
                                yield event
            except openai.APIStatusError as exc:
                record.error(exc)
                message = describe_status_error(self.vendor, exc.status_code, exc.body, exc.message)
                failure = ev.Error(reason="error", message=message, status_code=exc.status_code)
            except (openai.APIConnectionError, httpx2.TransportError) as exc:
                if record.status is None:  # else the 200 it had stays in the log line
                    record.error(exc)
                if not mapper.finished:
                    failure = self._connection_failure(mapper.started, exc)
            except openai.APIError as exc:  # an error object inside a 200 stream
                message = describe_stream_error(self.vendor, exc.body, exc.message, started=mapper.started)
                failure = ev.Error(reason="error", message=message)
            except json.JSONDecodeError as exc:
                message = f"The {self._name} API sent a chunk that is not JSON ({exc})."
                failure = ev.Error(reason="error", message=message + (KEPT if mapper.started else ""))
            except StreamTimeout as exc:
                record.error(exc)
                failure = exc.as_error(f"the {self._name} API", started=mapper.started)
            except Exception as exc:  # a broken stream must not escape as an exception
                log.exception("unexpected failure while streaming from %s", self.vendor)
                detail = f"{type(exc).__name__}: {exc}."
                failure = ev.Error(reason="interrupted" if mapper.started else "error",
                                   message=detail + (KEPT if mapper.started else ""))
            if failure is None:
                if mapper.finished:
                    for event in mapper.finish():
                        record.event(event)
                        yield event
                else:
                    failure = ev.Error(reason="interrupted", message=INTERRUPTED_MESSAGE)
            if failure is not None:
                if self._api_key is not None:
                    failure.message = self._api_key.redact(failure.message)
                record.event(failure)
                yield failure
        finally:
            record.finish()

    @property
    def _name(self) -> str:
        return vendor_name(self.vendor)

    def _connection_failure(self, started: bool, exc: Exception) -> ev.Error:
        if started:
            return ev.Error(reason="interrupted", message=INTERRUPTED_MESSAGE)
        cause = exc.__cause__ or exc.__context__
        why = f"{exc} ({type(cause).__name__}: {cause})" if cause is not None and str(cause) else str(exc)
        return ev.Error(reason="error", message=f"Could not reach the {self._name} API at {self._base_url}: {why}")
