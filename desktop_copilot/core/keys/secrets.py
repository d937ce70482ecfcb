"""Secrets: a value that never shows itself, and the lookup of API keys (keyring, then environment)."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Protocol


MIN_REGISTERED_LENGTH = 8
"""Shorter values are not registered for log redaction: masking every "abc" in a log would hide more than a key."""

_known_values: frozenset[str] = frozenset()
_registering = threading.Lock()


def known_secret_values() -> frozenset[str]:
    """Every key value a `Secret` has held in this process: `redaction.redact` masks them all."""
    return _known_values


def _register(value: str) -> None:
    global _known_values
    if len(value) >= MIN_REGISTERED_LENGTH and value not in _known_values:
        with _registering:  # a new set each time: readers on other threads see a whole one, without a lock
            _known_values = _known_values | {value}


class Secret:
    """An API key. `repr`/`str` show only the last four characters; `reveal()` gives the value.
    Each value is registered so that no log line can show it (core/keys/redaction.py)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value
        _register(value)

    def reveal(self) -> str:
        return self._value

    def redact(self, text: str, mask: str | None = None) -> str:
        """`text` with every occurrence of the value replaced by `mask` (default: the hint)."""
        return text.replace(self._value, self.hint if mask is None else mask) if self._value else text

    @property
    def hint(self) -> str:
        return f"…{self._value[-4:]}" if len(self._value) >= 8 else "…"

    def __repr__(self) -> str:
        return f"Secret({self.hint})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self):  # never pickled into a file by accident
        raise TypeError("a Secret cannot be pickled")


@dataclass(frozen=True, slots=True)
class FoundKey:
    secret: Secret
    source: str
    """Where it came from: "keyring", "environment" or "session" (kept in memory only)."""


class KeySource(Protocol):
    def get(self, name: str) -> FoundKey | None: ...


class EnvironmentKeys:
    """Keys from the environment: a key named NAME from `<NAME>_API_KEY` (read-only)."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        self._environ = os.environ if environ is None else environ

    def get(self, name: str) -> FoundKey | None:
        from desktop_copilot.core.provider_table import key_variable  # the table is not needed before the first frame

        value = self._environ.get(key_variable(name), "").strip()
        return FoundKey(Secret(value), "environment") if value else None


class KeyLookup:
    """Asks each source in order (keyring first, then environment) and returns the first key."""

    def __init__(self, sources: list[KeySource]) -> None:
        self.sources = sources

    def get(self, name: str) -> FoundKey | None:
        for source in self.sources:
            found = source.get(name)
            if found is not None:
                return found
        return None

    def has(self, name: str) -> bool:
        return self.get(name) is not None

    def all_found(self, name: str) -> list[FoundKey]:
        """The key from every source that has one, in lookup order (the first one is used)."""
        return [found for source in self.sources if (found := source.get(name)) is not None]
