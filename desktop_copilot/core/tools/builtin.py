"""The tools that ship with the app."""

from __future__ import annotations

from desktop_copilot.core.tools.base import ToolRegistry
from desktop_copilot.core.tools.tavily import TavilySearch


def builtin_registry() -> ToolRegistry:
    return ToolRegistry([TavilySearch()])
