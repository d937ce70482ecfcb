"""Standing permissions the user gave ("in this conversation", "always"), kept in permissions.json and revocable."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from desktop_copilot.core.config.atomic_file import write_atomically

log = logging.getLogger(__name__)

ALWAYS = "always"
CONVERSATION = "conversation"


@dataclass(frozen=True, slots=True)
class Grant:
    """Lets `tool` from the source with `identity` run without asking: everywhere, or in one conversation."""

    tool: str
    identity: str
    """The tool source's identity when the grant was given: a changed server asks again."""
    scope: str = ALWAYS
    conversation_id: str = ""
    shown_name: str = ""
    source_label: str = ""
    conversation_title: str = ""
    created_at: float = field(default_factory=time.time)

    def covers(self, tool: str, identity: str, conversation_id: str) -> bool:
        if self.tool != tool or self.identity != identity:
            return False
        return self.scope == ALWAYS or (self.scope == CONVERSATION and bool(conversation_id) and self.conversation_id == conversation_id)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.tool, self.identity, self.scope, self.conversation_id)


class GrantStore:
    """The grants in `path` (None: in memory only). Thread-safe; every change is written at once, atomically."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.problem: str | None = None
        self._lock = threading.Lock()
        self._grants: list[Grant] = self._load()
        self._listeners: list[Callable[[], None]] = []

    def _load(self) -> list[Grant]:
        if self.path is None or not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [Grant(**item) for item in data.get("grants", [])]
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            self.problem = f"{self.path} could not be read ({exc}); no tool is allowed without asking until it is fixed or removed."
            log.warning("%s", self.problem)
            return []

    def _save(self) -> None:
        if self.path is None or self.problem:
            return
        data = {"version": 1, "grants": [asdict(g) for g in self._grants]}
        write_atomically(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        self._save()
        for listener in list(self._listeners):
            listener()

    def all(self) -> list[Grant]:
        with self._lock:
            return list(self._grants)

    def covering(self, tool: str, identity: str, conversation_id: str) -> Grant | None:
        with self._lock:
            return next((g for g in self._grants if g.covers(tool, identity, conversation_id)), None)

    def add(self, grant: Grant) -> None:
        with self._lock:
            self._grants = [g for g in self._grants if g.key != grant.key] + [grant]
        self._changed()

    def revoke(self, grant: Grant) -> bool:
        with self._lock:
            kept = [g for g in self._grants if g.key != grant.key]
            removed = len(kept) != len(self._grants)
            self._grants = kept
        if removed:
            self._changed()
        return removed

    def revoke_all(self) -> int:
        with self._lock:
            count, self._grants = len(self._grants), []
        if count:
            self._changed()
        return count
