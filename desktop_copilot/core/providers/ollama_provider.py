"""The Ollama provider: owns an httpx client for a local or remote Ollama server (optional bearer key),
streams `/api/chat` as unified events, and falls back to prompt-protocol tools (or no thinking) for a
model that refuses them, remembering that per model."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.busy_retry import busy_wait, retry_after, too_long_words
from desktop_copilot.core.providers.deadlines import LOCAL_DEADLINES, StreamDeadlines, StreamTimeout, idle_watched, open_within
from desktop_copilot.core.providers.ollama_wire import OllamaEventMapper, build_body
from desktop_copilot.core.providers.request_log import RequestLog
from desktop_copilot.core.providers.stream_reader import LineReader
from desktop_copilot.core.keys.secrets import Secret

if TYPE_CHECKING:  # httpx is imported on first use, not at start-up
    import httpx

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "http://127.0.0.1:11434"
INTERRUPTED_MESSAGE = "The reply from Ollama stopped before it finished ({detail}). The partial reply was kept."
NO_TOOLS = "does not support tools"
NO_THINKING = "does not support thinking"
_LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
OLLAMA_BUSY = frozenset({429, 503, 529})
MAX_TRAILING_BYTES = 65536
"""Bytes read after the final line before the body is dropped (Ollama sends none)."""
"""Answers worth asking again: a hosted server's rate limit, a full queue (OLLAMA_MAX_QUEUE); a 500 is about the model."""


def _detail(body: bytes) -> str:
    """The error text of an Ollama error body (`{"error": "…"}`), else the body itself, shortened."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text[:300]
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    return str(error) if error else text[:300]


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


class OllamaProvider:
    """Streams replies from Ollama's native API over httpx (imported on first use)."""

    def __init__(self, base_url: str = DEFAULT_BASE_URL, *, api_key: Secret | None = None, timeout: float = 600.0,
                 max_retries: int = 3, deadlines: StreamDeadlines = LOCAL_DEADLINES) -> None:
        self._max_retries = max(0, max_retries)
        self._deadlines = deadlines
        url = (base_url or DEFAULT_BASE_URL).strip().rstrip("/")
        self._base_url = url.removesuffix("/api") if url.endswith("/api") else url
        self._api_key = api_key
        self._timeout = timeout
        self._client: httpx.AsyncClient | None = None
        self._prompt_tool_models: set[str] = set()
        self._no_think_models: set[str] = set()

    def __repr__(self) -> str:
        return f"OllamaProvider(base_url={self._base_url!r}, api_key={self._api_key!r})"

    def uses_prompt_tools(self, model: str) -> bool:
        """Whether `model` turned native tools down, so its tools go through the prompt protocol."""
        return model in self._prompt_tool_models

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            headers = {"Authorization": f"Bearer {self._api_key.reveal()}"} if self._api_key else {}
            url = urlsplit(self._base_url)
            local = (url.hostname or "") in _LOOPBACK_HOSTS
            self._client = httpx.AsyncClient(
                base_url=self._base_url,
                headers=headers,
                timeout=httpx.Timeout(self._timeout, connect=min(self._timeout, 10.0)),
                trust_env=not local,  # a proxy from the environment must not catch a local server
                # Requests go to base_url only (no redirects followed): a plain-HTTP server never uses TLS, so the
                # certificate store is not loaded for it (about 20 ms of CPU per client).
                verify=url.scheme != "http",
            )
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP connections (call before the event loop closes)."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    async def list_models(self) -> list[str]:
        """Names of the models pulled on the server, from `GET /api/tags` (raises httpx's errors)."""
        started = time.monotonic()
        response = await self.client().get("/api/tags")
        response.raise_for_status()
        models = [m.get("name") or m.get("model") for m in response.json().get("models") or []]
        log.info("ollama models list: %d models in %.3fs", len(models), time.monotonic() - started)
        return [name for name in models if name]

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ev.Event]:
        import httpx

        record = RequestLog("ollama", request)
        mapper = OllamaEventMapper()
        failure: ev.Error | None = None
        try:
            try:
                fallbacks = busy_tries = 0  # at most one fallback each for tools and thinking; retries of a busy answer
                while True:
                    prompt_tools = request.model in self._prompt_tool_models
                    body = build_body(request, prompt_tools=prompt_tools,
                                      think_supported=request.model not in self._no_think_models)
                    mapper = OllamaEventMapper(prompt_tools=prompt_tools and bool(request.tools))
                    async with contextlib.AsyncExitStack() as stack:
                        response = await open_within(self._deadlines, stack, self.client().stream("POST", "/api/chat", json=body))
                        record.response(response)
                        record.retries = fallbacks + busy_tries
                        if response.status_code >= 400:
                            detail = _detail(await response.aread())
                            if fallbacks < 2 and self._fall_back(request, response.status_code, detail):
                                fallbacks += 1
                                continue
                            asked = retry_after(response.headers)
                            wait = busy_wait(response.status_code, asked, busy_tries, self._max_retries, OLLAMA_BUSY)
                            if wait is not None:
                                log.info("ollama answered %d: retrying in %.1fs", response.status_code, wait)
                                busy_tries += 1
                                await asyncio.sleep(wait)
                                continue
                            failure = ev.Error(reason="error", status_code=response.status_code,
                                               message=self._describe(response.status_code, detail, request.model) + too_long_words(asked, "Ollama"))
                            break
                        reader = LineReader()  # lines cut from the bytes: cheaper than httpx's text decoding per line
                        chunks = await stack.enter_async_context(contextlib.aclosing(idle_watched(self._deadlines, response.aiter_bytes())))
                        trailing = 0
                        async for chunk in chunks:
                            if mapper.finished or mapper.failed:  # the rest is read to the body's end, as a client
                                trailing += len(chunk)            # that closes its streams whole; within reason
                                if trailing > MAX_TRAILING_BYTES:
                                    break
                                continue
                            for line in reader.feed(chunk):
                                for event in self._map_line(mapper, line):
                                    record.event(event)
                                    yield event
                                if mapper.finished or mapper.failed:
                                    break
                        if not (mapper.finished or mapper.failed):
                            for line in reader.close():  # a last line without its line end
                                if not _is_json(line):  # cut off with the body: the reply was interrupted there
                                    log.warning("ollama's stream ended inside a line (%d bytes)", len(line))
                                    break
                                for event in self._map_line(mapper, line):
                                    record.event(event)
                                    yield event
                                if mapper.finished or mapper.failed:
                                    break
                    break
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol) as exc:
                record.error(exc)
                failure = ev.Error(reason="error", message=f"Could not reach Ollama at {self._base_url}; is it running "
                                                           f"(`ollama serve`)? ({exc or type(exc).__name__})")
            except StreamTimeout as exc:
                record.error(exc)
                if not (mapper.finished or mapper.failed):  # after the final line, a body left open changes nothing
                    failure = exc.as_error("Ollama", started=mapper.started)
            except httpx.TimeoutException as exc:
                record.error(exc)
                failure = self._after_start(mapper, f"Ollama sent nothing for {self._timeout:g} s")
            except httpx.TransportError as exc:
                record.error(exc)
                failure = self._after_start(mapper, f"The connection to Ollama at {self._base_url} failed: {exc}")
            except Exception as exc:  # a broken stream must not escape as an exception
                log.exception("unexpected failure while streaming from Ollama")
                failure = self._after_start(mapper, f"{type(exc).__name__}: {exc}")
            else:
                if failure is None and not mapper.finished and not mapper.failed:
                    failure = self._after_start(mapper, "Ollama ended the stream without its final line")
            if failure is not None:
                if self._api_key is not None:
                    failure.message = self._api_key.redact(failure.message)
                closing = mapper.close() if mapper.started and not mapper.failed else []
                for event in [*closing, failure]:
                    record.event(event)
                    yield event
        finally:
            record.finish()

    def _map_line(self, mapper: OllamaEventMapper, line: bytes) -> list[ev.Event]:
        try:
            data = json.loads(line.decode())  # decoded here: json.loads on bytes first sniffs the encoding
        except ValueError:  # not JSON, or not UTF-8
            data = None
        if not isinstance(data, dict):
            return mapper.fail(f"a line that is not a JSON object ({line.decode('utf-8', 'replace').strip()[:200]!r})")
        return mapper.feed(data)

    def _fall_back(self, request: ProviderRequest, status: int, detail: str) -> bool:
        """Whether to send the request again without what the model refused (remembered per model)."""
        if status != 400:
            return False
        if NO_TOOLS in detail and request.tools and request.model not in self._prompt_tool_models:
            log.info("ollama model %s has no native tools: using the prompt protocol", request.model)
            self._prompt_tool_models.add(request.model)
            return True
        if NO_THINKING in detail and request.thinking_budget and request.model not in self._no_think_models:
            log.info("ollama model %s does not think: thinking left off", request.model)
            self._no_think_models.add(request.model)
            return True
        return False

    def _describe(self, status: int, detail: str, model: str) -> str:
        """A sentence for the user about an HTTP error, with what to do about it."""
        if status == 404 and "model" in detail.lower():
            return f"Ollama has no model {model}; pull it with `ollama pull {model}` ({detail})."
        if status == 404:
            return f"Ollama answered 404 at {self._base_url}/api/chat ({detail}). Check the base URL."
        if status in (401, 403):
            return f"Ollama at {self._base_url} refused the request ({status}: {detail}). Check the API key for this server."
        if status == 400:
            return f"Ollama refused the request (400: {detail})."
        if status >= 500:
            return f"Ollama failed to answer ({status}: {detail})."
        return f"Ollama answered {status}: {detail}"

    @staticmethod
    def _after_start(mapper: OllamaEventMapper, detail: str) -> ev.Error:
        if mapper.started:
            return ev.Error(reason="interrupted", message=INTERRUPTED_MESSAGE.format(detail=detail))
        return ev.Error(reason="error", message=f"{detail}.")
