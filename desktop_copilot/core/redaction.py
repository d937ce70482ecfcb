"""Masks API keys in text bound for a log line or the screen: every value a `Secret` has held, key-shaped
tokens (`sk-ant-…`, `sk-…`, `tvly-…`) and the values of auth headers and key query parameters."""

from __future__ import annotations

import functools
import re

from desktop_copilot.core.secrets import known_secret_values

MASK = "[redacted]"

_TRIGGERS = ("sk-", "tvly-", "bearer", "authorization", "api-key", "api_key", "key=", "token=")
"""Text without any of these (most lines) is not run through the patterns below."""


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    """Key shapes, auth header values and key query parameters; compiled on first need, not at start-up."""
    value = r"(?!\[redacted)[^\s'\",;})]+"
    return (
        re.compile(r"(\b)(?:sk-ant-[\w-]{8,}|sk-[\w-]{16,}|tvly-[\w-]{8,})"),
        re.compile(r"(?i)(\b(?:authorization|x-api-key|api[_-]key)['\"]?\s*[:=]\s*['\"]?(?:bearer\s+)?+)" + value),
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
