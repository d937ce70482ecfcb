"""What a run's `search_knowledge` may reach: the knowledge library, the embedding side when configured, and the
sources a conversation's assistant keeps to itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from desktop_copilot.core.words import tr

if TYPE_CHECKING:
    from desktop_copilot.core.knowledge.library import KnowledgeLibrary
    from desktop_copilot.core.knowledge.search import NearestPassages


@dataclass(slots=True)
class KnowledgeAccess:
    library: KnowledgeLibrary
    nearest: NearestPassages | None = None
    own_sources: frozenset[str] | None = None
    """The sources an assistant carries (None: every switched-on source)."""
    numbers: dict[tuple[str, str, int], int] = field(default_factory=dict)
    """(source, path, passage ordinal) -> its number in this run's reply: numbers go on across the reply's searches,
    and a passage found twice keeps its number (each run gets its own KnowledgeAccess)."""

    def number(self, passage: tuple[str, str, int]) -> int:
        return self.numbers.setdefault(passage, len(self.numbers) + 1)

    def sources_for(self, asked: str | None) -> list[str] | None:
        """The source names a search may look in: the one asked for (within the assistant's own), else the
        assistant's own, else None for every switched-on source."""
        if asked and asked.strip():
            if self.own_sources is not None and asked.strip().casefold() not in {s.casefold() for s in self.own_sources}:
                from desktop_copilot.core.knowledge.library import KnowledgeError

                raise KnowledgeError((tr("This conversation searches only {own_sources}; “{asked}” is not one of them.")
                                      .format(own_sources=', '.join(sorted(self.own_sources)), asked=asked)))
            return [asked.strip()]
        return sorted(self.own_sources) if self.own_sources is not None else None
