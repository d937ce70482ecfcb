"""What running a tool may do (its risk), without pydantic, so the theme's risk pills load before the tool registry."""

from __future__ import annotations

from enum import StrEnum

from desktop_copilot.core.words import N_


class Risk(StrEnum):
    """What running a tool may do. Only READ_ONLY runs without asking; the others ask unless a grant covers them."""

    READ_ONLY = "read_only"
    OPEN_WORLD = "open_world"
    """Reaches outside the machine (fetches a web page, calls a remote service)."""
    WRITES = "writes"
    """Changes something the user owns, in a way that can be seen and undone (writes a workspace file)."""
    DESTRUCTIVE = "destructive"
    UNKNOWN = "unknown"
    """Declared nothing (an MCP tool without annotations): treated as side-effecting."""

    @property
    def needs_approval(self) -> bool:
        return self is not Risk.READ_ONLY

    @property
    def label(self) -> str:
        return {
            Risk.READ_ONLY: N_("Read-only"),
            Risk.OPEN_WORLD: N_("Reaches the internet"),
            Risk.WRITES: N_("Changes files"),
            Risk.DESTRUCTIVE: N_("Destructive"),
            Risk.UNKNOWN: N_("Undeclared effects"),
        }[self]
