"""The stream skeleton every provider shares: the request retried as one loop for every wire (busy answers,
unreachable servers, a provider's fall-back to a plainer request), the first-byte and idle deadlines, the SSE and
NDJSON readers, the status-to-sentence words, "interrupted if it had started, else failed", redaction and the request
log line. A provider module keeps only what differs: its client, how it opens one try, how it reads one frame, and its
own words where the shared ones fall short."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, ClassVar, Literal, Protocol, TypeVar

import jiter

from desktop_copilot.core.context.overflow import is_context_overflow, overflow_words as overflow_sentence
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.busy_retry import BUSY_STATUSES, backoff, busy_wait, note_retry, retry_after, too_long_words
from desktop_copilot.core.providers.deadlines import DEFAULT_DEADLINES, StreamDeadlines, StreamTimeout, idle_watched, open_within
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.request_log import RequestLog
from desktop_copilot.core.providers.status_words import capitalised, error_parts, status_sentence
from desktop_copilot.core.providers.stream_reader import LineReader, SSEReader
from desktop_copilot.core.words import N_, tr

log = logging.getLogger(__name__)
T = TypeVar("T")

KEPT = N_(" The partial reply was kept.")
"""Appended to a message when what came of the reply stays (translate it with tr where it is used)."""
MAX_TRAILING_BYTES = 65536
"""Bytes read after a reply's end before the rest of the body is dropped (servers send none, or `[DONE]`)."""


class HttpFailure(Exception):
    """An error answer: its status, headers and body (bytes, text or the JSON an SDK already read)."""

    def __init__(self, status: int, headers: Any, body: Any, message: str = "") -> None:
        super().__init__(message or f"HTTP {status}")
        self.status = status
        self.headers = headers if headers is not None else {}
        self.body = body

    def detail(self, fallback: str = "") -> str:
        return error_parts(self.body, fallback or str(self))[1]


class StreamFault(Exception):
    """What came in the body cannot go on: an error the provider wrote into its stream, or a frame that cannot be
    read. `event` is the error to end the reply with (its words already say whether the partial reply was kept)."""

    def __init__(self, event: ev.Error) -> None:
        super().__init__(event.message)
        self.event = event


class Mapper(Protocol):
    """A wire's stream mapper, fed one frame at a time by its provider."""

    parts: Parts
    started: bool
    finished: bool
    """The wire said the reply is complete (its stop reason arrived); a body that ends before is an interruption."""
    drained: bool
    """Nothing more is to be read from the body (the rest is read and dropped)."""

    def finish(self) -> list[ev.Event]:
        """The closing events of a finished reply, once its body ended: open parts closed, then `done`."""
        ...

    def close(self) -> list[ev.Event]:
        """Everything still open ends (held-back text given out first), before the error that cuts the reply."""
        ...


class StreamingProvider:
    """The skeleton of `Provider.stream`, with the hooks a wire fills in (see the module docstring)."""

    framing: ClassVar[Literal["sse", "ndjson"]] = "sse"
    busy_statuses: ClassVar[frozenset[int]] = BUSY_STATUSES
    reads_unterminated_frame: ClassVar[bool] = False
    """Whether a last frame without its terminator (no blank line, no newline) is read when it is whole JSON, as
    Google's SDK and Ollama's client do (the SSE rules drop it)."""
    frame_name: ClassVar[str] = "chunk"
    """What one frame is called in words ("event", "line")."""
    retries_unreachable: bool = True
    """Whether a server that cannot be reached is asked again (a local one that is not running is said so at once)."""

    def __init__(self, *, key: Secret | None, base_url: str, deadlines: StreamDeadlines = DEFAULT_DEADLINES,
                 max_retries: int = 3, timeout: float = 600.0) -> None:
        self._api_key = key
        self._base_url = base_url
        self._deadlines = deadlines
        self._max_retries = max(0, max_retries)
        self._timeout = timeout
        self._client: Any = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self._base_url!r}, api_key={self._api_key!r})"

    # --- what a wire fills in -------------------------------------------------------------

    log_name: str = "provider"
    """The provider id in the request log line."""
    wire: ClassVar[str] = ""
    """The wire format ("anthropic", "chat_completions", "gemini", "ollama"): whose overflow bodies to recognise."""

    @property
    def noun(self) -> str:
        """The provider as a noun in a sentence: "the Anthropic API", "Gemini"."""
        raise NotImplementedError

    def client(self) -> Any:
        """The wire's HTTP or SDK client, made at first use (kept in `_client`)."""
        raise NotImplementedError

    def new_mapper(self, request: ProviderRequest) -> Mapper:
        raise NotImplementedError

    def open_try(self, request: ProviderRequest) -> AbstractAsyncContextManager[Any]:
        """One try of the request: an async context manager giving the streamed response (`status_code`, `headers`,
        `aiter_bytes()`, `aread()`), or raising what `as_http_failure` turns into an HttpFailure."""
        raise NotImplementedError

    def map_frame(self, mapper: Mapper, name: str, data: bytes) -> list[ev.Event]:
        """The events of one frame (`name` is the SSE event name, "" for NDJSON); raises StreamFault to end the reply."""
        raise NotImplementedError

    def as_http_failure(self, exc: BaseException) -> HttpFailure | None:
        """An SDK's exception for an error answer as an HttpFailure (None: not an error answer)."""
        return exc if isinstance(exc, HttpFailure) else None

    def is_unreachable(self, exc: BaseException) -> bool:
        """Whether `exc` says the server could not be reached at all (worth another try, and said as such)."""
        return False

    def is_broken_connection(self, exc: BaseException) -> bool:
        """Whether `exc` is the transport failing (a dropped connection, a reset) rather than a bug."""
        return False

    def fall_back(self, request: ProviderRequest, failure: HttpFailure) -> bool:
        """Whether to send the request again in a plainer form after `failure` (remembering why)."""
        return False

    def asked_wait(self, failure: HttpFailure) -> float | None:
        """Seconds a busy answer asks the app to wait (its `Retry-After`)."""
        return retry_after(failure.headers)

    def failure_words(self, failure: HttpFailure, request: ProviderRequest) -> str:
        """The sentence for an error answer (the shared table; a wire overrides rows it says better)."""
        return status_sentence(self.noun, failure.status, failure.detail(), key_hint=self.key_hint)

    def is_overflow(self, status: int | None, body: Any) -> bool:
        """Whether an error answer (`status` None or 200: an error inside the stream) says the request is larger than
        the model's context window (core/context/overflow.py; a wire refines it where its vendors say more)."""
        return is_context_overflow(self.wire, status, body)

    def overflow_words(self, status: int | None, detail: str) -> str:
        """The sentence for an overflow: what happened in the provider's words, and what comes next."""
        said = tr("{noun} answered {status}: {detail}").format(noun=self.noun, status=status, detail=detail) \
            if status and status != 200 else tr("{noun} said: {detail}").format(noun=self.noun, detail=detail)
        return overflow_sentence(said)

    def list_words(self, failure: HttpFailure) -> str:
        """The sentence for an error answer to a request other than a stream (the model list)."""
        return status_sentence(self.noun, failure.status, failure.detail(), key_hint=self.key_hint)

    key_hint: str = ""
    """Where else the key is set, for "Check the key in Settings or …" ("ANTHROPIC_API_KEY")."""

    def unreachable_words(self, exc: BaseException) -> str:
        cause = exc.__cause__ or exc.__context__
        why = f"{exc} ({type(cause).__name__}: {cause})" if cause is not None and str(cause) and str(cause) not in str(exc) else (str(exc) or type(exc).__name__)
        return tr("Could not reach {noun} at {url}: {why}").format(noun=self.noun, url=self._base_url, why=why)

    def broken_words(self, exc: BaseException, *, started: bool) -> str:
        if started:
            return tr("The connection closed before the reply finished ({error}).").format(error=type(exc).__name__) + tr(KEPT)
        return tr("The connection to {noun} broke before the reply began ({error}: {details}).").format(
            noun=self.noun, error=type(exc).__name__, details=exc or tr("no details"))

    def cut_short(self, started: bool) -> ev.Error:
        """The body ended before the wire said the reply was complete."""
        if started:
            return ev.Error(reason="interrupted", message=tr("The stream from {noun} ended before the reply finished.").format(
                noun=self.noun) + tr(KEPT))
        return ev.Error(reason="error", message=tr("{Subject} ended its response before the reply began. Retry.").format(
            Subject=capitalised(self.noun)))

    # --- shared ------------------------------------------------------------------------------

    def malformed(self, mapper: Mapper, data: bytes | str, why: str = "") -> StreamFault:
        """The fault for a frame that cannot be read: the reply fails there, what came is kept."""
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        shown = why or repr(" ".join(text.split())[:200])
        words = tr("{Subject} sent a {frame} that is not a JSON object ({shown}); the reply was cut there.").format(
            Subject=capitalised(self.noun), frame=tr(self.frame_name), shown=shown)
        return StreamFault(ev.Error(reason="error", message=words + (tr(KEPT) if mapper.started else "")))

    def decode(self, mapper: Mapper, data: bytes) -> dict[str, Any]:
        """A frame's JSON object, or the fault. Read by jiter (the Rust reader the Anthropic and OpenAI SDKs read their
        streams with: a frame in less than half json's time); what it refuses is read by json, whose reading is the
        one that counts (it keeps a lone surrogate escape, which clean_text mends, where jiter gives up)."""
        try:
            value = jiter.from_json(data)
        except ValueError:
            value = self._json_value(mapper, data)
        if type(value) is not dict:
            raise self.malformed(mapper, data)
        return value

    def _json_value(self, mapper: Mapper, data: bytes) -> Any:
        """`data` read by json (decoded as text first: json.loads on bytes sniffs the encoding), or the fault."""
        try:
            return json.loads(data.decode())
        except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, or nested deeper than Python reads
            raise self.malformed(mapper, data, f"not JSON: {exc}") from None

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ev.Event]:
        record = RequestLog(self.log_name, request)
        mapper = self.new_mapper(request)
        failure: ev.Error | None = None
        ended = False
        try:
            try:
                if self._client is None:  # made off the event loop, before any deadline runs: a cold import of an SDK
                    await asyncio.to_thread(self.client)  # (1-2 s) is neither the server's silence nor a frozen window
                async with AsyncExitStack() as stack:
                    response, mapper = await self._open(request, stack, record, mapper)
                    chunks = await stack.enter_async_context(contextlib.aclosing(idle_watched(self._deadlines, response.aiter_bytes())))
                    async for events in self._events(chunks, mapper):
                        for event in events:
                            ended = type(event) is ev.Error  # the wire's own error line ends the reply (its parts closed)
                            record.event(self._redacted_error(event) if ended else event)
                            yield event
                            if ended:
                                break
                        if ended:
                            break
            except StreamFault as exc:
                failure = exc.event
            except StreamTimeout as exc:
                record.error(exc)
                if not mapper.finished:  # after the end of the reply, a body left open changes nothing
                    failure = exc.as_error(self.noun, started=mapper.started)
            except Exception as exc:  # a broken stream must not escape as an exception
                failure = self._failure_of(exc, mapper, record)
            if failure is None and not mapper.finished and not ended:
                failure = self.cut_short(mapper.started)
            if ended:
                endings: list[ev.Event] = []
            elif failure is None:
                endings = mapper.finish()
            else:
                endings = [*mapper.close(), failure] if mapper.started else [failure]
            for event in endings:
                record.event(self._redacted_error(event) if isinstance(event, ev.Error) else event)
                yield event
        finally:
            record.finish()

    async def _open(self, request: ProviderRequest, stack: AsyncExitStack, record: RequestLog, mapper: Mapper) -> tuple[Any, Mapper]:
        """The response, entered on `stack`, after at most `max_retries` retries of a busy or unreachable server and the
        fall-backs the provider makes; an error answer ends as a StreamFault in words."""
        tries = busy = 0
        while True:
            async with AsyncExitStack() as try_stack:  # a try that fails is closed here; the one that works is handed on
                response = None
                try:
                    response = await open_within(self._deadlines, try_stack, self.open_try(request))
                    record.response(response)
                    failure = None if response.status_code < 400 else HttpFailure(response.status_code, response.headers, await response.aread())
                except Exception as exc:
                    failure = self.as_http_failure(exc)
                    if failure is None and not self._asks_again(exc, tries):
                        raise
                    record.error(exc)
                if failure is None and response is not None:
                    record.retries = tries
                    await stack.enter_async_context(try_stack.pop_all())
                    return response, mapper
            tries += 1
            if failure is None:  # unreachable: asked again after a growing pause
                note_retry(backoff(tries - 1), tries, None, f"{self.log_name} unreachable")
                await asyncio.sleep(backoff(tries - 1))
                continue
            record.retries = tries - 1
            if self.fall_back(request, failure):
                mapper = self.new_mapper(request)
                continue
            asked = self.asked_wait(failure) if failure.status in self.busy_statuses else None
            wait = busy_wait(failure.status, asked, busy, self._max_retries, self.busy_statuses)
            if wait is not None:
                note_retry(wait, busy + 1, failure.status)
                await asyncio.sleep(wait)
                busy += 1
                continue
            overflow = self.is_overflow(failure.status, failure.body)
            words = self.overflow_words(failure.status, failure.detail()) if overflow else self.failure_words(failure, request)
            record.status = failure.status
            raise StreamFault(ev.Error(reason="error", message=words + too_long_words(asked, capitalised(self.noun)),
                                       status_code=failure.status, overflow=overflow))

    def _redacted_error(self, event: ev.Error) -> ev.Error:
        """`event` with every trace of the key masked in its words (a server may echo the key back)."""
        if self._api_key is not None:
            event.message = self._api_key.redact(event.message)
        return event

    def _asks_again(self, exc: BaseException, tries: int) -> bool:
        return self.retries_unreachable and self.is_unreachable(exc) and tries < self._max_retries

    async def _events(self, chunks: AsyncIterator[bytes], mapper: Mapper) -> AsyncIterator[list[ev.Event]]:
        """The events of the body, a list per network chunk (one generator step per chunk, not per event)."""
        reader = SSEReader(keep_other_lines=self.reads_unterminated_frame) if self.framing == "sse" else LineReader()
        sse = self.framing == "sse"
        feed, map_frame = reader.feed, self.map_frame
        trailing = 0
        async for chunk in chunks:
            if mapper.drained:  # the rest is read to the body's end, as a client that closes its streams whole; within reason
                trailing += len(chunk)
                if trailing > MAX_TRAILING_BYTES:
                    return
                continue
            frames = feed(chunk)
            if not frames:
                continue
            if len(frames) == 1:  # most chunks: one frame (a fault raised here leaves nothing of the chunk behind)
                events = map_frame(mapper, *frames[0]) if sse else map_frame(mapper, "", frames[0])
                if events:
                    yield events
                continue
            events = []
            try:
                for frame in frames:
                    events += map_frame(mapper, *frame) if sse else map_frame(mapper, "", frame)
                    if mapper.drained:
                        break
            except StreamFault:  # what the chunk gave before the fault is the reply's too
                if events:
                    yield events
                raise
            if events:
                yield events
        if mapper.drained or not self.reads_unterminated_frame:
            return
        for frame in reader.close():  # a last frame without its terminator: read when it is whole
            name, data = frame if sse else ("", frame)
            try:
                json.loads(data)
            except (ValueError, RecursionError):  # cut off with the body: the reply was interrupted there
                log.warning("%s's stream ended inside a frame (%d bytes)", self.log_name, len(data))
                return
            yield self.map_frame(mapper, name, data)

    def _failure_of(self, exc: Exception, mapper: Mapper, record: RequestLog) -> ev.Error | None:
        """The error that ends the reply for an exception out of the request or its body."""
        if record.status is None:  # else the status the response had stays in the log line
            record.error(exc)
        if self.is_unreachable(exc) and not mapper.started:
            return ev.Error(reason="error", message=self.unreachable_words(exc))
        if self.is_broken_connection(exc) or self.is_unreachable(exc):
            if mapper.finished:
                return None
            return ev.Error(reason="interrupted" if mapper.started else "error", message=self.broken_words(exc, started=mapper.started))
        log.exception("unexpected failure while streaming from %s", self.log_name, exc_info=exc)
        detail = f"{type(exc).__name__}: {exc}."
        return ev.Error(reason="interrupted" if mapper.started else "error", message=detail + (tr(KEPT) if mapper.started else ""))

    # --- other requests (the model list) ----------------------------------------------------

    async def retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        """What `call()` returns, asked again as a stream's opening is (a busy answer, an unreachable server); an error
        answer or an unreachable server ends as a ProviderError in words, without the key (and without the client's
        exception as its context: an SDK's message may quote the key a server echoed back)."""
        tries = busy = 0
        while True:
            try:
                return await call()
            except Exception as exc:
                pause, given_up = self._after_failure(exc, tries, busy)
                if given_up is None and pause is None:
                    raise
            if given_up is not None:  # raised here, outside the handler, so the client's exception is not attached
                raise given_up
            busy += pause[1]
            await asyncio.sleep(pause[0])
            tries += 1

    def _after_failure(self, exc: BaseException, tries: int, busy: int) -> tuple[tuple[float, int] | None, ProviderError | None]:
        """((seconds to wait, whether it was a busy answer), None) to ask again, (None, the error in words) to give up,
        or (None, None) when `exc` is not the server's doing (it goes on as it is)."""
        failure = self.as_http_failure(exc)
        if failure is None:
            if not self.is_unreachable(exc):
                return None, None
            if not self._asks_again(exc, tries):
                return None, self._redacted(ProviderError(self.unreachable_words(exc), unreachable=True), exc)
            note_retry(backoff(tries), tries + 1, None, f"{self.log_name} unreachable")
            return (backoff(tries), 0), None
        asked = self.asked_wait(failure) if failure.status in self.busy_statuses else None
        pause = busy_wait(failure.status, asked, busy, self._max_retries, self.busy_statuses)
        if pause is None:
            words = self.list_words(failure) + too_long_words(asked, capitalised(self.noun))
            return None, self._redacted(ProviderError(words, failure.status), exc)
        note_retry(pause, tries + 1, failure.status)
        return (pause, 1), None

    def json_object(self, response: Any) -> dict[str, Any]:
        """The JSON object of a 200 answer (a list's: {} when it is not an object); ProviderError in words when it is
        not JSON at all (a base URL that reaches a web page: a proxy's sign-in, another server)."""
        try:
            data = response.json()
        except ValueError:
            excerpt = " ".join(response.text[:160].split())
            words = tr("{Subject} answered {url} with something that is not JSON (“{excerpt}”). "
                       "Check the base URL in Settings ▸ Providers.").format(Subject=capitalised(self.noun), url=response.url,
                                                                            excerpt=excerpt)
            raise self._redacted(ProviderError(words, response.status_code), ValueError()) from None
        return data if isinstance(data, dict) else {}

    def _redacted(self, error: ProviderError, cause: BaseException) -> ProviderError:
        if self._api_key is not None:
            error.args = (self._api_key.redact(str(error)),)
        log.info("%s request failed: %s (%s)", self.log_name, error, type(cause).__name__)
        return error

    async def aclose(self) -> None:
        """Close the HTTP connections (call before the event loop closes)."""
        if self._client is not None:
            client, self._client = self._client, None
            closing = getattr(client, "aclose", None) or client.close
            await closing()


class ProviderError(Exception):
    """A provider's answer other than a stream (its model list) failed; the message says why in words, never the key.
    `unreachable`: nothing answered at all (a local server that is not running)."""

    def __init__(self, message: str, status_code: int | None = None, *, unreachable: bool = False) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.unreachable = unreachable
