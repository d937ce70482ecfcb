"""The outcome of testing a key with the cheapest real request: whether it works, in words (never the key)."""

from __future__ import annotations

from dataclasses import dataclass, field

CHECK_TIMEOUT = 20.0
"""Seconds a key test may take before it is said to have failed."""


@dataclass(frozen=True, slots=True)
class KeyCheck:
    ok: bool
    message: str
    model_ids: list[str] = field(default_factory=list)
    """For a provider's key: the models the key may use (the test lists them anyway)."""
