"""When to ask a busy server again (429, 5xx, 529): the wait its `Retry-After` header asks for, else a growing
backoff; no retry when out of tries or when it asks for longer than the app waits unattended."""

from __future__ import annotations

import email.utils
import logging
import time
from typing import Any
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

BUSY_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})
MAX_RETRY_WAIT = 30.0
"""Seconds at most the app waits on its own before asking again; a longer wait is left to the user (Retry)."""


def backoff(attempt: int) -> float:
    """Seconds before try `attempt + 1` when the server does not say: 0.5, 1, 2, 4, 8, 8, …"""
    return min(8.0, 0.5 * 2**attempt)


def retry_after(headers: Any) -> float | None:
    """Seconds from `retry-after-ms` (OpenAI's and Anthropic's) or `Retry-After` (seconds or an HTTP date), None
    when absent or unreadable."""
    try:
        return max(0.0, float(headers.get("retry-after-ms") or "") / 1000)
    except ValueError:
        pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def busy_wait(status: int, asked: float | None, attempt: int, max_retries: int,
              statuses: frozenset[int] = BUSY_STATUSES) -> float | None:
    """Seconds to wait before try `attempt + 1`, or None to give up: not one of the busy `statuses`, out of
    tries, or the server asks (`asked`) for longer than MAX_RETRY_WAIT."""
    if status not in statuses or attempt >= max_retries:
        return None
    wait = asked if asked is not None else backoff(attempt)
    return wait if wait <= MAX_RETRY_WAIT else None


def too_long_words(asked: float | None, server: str) -> str:
    """A sentence for an error whose server asked for a longer wait than the app takes on its own ("" if not)."""
    return tr(" {server} asks to wait {seconds} s.").format(server=server, seconds=f"{asked:.0f}") if asked is not None and asked > MAX_RETRY_WAIT else ""


def note_retry(wait: float, attempt: int, status: int | None, what: str = "") -> None:
    """The log line of a retry: when, which try, and why (the status, or what failed)."""
    log.info("retrying the request in %.1f s (retry %d): %s", wait, attempt, f"HTTP {status}" if status is not None else what)
