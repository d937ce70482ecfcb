"""Request and reply shapes of the embedding wires: OpenAI-compatible `/embeddings`, Gemini `batchEmbedContents`, Ollama `/api/embed`.

As openai-python (resources/embeddings.py), google-genai (models.py, the Gemini Developer API converters) and ollama-python
(_client.py `embed`) send and read them."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

WIRES = ("openai", "gemini", "ollama")
GEMINI_MAX_BATCH = 100
"""Gemini's `batchEmbedContents` takes at most 100 requests."""


class WireShapeError(ValueError):
    """A 2xx reply that does not hold one vector per text (the words say what was wrong)."""


def host_of(base_url: str) -> str:
    """`host[:port]` of a base URL, lower-cased ("" when it has none)."""
    return (urlsplit(base_url.strip()).netloc or "").lower()


def endpoint(wire: str, model: str, base_url: str) -> str:
    """The URL one batch is POSTed to."""
    base = base_url.strip().rstrip("/")
    if wire == "openai":  # base "https://api.openai.com/v1", "http://localhost:1234/v1"
        return f"{base}/embeddings"
    if wire == "gemini":  # the provider table's base has no version; the embedding one may have it
        if not base.endswith(("/v1beta", "/v1")):
            base += "/v1beta"
        return f"{base}/models/{quote(gemini_model(model), safe='-._~')}:batchEmbedContents"
    if wire == "ollama":
        return f"{base.removesuffix('/api')}/api/embed"
    raise ValueError(f"unknown embedding wire {wire!r} (one of {', '.join(WIRES)})")


def gemini_model(model: str) -> str:
    return model.strip().removeprefix("models/")


def headers(wire: str, key: str) -> dict[str, str]:
    """The key's header (none without a key): Bearer for OpenAI-compatible servers and Ollama, `x-goog-api-key` for
    Gemini (never in the URL)."""
    if not key:
        return {}
    return {"x-goog-api-key": key} if wire == "gemini" else {"Authorization": f"Bearer {key}"}


def body(wire: str, model: str, texts: list[str], *, for_query: bool, dimensions: int | None = None) -> dict[str, Any]:
    """The JSON body of one batch."""
    if wire == "gemini":
        name = f"models/{gemini_model(model)}"
        task = "RETRIEVAL_QUERY" if for_query else "RETRIEVAL_DOCUMENT"
        extra = {"outputDimensionality": dimensions} if dimensions else {}
        return {"requests": [{"model": name, "content": {"parts": [{"text": t}]}, "taskType": task, **extra} for t in texts]}
    out: dict[str, Any] = {"model": model, "input": texts}
    if dimensions:
        out["dimensions"] = dimensions  # OpenAI's text-embedding-3-* and Ollama both call it so
    return out


def vectors(wire: str, data: Any, count: int) -> list[list[float]]:
    """The `count` vectors of a reply, in the order of the texts sent."""
    if not isinstance(data, dict):
        raise WireShapeError("the reply is not a JSON object")
    if wire == "openai":
        items = data.get("data")
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise WireShapeError("the reply has no `data` list")
        ordered = sorted(enumerate(items), key=lambda pair: (_index(pair[1], pair[0]), pair[0]))
        found = [item.get("embedding") for _, item in ordered]
    elif wire == "gemini":
        items = data.get("embeddings")
        if not isinstance(items, list):
            raise WireShapeError("the reply has no `embeddings` list")
        found = [item.get("values") if isinstance(item, dict) else None for item in items]
    else:
        found = data.get("embeddings")
        if not isinstance(found, list):
            raise WireShapeError("the reply has no `embeddings` list")
    if len(found) != count:
        raise WireShapeError(f"{len(found)} vectors came back for {count} texts")
    for vector in found:
        if not isinstance(vector, list) or not vector or not all(isinstance(x, int | float) for x in vector[:4]):
            raise WireShapeError("a vector is not a list of numbers")
    if len({len(v) for v in found}) > 1:
        raise WireShapeError("the vectors differ in length")
    return found


def _index(item: dict[str, Any], position: int) -> int:
    index = item.get("index")
    return index if isinstance(index, int) else position
