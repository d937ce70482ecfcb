"""The Ollama provider: an httpx client for a local or remote Ollama server (optional bearer key) opens `/api/chat`;
the shared stream skeleton reads its NDJSON. A model that refuses tools (or thinking) gets the request again with
tools described as text (or thinking left off), remembered per model."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.profiles.profile import ModelFacts
from desktop_copilot.core.profiles.reported import ollama_show_facts
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.deadlines import LOCAL_DEADLINES, StreamDeadlines
from desktop_copilot.core.providers.ollama_wire import OllamaEventMapper, build_body
from desktop_copilot.core.providers.status_words import status_sentence
from desktop_copilot.core.providers.streaming import HttpFailure, StreamingProvider
from desktop_copilot.core.words import N_, tr

if TYPE_CHECKING:  # httpx is imported on first use, not at start-up
    import httpx

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "http://127.0.0.1:11434"
NO_TOOLS = "does not support tools"
NO_THINKING = "does not support thinking"
_LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


class OllamaProvider(StreamingProvider):
    """Streams replies from Ollama's native API over httpx (imported on first use)."""

    log_name = "ollama"
    wire = "ollama"
    noun = "Ollama"
    framing = "ndjson"
    frame_name = N_("line")
    reads_unterminated_frame = True
    busy_statuses = frozenset({429, 503, 529})
    """Answers worth asking again: a hosted server's rate limit, a full queue (OLLAMA_MAX_QUEUE); a 500 is about the model."""

    def __init__(self, base_url: str = DEFAULT_BASE_URL, *, api_key: Secret | None = None, timeout: float = 600.0,
                 max_retries: int = 3, deadlines: StreamDeadlines = LOCAL_DEADLINES,
                 learned: Callable[[str, str], None] | None = None) -> None:
        url = (base_url or DEFAULT_BASE_URL).strip().rstrip("/")
        super().__init__(key=api_key, base_url=url.removesuffix("/api") if url.endswith("/api") else url, deadlines=deadlines,
                         max_retries=max_retries, timeout=timeout)
        self._prompt_tool_models: set[str] = set()
        self._no_think_models: set[str] = set()
        self._learned = learned

    def uses_prompt_tools(self, model: str) -> bool:
        """Whether `model` turned native tools down, so its tools go as text."""
        return model in self._prompt_tool_models

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            headers = {"Authorization": f"Bearer {self._api_key.reveal()}"} if self._api_key else {}
            url = urlsplit(self._base_url)
            local = (url.hostname or "") in _LOOPBACK_HOSTS
            self._client = httpx.AsyncClient(
                base_url=self._base_url, headers=headers, timeout=httpx.Timeout(self._timeout, connect=min(self._timeout, 10.0)),
                trust_env=not local,  # a proxy from the environment must not catch a local server
                # Requests go to base_url only (no redirects followed): a plain-HTTP server never uses TLS, so the
                # certificate store is not loaded for it (about 20 ms of CPU per client).
                verify=url.scheme != "http")
        return self._client

    def _text_tools(self, request: ProviderRequest) -> bool:
        return bool(request.tools) and (request.text_tools or request.model in self._prompt_tool_models)

    def new_mapper(self, request: ProviderRequest) -> OllamaEventMapper:
        names = [tool.name for tool in request.tools] if request.tools else None
        return OllamaEventMapper(tool_names=names, thinks_in_tags=request.thinks_in_tags, prompt_tools=self._text_tools(request))

    def open_try(self, request: ProviderRequest):
        body = build_body(request, prompt_tools=self._text_tools(request), think_supported=request.model not in self._no_think_models)
        return self.client().stream("POST", "/api/chat", json=body)

    def map_frame(self, mapper: OllamaEventMapper, name: str, data: bytes) -> list[ev.Event]:
        return mapper.feed(self.decode(mapper, data))

    def fall_back(self, request: ProviderRequest, failure: HttpFailure) -> bool:
        """Send the request again without what the model refused (remembered per model)."""
        if failure.status != 400:
            return False
        detail = failure.detail()
        if NO_TOOLS in detail and request.tools and not self._text_tools(request):
            log.info("ollama model %s has no native tools: describing them as text", request.model)
            self._prompt_tool_models.add(request.model)
            if self._learned is not None:
                self._learned(request.model, "text")
            return True
        if NO_THINKING in detail and request.thinking_budget and request.model not in self._no_think_models:
            log.info("ollama model %s does not think: thinking left off", request.model)
            self._no_think_models.add(request.model)
            return True
        return False

    def failure_words(self, failure: HttpFailure, request: ProviderRequest) -> str:
        detail = failure.detail()
        if failure.status == 404 and "model" in detail.lower():
            return tr("Ollama has no model {model}; pull it with `ollama pull {model}` ({detail}).").format(model=request.model, detail=detail)
        if failure.status == 404:
            return tr("Ollama answered 404 at {url} ({detail}). Check the base URL.").format(url=f"{self._base_url}/api/chat", detail=detail)
        if failure.status in (401, 403):
            return tr("Ollama at {url} refused the request ({status}: {detail}). Check the API key for this server.").format(
                url=self._base_url, status=failure.status, detail=detail)
        return status_sentence(self.noun, failure.status, detail)

    def unreachable_words(self, exc: BaseException) -> str:
        return tr("Could not reach Ollama at {url}; is it running (`ollama serve`)? ({error})").format(
            url=self._base_url, error=exc or type(exc).__name__)

    def is_unreachable(self, exc: BaseException) -> bool:
        import httpx

        return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol)

    def is_broken_connection(self, exc: BaseException) -> bool:
        import httpx

        return isinstance(exc, httpx.TransportError)

    retries_unreachable = False
    """A local server that does not answer is not running: say so at once."""

    async def list_models(self) -> list[str]:
        """Names of the models pulled on the server, from `GET /api/tags` (ProviderError in words)."""
        started = time.monotonic()
        data = await self.retrying(lambda: self._get_json("/api/tags"))
        models = [m.get("name") or m.get("model") for m in data.get("models") or [] if isinstance(m, dict)]
        log.info("ollama models list: %d models in %.3fs", len(models), time.monotonic() - started)
        return [name for name in models if name]

    async def list_model_facts(self) -> list[ModelFacts]:
        """Each pulled model with what `POST /api/show` says of it: its context length and capabilities (tools,
        thinking, vision); asked a few at a time."""
        names = await self.list_models()
        gate = asyncio.Semaphore(4)

        async def shown(name: str) -> ModelFacts:
            async with gate:
                try:
                    body = await self._get_json("/api/show", {"model": name})
                except Exception:  # noqa: BLE001 - a model the server cannot describe still has its name
                    return ModelFacts(name)
            return ollama_show_facts(name, body)

        return list(await asyncio.gather(*(shown(name) for name in names)))

    async def _get_json(self, path: str, posted: dict[str, Any] | None = None) -> dict[str, Any]:
        response = await (self.client().post(path, json=posted) if posted is not None else self.client().get(path))
        if response.status_code >= 400:
            raise HttpFailure(response.status_code, response.headers, response.content)
        return self.json_object(response)
