"""What an HTTP error from any provider means to the user: the kind and message of its error body (every shape the
wires use), and one status-to-sentence table that says what happened and what to do. A provider module overrides a
row only where its own words are better (Ollama's 404 says how to pull the model)."""

from __future__ import annotations

import json
from typing import Any

from desktop_copilot.core.words import N_, tr

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


STATUS_SENTENCES: dict[int, str] = {
    400: N_("{Subject} refused the request ({status}: {detail})."),
    401: N_("{Subject} rejected the key ({status}: {detail}). Check the key{where}."),
    402: N_("{Subject} says the account has no credit left ({status}: {detail}). Top it up, then retry."),
    403: N_("{Subject} does not allow this key to do this ({status}: {detail}). Check the key's permissions{where}."),
    404: N_("Not found at {noun} ({status}: {detail}). Check the model name and the base URL."),
    408: N_("{Subject} timed out before answering ({status}: {detail}). Retry in a little while."),
    413: N_("The request is too large for {noun} ({status}: {detail}). Send less: fewer or smaller attachments."),
    422: N_("{Subject} refused the request ({status}: {detail})."),
    429: N_("Rate limited by {noun} ({status}: {detail}). Wait a moment and retry."),
    503: N_("{Subject} is overloaded ({status}: {detail}). Retry in a little while."),
    529: N_("{Subject} is overloaded ({status}: {detail}). Retry in a little while."),
}
"""What an error status means and what to do, for every provider ({Subject}/{noun}: the provider in a sentence)."""
SERVER_FAILED = N_("{Subject} failed to answer ({status}: {detail}). Retry in a little while.")
OTHER_STATUS = N_("{Subject} answered {status}: {detail}")


def status_sentence(noun: str, status: int | None, detail: str, *, key_hint: str = "") -> str:
    """A sentence for an HTTP error `status` from the provider called `noun` in a sentence ("the Anthropic API",
    "Gemini"): what happened, the server's words (`detail`) and what to do. `key_hint`: where else the key is set."""
    if not status:
        return detail
    template = STATUS_SENTENCES.get(status) or (SERVER_FAILED if status >= 500 else OTHER_STATUS)
    where = tr(" in Settings or {hint}").format(hint=key_hint) if key_hint else tr(" in Settings")
    return tr(template).format(Subject=capitalised(noun), noun=noun, status=status, detail=detail, where=where)
