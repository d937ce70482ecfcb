"""What an HTTP error from any provider means to the user: the kind and message of its error body (every shape the
wires use), and one status-to-sentence table that says what happened and what to do. A provider module overrides a
row only where its own words are better (Ollama's 404 says how to pull the model)."""

from __future__ import annotations

import json
from typing import Any

DETAIL_CHARS = 300


def error_parts(body: Any, fallback: str = "") -> tuple[str, str]:
    """(kind, message) of an error body: Anthropic's `{"error": {type, message}}`, OpenAI's `{"error": {message, type,
    code}}` or its inner object, Google's `{"error": {status, message}}` (also wrapped in a list), vLLM's flat
    `{"object": "error", "message", "type"}`, a plain-string `{"error": "…"}` (Ollama, LM Studio), `{"detail"}`, or
    text. Bytes and JSON text are read first."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            body = json.loads(body) if body.strip()[:1] in ("{", "[") else body
        except (json.JSONDecodeError, RecursionError):
            pass
    if isinstance(body, list) and body and isinstance(body[0], dict):  # some proxies wrap Google's error in an array
        body = body[0]
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, str) and error.strip():
            return "", error.strip()[:DETAIL_CHARS]
        inner = error if isinstance(error, dict) else body
        message = inner.get("message") or inner.get("detail") or body.get("message") or body.get("detail") or ""
        kind = inner.get("status") or inner.get("type") or inner.get("code") or ""
        if kind == "error" and inner is body:  # Anthropic's envelope type, not the kind of error
            kind = ""
        return str(kind), " ".join(str(message).split())[:DETAIL_CHARS] or fallback
    if isinstance(body, str) and body.strip():
        return "", " ".join(body.split())[:DETAIL_CHARS]
    return "", fallback


def capitalised(noun: str) -> str:
    """`noun` to begin a sentence ("the Anthropic API" -> "The Anthropic API")."""
    return noun[:1].upper() + noun[1:]


def status_sentence(noun: str, status: int | None, detail: str, *, key_hint: str = "") -> str:
    """A sentence for an HTTP error `status` from the provider called `noun` in a sentence ("the Anthropic API",
    "Gemini"): what happened, the server's words (`detail`) and what to do. `key_hint`: where the key is set."""
    subject = capitalised(noun)
    where = f" in Settings{' or ' + key_hint if key_hint else ''}"
    if status == 401:
        return f"{subject} rejected the key (401: {detail}). Check the key{where}."
    if status == 402:
        return f"{subject} says the account has no credit left (402: {detail}). Top it up, then retry."
    if status == 403:
        return f"{subject} does not allow this key to do this (403: {detail}). Check the key's permissions{where}."
    if status == 404:
        return f"Not found at {noun} (404: {detail}). Check the model name and the base URL."
    if status == 408:
        return f"{subject} timed out before answering (408: {detail}). Retry in a little while."
    if status == 413:
        return f"The request is too large for {noun} (413: {detail}). Send less: fewer or smaller attachments."
    if status == 429:
        return f"Rate limited by {noun} (429: {detail}). Wait a moment and retry."
    if status in (400, 422):
        return f"{subject} refused the request ({status}: {detail})."
    if status in (503, 529):
        return f"{subject} is overloaded ({status}: {detail}). Retry in a little while."
    if status is not None and status >= 500:
        return f"{subject} failed to answer ({status}: {detail}). Retry in a little while."
    if status:
        return f"{subject} answered {status}: {detail}"
    return detail
