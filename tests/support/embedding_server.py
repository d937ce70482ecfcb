"""`EmbeddingServer`: a loopback HTTP server speaking the three embedding wires (OpenAI-compatible `/v1/embeddings`,
Gemini `/v1beta/models/{m}:batchEmbedContents`, Ollama `/api/embed`) with deterministic bag-of-words vectors (texts
that share words are nearer), a record of every call, and scripted faults (429 with Retry-After, 401, 404, 500, slow).

    with EmbeddingServer(key="sk-test-1234567890") as server:
        model = server.model("openai")           # EmbeddingModel(wire, model, base_url=server.openai_url, key_name)
        ...
        server.fail_next(429, times=2, retry_after="1")
        server.calls[-1].batch_size, server.max_in_flight

Runs in a background thread (tests/support/loopback.py), so a pytest fixture and a benchmark start it alike."""

from __future__ import annotations

import contextlib
import hashlib
import math
import random
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import LoopbackServer, OnLoopback, RecordedRequest, ScriptedResponse, json_response

DIM = 256
"""256 rather than 64: with 64 buckets a text sharing 3 of 12 words with a question lost to an unrelated one 6% of the
time (colliding words); with 256, none of 400 random pairs did."""
DEFAULT_MODELS = {"openai": "text-embedding-3-small", "gemini": "gemini-embedding-001", "ollama": "nomic-embed-text"}
GEMINI_MAX_BATCH = 100
STOPWORDS = frozenset("a an and are as at be by for from has have in is it its of on or that the this to was were will with".split())
FAULT_WORDS = {429: "Rate limit reached. Slow down.", 500: "internal error", 503: "The model is overloaded."}
GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
                 500: "INTERNAL", 503: "UNAVAILABLE"}
_WORD = re.compile(r"\w+", re.UNICODE)
_GEMINI_PATH = re.compile(r"^/v1beta/models/([^/:]+):batchEmbedContents$")


def words(text: str) -> list[str]:
    """The words that count: lower-cased, stopwords left out, a plural's final s dropped ("files" ~ "file")."""
    out = []
    for word in _WORD.findall(text.lower()):
        if word in STOPWORDS:
            continue
        out.append(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return out


def embed_text(text: str, dim: int = DIM) -> list[float]:
    """A unit vector of hashed word counts (each word: two buckets, signed), so the cosine of two texts grows with
    the words they share and is near 0 for texts with none in common. A text without words gets a vector of its own."""
    vector = [0.0] * dim
    counts: dict[str, int] = {}
    for word in words(text) or [f"\0{text}"]:
        counts[word] = counts.get(word, 0) + 1
    for word, count in counts.items():
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        weight = 1.0 + math.log(count)
        for k in (0, 4):
            bucket = int.from_bytes(digest[k : k + 3], "little") % dim
            vector[bucket] += weight if digest[k + 3] & 1 else -weight
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [round(x / norm, 7) for x in vector]


def _shorten(vector: list[float], dimensions: int | None) -> list[float]:
    if not dimensions or dimensions >= len(vector):
        return vector
    cut = vector[:dimensions]
    norm = math.sqrt(sum(x * x for x in cut)) or 1.0
    return [x / norm for x in cut]


@dataclass
class EmbedCall:
    """One request the server answered (or refused)."""

    wire: str
    model: str
    texts: list[str]
    headers: dict[str, str]
    task_types: list[str] = field(default_factory=list)
    """Gemini's taskType of each request in the batch."""
    status: int = 200
    at: float = field(default_factory=time.monotonic)
    """When it arrived (time.monotonic, the same clock as the test's)."""

    @property
    def batch_size(self) -> int:
        return len(self.texts)


@dataclass
class Fault:
    status: int
    retry_after: str | None = None
    retry_delay: str | None = None
    """Gemini's RetryInfo `retryDelay` ("2s")."""
    message: str = ""


class _NoDelayLoopback(LoopbackServer):
    """Replies without Nagle's wait: the loopback server writes head, body and end apart, and the client's delayed
    ACK would add ~40 ms to every request (a thousand batches in a benchmark)."""

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        if add:
            with contextlib.suppress(OSError):
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super()._track(conn, add=add)


class EmbeddingServer(OnLoopback):
    """Answers all three wires on one port. `models`: the model names it has (None: any); `key`: the key it requires
    (None: none); `dim`: vector length; `delay`: seconds each request takes; `shuffle`: OpenAI `data` items out of
    order (each still with its `index`)."""

    def __init__(self, *, models: set[str] | None = None, key: str | None = None, dim: int = DIM, delay: float = 0.0,
                 shuffle: bool = False) -> None:
        self.models = models
        self.key = key
        self.dim = dim
        self.delay = delay
        self.shuffle = shuffle
        self.calls: list[EmbedCall] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._loopback = _NoDelayLoopback(default=self._answer)

    # --- where each wire is -----------------------------------------------------------------

    @property
    def openai_url(self) -> str:
        """Base URL of the OpenAI-compatible wire (`.../v1`; requests go to `/v1/embeddings`)."""
        return f"{self.url}/v1"

    @property
    def gemini_url(self) -> str:
        """Base URL of the Gemini wire (`.../v1beta`)."""
        return f"{self.url}/v1beta"

    @property
    def ollama_url(self) -> str:
        """Base URL of the Ollama wire (requests go to `/api/embed`)."""
        return self.url

    def base_url(self, wire: str) -> str:
        return {"openai": self.openai_url, "gemini": self.gemini_url, "ollama": self.ollama_url}[wire]

    def model(self, wire: str, model: str | None = None, *, key_name: str = "", dimensions: int | None = None):
        """An `EmbeddingModel` pointing at this server's `wire`."""
        from desktop_copilot.core.knowledge.embeddings import EmbeddingModel

        return EmbeddingModel(wire, model or DEFAULT_MODELS[wire], self.base_url(wire), key_name, dimensions)

    # --- scripting ----------------------------------------------------------------------------

    def fail_next(self, status: int, times: int = 1, *, retry_after: str | None = None, retry_delay: str | None = None,
                  message: str = "") -> None:
        """The next `times` requests (any wire) get `status` in that wire's error shape."""
        with self._lock:
            self._faults.extend(Fault(status, retry_after, retry_delay, message) for _ in range(times))

    def reset(self) -> None:
        """Forgets the calls, faults, delay and shuffling: one running server serves many tests."""
        with self._lock:
            self.calls.clear()
            self._faults.clear()
            self.max_in_flight = 0
        self._loopback.requests.clear()
        self.delay, self.shuffle = 0.0, False

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every HTTP request as received (headers lower-cased)."""
        return self._loopback.requests

    @property
    def batch_sizes(self) -> list[int]:
        return [call.batch_size for call in self.calls if call.status == 200]

    def vector(self, text: str) -> list[float]:
        """The vector this server gives `text`."""
        return embed_text(text, self.dim)

    def stop(self) -> None:
        self._stopping.set()
        super().stop()

    def start(self):
        self._stopping.clear()
        return super().start()

    # --- answering ----------------------------------------------------------------------------

    def _answer(self, request: RecordedRequest) -> ScriptedResponse:
        arrived = time.monotonic()
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                self._stopping.wait(self.delay)
            return self._route(request, arrived)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _route(self, request: RecordedRequest, arrived: float) -> ScriptedResponse:
        match = _GEMINI_PATH.match(request.path)
        if request.method != "POST":
            wire = ""
        elif request.path == "/v1/embeddings":
            wire = "openai"
        elif request.path == "/api/embed":
            wire = "ollama"
        else:
            wire = "gemini" if match else ""
        if not wire:
            return ScriptedResponse(404, {"content-type": "text/plain"}, [b"404 page not found"])
        try:
            body = request.json()
        except ValueError:
            return _error(wire, 400, "the body is not JSON", "INVALID_ARGUMENT")
        model, texts, tasks, dimensions = self._read(wire, body, match)
        call = EmbedCall(wire, model, texts, dict(request.headers), tasks, at=arrived)
        with self._lock:
            self.calls.append(call)
            fault = self._faults.popleft() if self._faults else None
        refusal = self._refusal(wire, request, model, texts, fault)
        if refusal is not None:
            call.status = refusal.status
            return refusal
        vectors = [_shorten(self.vector(t), dimensions) for t in texts]
        if wire == "openai":
            items = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
            if self.shuffle:
                random.Random(len(items)).shuffle(items)
            tokens = sum(len(words(t)) for t in texts)
            return json_response({"object": "list", "data": items, "model": model, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})
        if wire == "gemini":
            return json_response({"embeddings": [{"values": v} for v in vectors]})
        return json_response({"model": model, "embeddings": vectors, "total_duration": 1000, "load_duration": 10,
                              "prompt_eval_count": sum(len(words(t)) for t in texts)})

    @staticmethod
    def _read(wire: str, body: Any, match: re.Match | None) -> tuple[str, list[str], list[str], int | None]:
        body = body if isinstance(body, dict) else {}
        if wire == "gemini":
            requests = [r for r in body.get("requests") or [] if isinstance(r, dict)]
            texts = ["".join(p.get("text", "") for p in (r.get("content") or {}).get("parts") or []) for r in requests]
            dims = {r.get("outputDimensionality") for r in requests}
            return match.group(1) if match else "", texts, [str(r.get("taskType", "")) for r in requests], dims.pop() if len(dims) == 1 else None
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else [str(t) for t in texts or []]
        return str(body.get("model") or ""), texts, [], body.get("dimensions")

    def _refusal(self, wire: str, request: RecordedRequest, model: str, texts: list[str], fault: Fault | None) -> ScriptedResponse | None:
        if self.key is not None:
            given = request.headers.get("x-goog-api-key") if wire == "gemini" else (request.headers.get("authorization") or "").removeprefix("Bearer ")
            if given != self.key:
                return _key_error(wire, given or "")
        if fault is not None:
            headers = {"retry-after": fault.retry_after} if fault.retry_after is not None else {}
            details = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fault.retry_delay}] if fault.retry_delay else []
            said = fault.message or FAULT_WORDS.get(fault.status, "scripted fault")
            return _error(wire, fault.status, said, GOOGLE_STATUS.get(fault.status, "UNKNOWN"), headers=headers, details=details)
        if self.models is not None and model not in self.models:
            return _error(wire, 404, {
                "openai": f"The model `{model}` does not exist or you do not have access to it.",
                "gemini": f"models/{model} is not found for API version v1beta, or is not supported for embedContent.",
                "ollama": f'model "{model}" not found, try pulling it first',
            }[wire], "NOT_FOUND")
        if wire == "gemini":
            if len(texts) > GEMINI_MAX_BATCH:
                return _error(wire, 400, f"* BatchEmbedContentsRequest.requests: at most {GEMINI_MAX_BATCH} requests can be in one batch", "INVALID_ARGUMENT")
            body = request.json()
            if any(r.get("model") != f"models/{model}" for r in body.get("requests") or []):
                return _error(wire, 400, "Model in each request must match the model in the batch request.", "INVALID_ARGUMENT")
        if not texts:
            return _error(wire, 400, "input must not be empty", "INVALID_ARGUMENT")
        return None


def _error(wire: str, status: int, message: str, status_name: str, *, headers: dict[str, str] | None = None,
           details: list[dict] | None = None) -> ScriptedResponse:
    """An error in the wire's own shape: OpenAI `{"error": {message, type, code}}`, Google `{"error": {code, message,
    status, details}}`, Ollama `{"error": "..."}`."""
    if wire == "gemini":
        body: dict[str, Any] = {"error": {"code": status, "message": message, "status": status_name, **({"details": details} if details else {})}}
    elif wire == "openai":
        body = {"error": {"message": message, "type": "invalid_request_error" if status < 500 else "server_error", "param": None,
                          "code": {404: "model_not_found", 401: "invalid_api_key", 429: "rate_limit_exceeded"}.get(status)}}
    else:
        body = {"error": message}
    return json_response(body, status=status, headers=headers)


def _key_error(wire: str, given: str) -> ScriptedResponse:
    """A refused key, as each service says it. The message quotes the key it got, as a careless proxy would: the client
    must keep it out of what it shows."""
    if wire == "gemini":
        if not given:
            return _error(wire, 403, "Method doesn't allow unregistered callers. Please use API Key or other form of API consumer identity.",
                          "PERMISSION_DENIED")
        return _error(wire, 400, f"API key not valid. Please pass a valid API key. (got {given})", "INVALID_ARGUMENT",
                      details=[{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}])
    return _error(wire, 401, f"Incorrect API key provided: {given}." if given else "You didn't provide an API key.", "UNAUTHENTICATED")
