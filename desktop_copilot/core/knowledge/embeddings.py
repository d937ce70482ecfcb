"""Embedding models (wire, model, server) and the Embedder: batched, bounded, rate-limit-aware requests, errors in words."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.knowledge import embedding_wires as wires
from desktop_copilot.core.providers.busy_retry import backoff, retry_after
from desktop_copilot.core.providers.status_words import capitalised, error_parts
from desktop_copilot.core.words import label_text, tr

if TYPE_CHECKING:  # httpx is imported on first use, not at start-up
    import httpx

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 502, 503, 504})
"""Asked again after a wait; any other error answer is an EmbeddingError at once (a 500 from Ollama is usually a
model that cannot embed, which no retry cures)."""
MAX_WAIT = 60.0
"""Seconds at most one wait lasts while indexing; a server that asks for longer is left for the next indexing run."""
QUERY_RETRIES, QUERY_MAX_WAIT = 1, 2.0
"""A question waits for its answer: one short retry, then the search goes on with BM25 alone."""
REQUEST_TIMEOUT, CONNECT_TIMEOUT = 120.0, 10.0
"""Ollama on a CPU may take a minute to load a model and embed a batch."""
DETAIL_CHARS = 200


@dataclass(frozen=True, slots=True)
class EmbeddingModel:
    wire: str
    """"openai" (any OpenAI-compatible `/v1/embeddings`: OpenAI, LM Studio, llama.cpp, vLLM, …), "gemini", "ollama"."""
    model: str
    base_url: str
    """"https://api.openai.com/v1", "https://generativelanguage.googleapis.com/v1beta", "http://127.0.0.1:11434"."""
    key_name: str = ""
    """The key store's name of the key it needs ("openai", "gemini"; "" for none)."""
    dimensions: int | None = None
    """Shorter vectors from models that can give them (OpenAI text-embedding-3-*, gemini-embedding-001: 3,072 by
    default, 768 recommended); None: the model's own length."""

    @property
    def identity(self) -> str:
        """A stable short id of wire, model, server host (and dimensions when set), safe as a file name: keys the cache
        and names the matrix file. `openai-text-embedding-3-small-1f0c9a2b`."""
        model = wires.gemini_model(self.model) if self.wire == "gemini" else self.model.strip()
        seed = "\n".join((self.wire, model, wires.host_of(self.base_url), *([str(self.dimensions)] if self.dimensions else [])))
        slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")[:32].strip("-") or "model"
        return f"{self.wire}-{slug}-{hashlib.sha256(seed.encode()).hexdigest()[:8]}"


class EmbeddingError(Exception):
    """In words the user reads, saying what to do (wrong key -> check the key in Settings; model not found -> name;
    unreachable -> the URL). Never holds the key."""


class Embedder:
    """Embeds texts with one model: `batch_size` texts per request (at most 100 for Gemini), at most `max_concurrency`
    requests at once across all calls, 429/502/503/504 and dropped connections retried up to `max_retries` times after
    the wait the server asks for (`Retry-After`, Gemini's `RetryInfo`) or a growing backoff, during which no request
    of this Embedder goes out."""

    def __init__(self, model: EmbeddingModel, key: Secret | None, http: httpx.AsyncClient, *, batch_size: int = 64,
                 max_concurrency: int = 2, max_retries: int = 5, sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
                 max_wait: float = MAX_WAIT) -> None:
        self.model = model
        self.url = wires.endpoint(model.wire, model.model, model.base_url)  # ValueError for an unknown wire
        self.batch_size = max(1, min(batch_size, wires.GEMINI_MAX_BATCH) if model.wire == "gemini" else batch_size)
        self._key = key
        self._http = http
        self._concurrency = max(1, max_concurrency)
        self._slots = asyncio.Semaphore(self._concurrency)
        self._max_retries = max_retries
        self._max_wait = max_wait
        self._sleep = sleep
        self._pausing = 0
        self._open = asyncio.Event()
        self._open.set()

    async def embed(self, texts: list[str], *, for_query: bool = False) -> list[list[float]]:
        """One vector per text, in the order of `texts` (EmbeddingError in words)."""
        size = self.batch_size
        batches = [texts[i : i + size] for i in range(0, len(texts), size)]
        results: list[list[list[float]]] = [[] for _ in batches]
        todo = iter(range(len(batches)))

        async def work() -> None:
            for n in todo:  # shared: each batch is taken by one worker
                results[n] = await self._embed_batch(batches[n], for_query)

        workers = [asyncio.ensure_future(work()) for _ in range(min(self._concurrency, len(batches)))]
        try:
            await asyncio.gather(*workers)
        finally:  # one failed: the others stop too
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
        out = [vector for batch in results for vector in batch]
        if len({len(v) for v in out}) > 1:
            raise EmbeddingError(tr("{Subject} gave vectors of different lengths for {model}. Index again.").format(
                Subject=self._noun(True), model=repr(self.model.model)))
        return out

    async def _embed_batch(self, texts: list[str], for_query: bool) -> list[list[float]]:
        import httpx

        wire, model = self.model.wire, self.model
        body = wires.body(wire, model.model, texts, for_query=for_query, dimensions=model.dimensions)
        headers = wires.headers(wire, self._key.reveal() if self._key is not None else "")
        retries, longest = (min(self._max_retries, QUERY_RETRIES), min(self._max_wait, QUERY_MAX_WAIT)) if for_query else (self._max_retries, self._max_wait)
        attempt = 0
        while True:
            await self._open.wait()
            status: int | None = None
            asked: float | None = None
            async with self._slots:
                try:
                    response = await self._http.post(self.url, json=body, headers=headers,
                                                     timeout=httpx.Timeout(REQUEST_TIMEOUT, connect=CONNECT_TIMEOUT))
                except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol) as exc:
                    raise EmbeddingError(tr("Could not reach {noun} at {url} ({failure}). Check that it is running and that "
                                            "the URL is right.").format(noun=self._noun(), url=model.base_url,
                                                                        failure=type(exc).__name__)) from None
                except httpx.TransportError as exc:  # a read timeout, a dropped connection
                    failure = type(exc).__name__
                else:
                    if response.status_code < 400:
                        return self._read(response, len(texts))
                    status, failure = response.status_code, f"HTTP {response.status_code}"
                    if status not in RETRY_STATUSES:
                        raise EmbeddingError(self._refusal(response))
                    asked = self._asked_wait(response)
            wait = asked if asked is not None else backoff(attempt)
            if attempt >= retries or wait > longest:
                raise EmbeddingError(self._gave_up(status, failure, asked, attempt, longest))
            attempt += 1
            log.info("embeddings: %s; retry %d in %.1f s", failure, attempt, wait)
            await self._pause(wait)

    async def _pause(self, wait: float) -> None:
        """Wait, holding back this Embedder's other requests meanwhile (a rate limit is the server's, not the batch's)."""
        self._pausing += 1
        self._open.clear()
        try:
            await self._sleep(wait)
        finally:
            self._pausing -= 1
            if not self._pausing:
                self._open.set()

    def _asked_wait(self, response: httpx.Response) -> float | None:
        asked = retry_after(response.headers)
        if asked is None and self.model.wire == "gemini":
            from desktop_copilot.core.providers.gemini_provider import retry_delay  # Google's RetryInfo, read in one place

            asked = retry_delay(response.content)
        return asked

    def _read(self, response: httpx.Response, count: int) -> list[list[float]]:
        try:
            data = response.json()
        except ValueError:
            raise EmbeddingError(tr("{Subject} answered with something that is not JSON. Check the base URL {url}.").format(
                Subject=self._noun(True), url=self.model.base_url)) from None
        try:
            return wires.vectors(self.model.wire, data, count)
        except wires.WireShapeError as exc:
            raise EmbeddingError(tr("{Subject} answered without embeddings ({error}). Check that {model} is an embedding "
                                    "model.").format(Subject=self._noun(True), error=exc, model=repr(self.model.model))) from None

    def _refusal(self, response: httpx.Response) -> str:
        status, text, model = response.status_code, self._redact(response.text), self.model
        detail = error_parts(text, tr("no details"))[1][:DETAIL_CHARS]
        noun = self._noun(True)
        if status in (401, 403) or (model.wire == "gemini" and "API_KEY_INVALID" in text):
            return " ".join([tr("{Subject} refused the key ({status}: {detail}).").format(Subject=noun, status=status, detail=detail),
                             self._key_advice()])
        if status == 404:
            words = (tr("{Subject} has no embedding model {model} ({status}: {detail}). Pull it with `ollama pull {name}`, "
                        "or check the base URL {url}.") if model.wire == "ollama" else
                     tr("{Subject} has no embedding model {model} ({status}: {detail}). Check the model name and the base "
                        "URL {url}."))
            return words.format(Subject=noun, model=repr(model.model), status=status, detail=detail, name=model.model,
                                url=model.base_url)
        return tr("{Subject} answered {status}: {detail}").format(Subject=noun, status=status, detail=detail)

    def _gave_up(self, status: int | None, failure: str, asked: float | None, attempt: int, longest: float) -> str:
        noun = self._noun(True)
        if asked is not None and asked > longest:
            return tr("{Subject} asks to wait {seconds} s before more requests ({failure}). Try again later.").format(
                Subject=noun, seconds=f"{asked:.0f}", failure=failure)
        tries = tr("1 try") if attempt == 0 else tr("{count} tries").format(count=attempt + 1)
        if status == 429:
            return tr("{Subject} kept limiting the rate of requests (429) after {tries}. Try again later.").format(
                Subject=noun, tries=tries)
        if status is not None:
            return tr("{Subject} is busy or failing ({status}) after {tries}. Try again later.").format(
                Subject=noun, status=status, tries=tries)
        return tr("The connection to {noun} at {url} failed ({failure}) after {tries}. Check that it is running.").format(
            noun=self._noun(), url=self.model.base_url, failure=failure, tries=tries)

    def _key_advice(self) -> str:
        name = self.model.key_name
        if not name:
            return tr("Give this embedding server its key, or check the base URL.")
        from desktop_copilot.core.provider_table import key_variable, spec_of

        spec = spec_of(name)
        label = spec.key_label if spec is not None else f"{name!r} key"
        words = tr("Add the {key} in Settings (or {variable}).") if self._key is None else tr(
            "Check the {key} in Settings (or {variable}).")
        return words.format(key=label_text(label), variable=key_variable(name))

    def _noun(self, start: bool = False) -> str:
        wire = self.model.wire
        host = wires.host_of(self.model.base_url)
        noun = {"gemini": "Gemini", "ollama": "Ollama"}.get(wire) or (
            "OpenAI" if host.endswith("openai.com") else tr("the embedding server {host}").format(host=host or self.model.base_url))
        return capitalised(noun) if start else noun

    def _redact(self, text: str) -> str:
        return self._key.redact(text) if self._key is not None else text
