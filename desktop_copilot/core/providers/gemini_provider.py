"""The Gemini provider: an httpx client for the Gemini API (key in the `x-goog-api-key` header, never in a URL) opens
`streamGenerateContent?alt=sse`; the shared stream skeleton reads it. Google's own words for errors and waits
(`RetryInfo`) are read here.

httpx rather than google-genai: httpx is a dependency already, and importing google-genai costs about 0.55 s more
(`python -X importtime`, with pydantic and httpx already loaded: 429 modules against httpx's 178)."""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.profiles.profile import ModelFacts
from desktop_copilot.core.profiles.reported import gemini_facts
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.deadlines import DEFAULT_DEADLINES, StreamDeadlines
from desktop_copilot.core.providers.gemini_wire import PROVIDER_ID, GeminiEventMapper, build_body
from desktop_copilot.core.providers.status_words import error_parts
from desktop_copilot.core.providers.streaming import KEPT, HttpFailure, ProviderError, StreamFault, StreamingProvider
from desktop_copilot.core.words import N_, tr

if TYPE_CHECKING:  # httpx is imported on first use, not at start-up
    import httpx

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
MAX_MODEL_PAGES = 5
_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")
KEY_PROBLEMS = frozenset({"UNAUTHENTICATED", "PERMISSION_DENIED"})

GeminiAPIError = ProviderError
"""What `list_models` raises (the shared ProviderError: words, status, never the key)."""


def _google_error(body: Any) -> dict[str, Any]:
    """The `error` object of a Google API error body ({} when the body is not one)."""
    import json

    if isinstance(body, bytes | str):
        try:
            body = json.loads(body)
        except (ValueError, RecursionError):
            return {}
    if isinstance(body, list) and body and isinstance(body[0], dict):  # some proxies wrap it in an array
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def _reasons(error: dict[str, Any]) -> set[str]:
    return {str(d.get("reason")) for d in error.get("details") or [] if isinstance(d, dict) and d.get("reason")}


def retry_delay(body: Any) -> float | None:
    """Seconds Google's `RetryInfo` asks to wait, if the error body has one."""
    for detail in _google_error(body).get("details") or []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = _DELAY.match(str(detail.get("retryDelay") or ""))
            if match:
                return float(match.group(1))
    return None


class GeminiProvider(StreamingProvider):
    """Streams Gemini replies over httpx (imported on first use)."""

    log_name = PROVIDER_ID
    wire = "gemini"
    noun = "Gemini"
    frame_name = N_("stream chunk")
    key_hint = "GEMINI_API_KEY"
    reads_unterminated_frame = True  # as Google's SDK reads the last event without its blank line

    def __init__(self, api_key: Secret, base_url: str = DEFAULT_BASE_URL, *, max_retries: int = 3, timeout: float = 600.0,
                 deadlines: StreamDeadlines = DEFAULT_DEADLINES) -> None:
        url = (base_url or DEFAULT_BASE_URL).strip().rstrip("/")
        for suffix in ("/v1beta", "/v1"):  # a base URL copied with its version
            url = url.removesuffix(suffix)
        super().__init__(key=api_key, base_url=url, deadlines=deadlines, max_retries=max_retries, timeout=timeout)

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient(headers={"x-goog-api-key": self._api_key.reveal()},
                                             timeout=httpx.Timeout(self._timeout, connect=min(self._timeout, 15.0)))
        return self._client

    def new_mapper(self, request: ProviderRequest) -> GeminiEventMapper:
        return GeminiEventMapper()

    def open_try(self, request: ProviderRequest):
        name = quote(request.model.strip().removeprefix("models/"), safe="-._~")
        url = f"{self._base_url}/v1beta/models/{name}:streamGenerateContent"
        return self.client().stream("POST", url, params={"alt": "sse"}, json=build_body(request))

    def map_frame(self, mapper: GeminiEventMapper, name: str, data: bytes) -> list[ev.Event]:
        error = _google_error(data) if b'"error"' in data[:200] else {}
        if error:  # an error written into the stream (as a raw JSON object outside `data:` lines)
            code = error.get("code")
            kind, detail = error_parts({"error": error}, tr("no details"))
            overflow = self.is_overflow(None, {"error": error})
            words = self.overflow_words(None, detail) if overflow else (tr("Gemini reported an error mid-reply ({kind}: {detail}).") if mapper.started else tr(
                "Gemini reported an error ({kind}: {detail}).")).format(kind=kind or "error", detail=detail)
            raise StreamFault(ev.Error(reason="error", message=words + (tr(KEPT) if mapper.started else ""),
                                       status_code=code if isinstance(code, int) else None, overflow=overflow))
        try:
            chunk = self.decode(mapper, data)
        except StreamFault:
            if mapper.finished:  # trailing noise after a finished reply changes nothing
                log.warning("gemini sent a stream chunk that is not a JSON object after the reply finished")
                return []
            raise
        return mapper.feed(chunk)

    def asked_wait(self, failure: HttpFailure) -> float | None:
        asked = super().asked_wait(failure)
        return asked if asked is not None else retry_delay(failure.body)

    def failure_words(self, failure: HttpFailure, request: ProviderRequest) -> str:
        return describe_error(failure.status, failure.body, request.model)

    def is_unreachable(self, exc: BaseException) -> bool:
        import httpx

        return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol)

    def is_broken_connection(self, exc: BaseException) -> bool:
        import httpx

        return isinstance(exc, httpx.TransportError)

    async def list_models(self) -> list[str]:
        """Ids (without `models/`) of the models that generate content (ProviderError in words)."""
        return [facts.id for facts in await self.list_model_facts()]

    async def list_model_facts(self) -> list[ModelFacts]:
        """The models that generate content, from `GET /v1beta/models` (following `nextPageToken` for a few pages),
        with their token limits and whether they think."""
        started = time.monotonic()
        found: list[ModelFacts] = []
        token = ""
        for _ in range(MAX_MODEL_PAGES):
            params = {"pageSize": "1000", **({"pageToken": token} if token else {})}
            data = await self.retrying(lambda: self._get_json("/v1beta/models", params))
            for model in data.get("models") or []:
                methods = model.get("supportedGenerationMethods") if isinstance(model, dict) else None
                if isinstance(model, dict) and (methods is None or "generateContent" in methods or "streamGenerateContent" in methods):
                    if (facts := gemini_facts(model)) is not None:
                        found.append(facts)
            token = data.get("nextPageToken") or ""
            if not token:
                break
        log.info("gemini models list: %d models in %.3fs", len(found), time.monotonic() - started)
        return found

    async def _get_json(self, path: str, params: dict[str, str]) -> dict[str, Any]:
        response = await self.client().get(f"{self._base_url}{path}", params=params)
        if response.status_code >= 400:
            raise HttpFailure(response.status_code, response.headers, response.content)
        return self.json_object(response)

    def list_words(self, failure: HttpFailure) -> str:
        return describe_error(failure.status, failure.body)


def describe_error(status: int | None, body: Any, model: str = "") -> str:
    """A sentence for the user about a Gemini API error answer, with what to do about it."""
    error = _google_error(body)
    kind, detail = error_parts(body, tr("no details"))
    if status in (401, 403) or kind in KEY_PROBLEMS or "API_KEY_INVALID" in _reasons(error):
        return tr("Gemini rejected the key ({status}: {detail}). Check the Gemini key in Settings or GEMINI_API_KEY.").format(
            status=status, detail=detail)
    if status == 404:
        return tr("Gemini has no model {model} here (404: {detail}). Check the model name and the base URL.").format(
            model=repr(model), detail=detail)
    if status is not None and status >= 500:
        return tr("Gemini is overloaded or failing ({status}: {detail}). Retry in a little while.").format(status=status, detail=detail)
    from desktop_copilot.core.providers.status_words import status_sentence

    return status_sentence("Gemini", status, detail, key_hint="GEMINI_API_KEY")
