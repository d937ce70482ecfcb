"""Text and JSON made storable and sendable: a lone surrogate (a `\\ud83d` escape cut from its pair) becomes U+FFFD
and NaN or an infinity becomes null, which the JSON writers of SQLite rows and HTTP bodies would otherwise refuse."""

from __future__ import annotations

import math
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(value: Any) -> Any:
    """A string with each lone surrogate replaced by U+FFFD (a pair is joined into its character); anything else
    as it is."""
    global _last_found_clean
    if not isinstance(value, str) or value.isascii() or value is _last_found_clean:
        return value
    if len(value) <= ENCODE_CHECK_LIMIT:  # a delta: encoding refuses only a surrogate, and is faster than a search
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            _last_found_clean = value
            return value
    elif not _SURROGATE.search(value):  # a long text is searched, which copies nothing
        return value
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


ENCODE_CHECK_LIMIT = 4096
"""Strings up to this many characters are checked for surrogates by encoding them (a copy that size costs nothing)."""
_last_found_clean = ""
"""The last short non-ASCII string found clean: a text delta is cleaned by its wire and again by `accumulate`, and
the second time it is not encoded again (a str cannot change, so whichever thread checked it, it stays clean)."""


def clean_json(value: Any) -> Any:
    """JSON with its text as `clean_text` and its NaN and infinities as None (a copy where anything changed)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {clean_text(key): clean_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(item) for item in value]
    return value
