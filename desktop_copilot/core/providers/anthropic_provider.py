"""The Anthropic provider: the SDK client (key, base URL) opens each try of the request; the body's SSE events are
read as plain JSON by the shared stream skeleton (no SDK object per event)."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.profiles.profile import ModelFacts
from desktop_copilot.core.profiles.reported import anthropic_facts
from desktop_copilot.core.providers.anthropic_body import request_body
from desktop_copilot.core.providers.anthropic_wire import AnthropicEventMapper
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.deadlines import DEFAULT_DEADLINES, StreamDeadlines
from desktop_copilot.core.providers.status_words import error_parts
from desktop_copilot.core.providers.streaming import KEPT, HttpFailure, StreamFault, StreamingProvider
from desktop_copilot.core.words import N_, tr

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.anthropic.com"


class AnthropicProvider(StreamingProvider):
    """Streams Claude replies through the official SDK, imported on first use."""

    log_name = "anthropic"
    wire = "anthropic"
    frame_name = N_("event")
    key_hint = "ANTHROPIC_API_KEY"

    @property
    def noun(self) -> str:
        return tr("the {vendor} API").format(vendor="Anthropic")

    def __init__(self, api_key: Secret, base_url: str | None = None, *, max_retries: int = 3, timeout: float = 600.0,
                 deadlines: StreamDeadlines = DEFAULT_DEADLINES) -> None:
        super().__init__(key=api_key, base_url=base_url or DEFAULT_BASE_URL, deadlines=deadlines, max_retries=max_retries,
                         timeout=timeout)

    def client(self) -> Any:
        if self._client is None:
            import anthropic

            self._client = anthropic.AsyncAnthropic(api_key=self._api_key.reveal(), base_url=self._base_url,
                                                    max_retries=0,  # the shared skeleton retries, each try within its deadline
                                                    timeout=self._timeout)
        return self._client

    def new_mapper(self, request: ProviderRequest) -> AnthropicEventMapper:
        return AnthropicEventMapper()

    @contextlib.asynccontextmanager
    async def open_try(self, request: ProviderRequest) -> AsyncIterator[Any]:
        import httpx2  # the SDK's transport

        # The SDK sends the request (auth, headers, HTTP errors as its exceptions) with the body made here
        # (anthropic_body: only what changed since the conversation's last request is converted); the skeleton reads
        # the response's body.
        client = self.client()  # held while the body is read: a client collected (a run made a new provider) closes
        response = await client.post("/v1/messages", cast_to=httpx2.Response, content=request_body(request), stream=True)
        try:  # (its connections, this stream's among them)
            yield response
        finally:
            await response.aclose()
            del client

    def map_frame(self, mapper: AnthropicEventMapper, name: str, data: bytes) -> list[ev.Event]:
        if name == "error":  # an SSE `error` event after the 200
            kind, detail = error_parts(data, tr("no details"))
            kept = tr(KEPT) if mapper.started else ""
            overflow = self.is_overflow(200, data)
            words = self.overflow_words(200, detail) if overflow else tr("The API reported an error mid-reply ({kind}: {detail}).").format(
                kind=kind or "error", detail=detail)
            raise StreamFault(ev.Error(reason="error", message=words + kept, status_code=200, overflow=overflow))
        if not name or name == "ping" or not data:  # as the SDK's stream skips them
            return []
        return mapper.feed(self.decode(mapper, data))

    def as_http_failure(self, exc: BaseException) -> HttpFailure | None:
        import anthropic

        if isinstance(exc, anthropic.APIStatusError):
            return HttpFailure(exc.status_code, exc.response.headers, exc.body, exc.message)
        return None

    def is_unreachable(self, exc: BaseException) -> bool:
        import anthropic

        return isinstance(exc, anthropic.APIConnectionError | anthropic.APIResponseValidationError)

    def is_broken_connection(self, exc: BaseException) -> bool:
        import httpx2  # the SDK's transport: its errors inside a stream reach us unwrapped

        return isinstance(exc, httpx2.TransportError)

    async def list_models(self) -> list[str]:
        """Model ids from `GET /v1/models` (ProviderError in words)."""
        return [facts.id for facts in await self.list_model_facts()]

    async def list_model_facts(self) -> list[ModelFacts]:
        """Each model of `GET /v1/models` with the limits and capabilities the list reports."""
        started = time.monotonic()
        page = await self.retrying(lambda: self.client().models.list(limit=100))
        log.info("anthropic models list: %d models in %.3fs", len(page.data), time.monotonic() - started)
        return [facts for model in page.data if (facts := anthropic_facts(model.to_dict())) is not None]
