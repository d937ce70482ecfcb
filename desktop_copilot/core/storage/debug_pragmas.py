"""DESKTOP_COPILOT_SQLITE_PRAGMAS, a debugging hook: SQLite limits for every connection to the conversation database,
to see the app with a disk that is full (`max_page_count=1`: the file cannot grow, and SQLite answers "database or
disk is full") or read-only (`query_only=ON`: "attempt to write a readonly database"). Only these two are accepted."""

from __future__ import annotations

import logging
import os
import re

log = logging.getLogger(__name__)

PRAGMAS_ENV = "DESKTOP_COPILOT_SQLITE_PRAGMAS"
ACCEPTED = re.compile(r"(max_page_count=\d{1,10}|query_only=(on|off|0|1))", re.IGNORECASE)


def debug_pragmas(environ: dict[str, str] | None = None) -> list[str]:
    """The accepted PRAGMAs of PRAGMAS_ENV (separated by spaces, commas or semicolons); others are logged and left out."""
    raw = (os.environ if environ is None else environ).get(PRAGMAS_ENV, "")
    pragmas = [item for item in re.split(r"[\s,;]+", raw) if item]
    accepted = [item for item in pragmas if ACCEPTED.fullmatch(item)]
    if len(accepted) != len(pragmas):
        log.warning("%s: only max_page_count=N and query_only=ON|OFF are accepted; ignored %s", PRAGMAS_ENV,
                    [item for item in pragmas if item not in accepted])
    if accepted:
        log.warning("%s: the database is opened with %s", PRAGMAS_ENV, accepted)
    return accepted
