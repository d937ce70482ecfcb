"""Masks API keys in text bound for a log line or the screen: every value a `Secret` has held, key-shaped
tokens (`sk-…`, `tvly-…`, Gemini's `AIza…`, Groq's `gsk_…`, xAI's `xai-…`, GitHub tokens, JWTs) and the values of
auth headers and key query parameters."""

from __future__ import annotations

import functools
import re

from desktop_copilot.core.keys.secrets import known_secret_values

MASK = "[redacted]"

_TRIGGERS = ("sk-", "tvly-", "aiza", "gsk_", "xai-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "eyj", "bearer",
             "authorization", "api-key", "api_key", "key=", "token=")
"""Text without any of these (most lines) is not run through the patterns below."""


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    """Key shapes, auth header values and key query parameters; compiled on first need, not at start-up."""
    value = r"(?!\[redacted)[^\s'\",;})]+"
    return (
        re.compile(r"(\b)(?:sk-ant-[\w-]{8,}|sk-[\w-]{16,}|tvly-[\w-]{8,}|AIza[\w-]{30,}|gsk_\w{20,}|xai-\w{20,}"
                   r"|gh[pousr]_\w{30,}|github_pat_\w{20,}|eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,})"),
        re.compile(r"(?i)(\b(?:authorization|x-api-key|api[_-]key)['\"]?\s*[:=]\s*['\"]?(?:(?:bearer|basic|token)\s+)?+)" + value),
        re.compile(r"(?i)(\bbearer\s+)" + value),
        re.compile(r"(?i)([?&](?:key|api_key|access_token|token)=)(?!\[redacted)[^&#\s'\"]+"),
    )


def redact(text: str) -> str:
    """`text` with every known key value, key-shaped token and auth header value masked."""
    for value in sorted(known_secret_values(), key=len, reverse=True):
        if value in text:
            text = text.replace(value, f"[redacted …{value[-4:]}]")
    lowered = text.lower()
    if any(trigger in lowered for trigger in _TRIGGERS):
        for pattern in _patterns():
            text = pattern.sub(lambda m: m.group(1) + MASK, text)
    return text


def redact_error_in_place(exc: BaseException) -> BaseException:
    """`exc` with its message, args and JSON body masked (an SDK's APIStatusError quotes the key a server echoed
    back); the same object, so callers still tell errors apart by type and status."""
    import json

    if isinstance(getattr(exc, "message", None), str):
        exc.message = redact(exc.message)  # type: ignore[attr-defined]
    exc.args = tuple(redact(arg) if isinstance(arg, str) else arg for arg in exc.args)
    body = getattr(exc, "body", None)
    if body is not None:
        try:
            exc.body = json.loads(redact(json.dumps(body)))  # type: ignore[attr-defined]
        except (TypeError, ValueError):
            exc.body = None  # type: ignore[attr-defined]
    return exc
