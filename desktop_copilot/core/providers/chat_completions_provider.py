"""The Chat Completions provider (OpenAI, the compatible vendors and the local servers): the openai SDK client (key,
base URL, headers) opens each try; the shared stream skeleton reads the body. A server that refuses `tools` gets the
request again with the tools described in the system prompt, and its model is remembered as a text-tools model."""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.profiles.profile import ModelFacts
from desktop_copilot.core.profiles.reported import llamacpp_facts, lmstudio_facts, models_entry_facts
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.chat_completions_wire import ChatCompletionsEventMapper, build_params
from desktop_copilot.core.providers.deadlines import DEFAULT_DEADLINES, StreamDeadlines
from desktop_copilot.core.providers.status_words import error_parts
from desktop_copilot.core.providers.streaming import KEPT, HttpFailure, StreamFault, StreamingProvider
from desktop_copilot.core.words import N_, tr

log = logging.getLogger(__name__)

REFUSES_TOOLS = re.compile(
    r"does not support (tools|tool use|function calling|functions)|tools? (are|is) not supported|"
    r"function calling is not (supported|enabled)|--jinja|enable-auto-tool-choice|tool-call-parser|"
    r"no endpoints found that support tool use|not supported (for|with) tools|rendering prompt with jinja template",
    re.IGNORECASE)
"""What an error says when the server will not take `tools` at all: "tools param requires --jinja flag" (llama.cpp),
"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser" (vLLM), "does not support tools"
(Ollama's compatible API), "No endpoints found that support tool use" (OpenRouter), "Model does not support function
calling" (gateways), and LM Studio's "Error rendering prompt with jinja template" for a template that cannot render
tools. An error about the tools or the history sent (a bad tool name, a `tool` message out of place) is
no refusal: the request is not sent again as text."""
REFUSAL_STATUSES = frozenset({400, 404, 422, 500, 501})


def vendor_name(vendor: str) -> str:
    """The vendor's label in the provider table ("Moonshot (Kimi)"), or the id of an endpoint the user added."""
    spec = PROVIDERS.get(vendor)
    return spec.label if spec is not None else vendor


def refuses_tools(request: ProviderRequest, failure: HttpFailure) -> bool:
    """Whether `failure` is the server refusing the request's native tools."""
    if not request.tools or request.text_tools or failure.status not in REFUSAL_STATUSES:
        return False
    kind, detail = error_parts(failure.body)
    return bool(REFUSES_TOOLS.search(f"{kind} {detail}"))


class ChatCompletionsProvider(StreamingProvider):
    """Streams replies from a Chat Completions endpoint through the openai SDK, imported on first use.
    `api_key` None: no Authorization header at all (local servers), and OPENAI_API_KEY is never read."""

    frame_name = N_("chunk")
    wire = "chat_completions"

    def __init__(self, api_key: Secret | None, base_url: str, *, vendor: str, max_retries: int = 3, timeout: float = 600.0,
                 extra_headers: dict[str, str] | None = None, deadlines: StreamDeadlines = DEFAULT_DEADLINES,
                 learned: Callable[[str, str], None] | None = None) -> None:
        super().__init__(key=api_key, base_url=base_url, deadlines=deadlines, max_retries=max_retries, timeout=timeout)
        self.vendor = self.log_name = vendor
        self._extra_headers = dict(extra_headers or {})
        self._text_tool_models: set[str] = set()
        self._learned = learned
        """Told (model, "text") when a model turned native tools down, so the choice outlives this provider."""

    def __repr__(self) -> str:
        return f"ChatCompletionsProvider(vendor={self.vendor!r}, base_url={self._base_url!r}, api_key={self._api_key!r})"

    @property
    def noun(self) -> str:
        return tr("the {vendor} API").format(vendor=vendor_name(self.vendor))

    def uses_text_tools(self, model: str) -> bool:
        """Whether `model` turned native tools down here, so its tools go as text."""
        return model in self._text_tool_models

    def client(self) -> Any:
        if self._client is None:
            import openai

            async def no_key() -> str:
                return ""

            self._client = openai.AsyncOpenAI(
                api_key=self._api_key.reveal() if self._api_key is not None else no_key, base_url=self._base_url,
                max_retries=0,  # the shared skeleton retries, each try within its deadline
                timeout=self._timeout, default_headers=self._extra_headers or None)
            if self.vendor != "openai":  # OPENAI_ORG_ID / OPENAI_PROJECT_ID are OpenAI's, not another vendor's
                self._client.organization = self._client.project = None
        return self._client

    def _auth_options(self) -> dict[str, Any]:
        """Per-request options: without a key the SDK wants the Authorization header omitted explicitly."""
        if self._api_key is not None:
            return {}
        import openai

        return {"extra_headers": {"Authorization": openai.Omit()}}

    def new_mapper(self, request: ProviderRequest) -> ChatCompletionsEventMapper:
        tools = [tool.name for tool in request.tools] if request.tools else None
        return ChatCompletionsEventMapper(position=len(request.messages), tool_names=tools, thinks_in_tags=request.thinks_in_tags,
                                          text_tools=request.text_tools or self.uses_text_tools(request.model))

    @contextlib.asynccontextmanager
    async def open_try(self, request: ProviderRequest) -> AsyncIterator[Any]:
        params = build_params(request, vendor=self.vendor, text_tools=request.text_tools or self.uses_text_tools(request.model))
        create = self.client().chat.completions.with_streaming_response.create
        async with create(**params, stream=True, **self._auth_options()) as opened:
            yield opened.http_response

    def map_frame(self, mapper: ChatCompletionsEventMapper, name: str, data: bytes) -> list[ev.Event]:
        if data.startswith(b"[DONE]"):
            mapper.drained = True
            return []
        chunk = self.decode(mapper, data)
        if error := chunk.get("error"):  # an error object inside a 200 stream
            kind, detail = error_parts({"error": error}, tr("An error occurred during streaming"))
            what = f"{kind}: {detail}" if kind else detail
            overflow = self.is_overflow(None, {"error": error})
            words = self.overflow_words(None, detail) if overflow else (tr("The {vendor} API reported an error mid-reply ({what}).") if mapper.started else tr(
                "The {vendor} API reported an error ({what}).")).format(vendor=vendor_name(self.vendor), what=what)
            raise StreamFault(ev.Error(reason="error", message=words + (tr(KEPT) if mapper.started else ""), overflow=overflow))
        return mapper.feed(chunk)

    def fall_back(self, request: ProviderRequest, failure: HttpFailure) -> bool:
        if self.uses_text_tools(request.model) or not refuses_tools(request, failure) or self.is_overflow(failure.status, failure.body):
            return False  # an overflow may name the tools' share of the request ("~12k tool input"): not a refusal of tools
        log.info("%s model %s refused native tools (%d): describing them in the system prompt", self.vendor, request.model, failure.status)
        self._text_tool_models.add(request.model)
        if self._learned is not None:
            self._learned(request.model, "text")
        return True

    def failure_words(self, failure: HttpFailure, request: ProviderRequest) -> str:
        kind, detail = error_parts(failure.body, str(failure))
        if failure.status == 429 and "insufficient_quota" in (kind, _code(failure.body)):
            return f"The {vendor_name(self.vendor)} account has run out of quota (429: {detail}). Check its plan and billing."
        return super().failure_words(failure, request)

    def as_http_failure(self, exc: BaseException) -> HttpFailure | None:
        import openai

        if isinstance(exc, openai.APIStatusError):
            return HttpFailure(exc.status_code, exc.response.headers, exc.body, exc.message)
        return None

    def is_unreachable(self, exc: BaseException) -> bool:
        import openai

        return isinstance(exc, openai.APIConnectionError)

    def is_broken_connection(self, exc: BaseException) -> bool:
        import httpx2  # the SDK's transport

        return isinstance(exc, httpx2.TransportError)

    async def list_models(self) -> list[str]:
        """Model ids from `GET /models` (ProviderError in words)."""
        started = time.monotonic()
        page = await self.retrying(lambda: self.client().models.list(**self._auth_options()))
        ids = [model.id for model in page.data]
        log.info("%s models list: %d models in %.3fs", self.vendor, len(ids), time.monotonic() - started)
        return ids

    async def list_model_facts(self) -> list[ModelFacts]:
        """Each model of `GET /models` with what its entry reports (OpenRouter's limits, vLLM's `max_model_len`, …),
        and for LM Studio and llama.cpp what their own endpoints add (`/api/v0/models`, `/props`)."""
        page = await self.retrying(lambda: self.client().models.list(**self._auth_options()))
        entries = [model.to_dict() for model in page.data]
        if self.vendor == "lmstudio":
            richer = await self._server_json("/api/v0/models")
            entries = [entry for entry in richer.get("data", []) if isinstance(entry, dict)] if isinstance(richer, dict) and richer.get("data") else entries
            return [facts for entry in entries if (facts := lmstudio_facts(entry)) is not None]
        if self.vendor == "llamacpp":
            props = await self._server_json("/props")
            return [facts for entry in entries if (facts := llamacpp_facts(entry, props)) is not None]
        return [facts for entry in entries if (facts := models_entry_facts(entry)) is not None]

    async def _server_json(self, path: str) -> Any:
        """A local server's own endpoint beside its OpenAI-style API (None when it does not answer with JSON)."""
        root = self._base_url.rstrip("/").removesuffix("/v1")
        try:
            headers = self._auth_options().get("extra_headers", {})
            response = await self.client().get(root + path, cast_to=dict, options={"headers": headers})
        except Exception:  # noqa: BLE001 - the OpenAI-style list still says what it says
            log.info("%s: %s gave no JSON", self.vendor, path)
            return None
        return response


def _code(body: Any) -> str:
    inner = body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), dict) else body
    return str(inner.get("code") or "") if isinstance(inner, dict) else ""
