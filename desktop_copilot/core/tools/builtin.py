"""The tools that ship with the app: web search (with a Tavily key), web fetch, the workspace file tools (with a
folder chosen in Settings), the shell (with a folder too, off until switched on in Settings, asking every time), and the knowledge search (while a
knowledge source is switched on)."""

from __future__ import annotations

from desktop_copilot.core.tools.base import ToolRegistry
from desktop_copilot.core.tools.knowledge import SearchKnowledge
from desktop_copilot.core.tools.shell import Shell
from desktop_copilot.core.tools.tavily import TavilySearch
from desktop_copilot.core.tools.web_fetch import WebFetch
from desktop_copilot.core.tools.workspace import EditFile, ListFiles, ReadFile, SearchFiles, WriteFile


def builtin_registry() -> ToolRegistry:
    return ToolRegistry([TavilySearch(), WebFetch(), ListFiles(), ReadFile(), SearchFiles(), WriteFile(), EditFile(), Shell(),
                         SearchKnowledge()])
