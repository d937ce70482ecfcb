"""Tool contract: a tool is a registry entry (name, description, JSON Schema, risk, source) that validates and runs."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ValidationError

from desktop_copilot.core.providers.base import ToolSpec
from desktop_copilot.core.keys.secrets import KeyLookup, Secret
from desktop_copilot.core.tools.risk import Risk
from desktop_copilot.core.words import N_

if TYPE_CHECKING:  # httpx is imported when a tool first runs, not at start-up
    import httpx

    from desktop_copilot.core.knowledge.access import KnowledgeAccess
    from desktop_copilot.core.storage.file_snapshots import SnapshotRecorder


@dataclass(frozen=True, slots=True)
class ToolSource:
    """Where a tool comes from. Grants are bound to `identity`: a changed MCP server (command, args or URL) asks again."""

    kind: str = "builtin"
    """"builtin", "mcp" or "plugin"."""
    name: str = ""
    """The MCP server's name as configured ("" for built-ins)."""
    identity: str = "builtin"
    """A fingerprint of what runs the tool: "builtin", or a hash of an MCP server's command and args / URL."""

    @property
    def label(self) -> str:
        return self.name if self.kind == "mcp" else (N_("Built-in") if self.kind == "builtin" else self.name or self.kind)


BUILTIN = ToolSource()


@dataclass(slots=True)
class ToolResult:
    """What a tool returned: the whole text (kept on the card and in the database), and parts beside it.

    `parts` are JSON-ready dicts: {"type": "image", "media_type": "image/png", "data": <base64>},
    {"type": "resource_link", "uri": ..., "name": ..., "mime_type": ...}, {"type": "structured", "data": {...}}.
    """

    text: str
    parts: list[dict[str, Any]] = field(default_factory=list)
    is_error: bool = False
    model_text: str | None = None
    """What the model gets instead of `text` (set by a hook that cuts or rewrites it); None sends `text`."""


def ignore_output(text: str) -> None:
    """The `report_output` of a context no call is bound to: what a tool reports goes nowhere."""


@dataclass(slots=True)
class ToolContext:
    """What a running tool may use: its keys, a shared HTTP client, endpoint overrides, the workspace folder, and
    `report_output` to show output on the call's card while it runs."""

    keys: dict[str, Secret]
    http: httpx.AsyncClient
    endpoints: dict[str, str]
    workspace: Path | None = None
    """The folder the workspace tools may reach (None: not chosen in Settings, so they are not offered)."""
    conversation_id: str = ""
    message_id: str = ""
    """The reply (assistant message) whose call runs, and the call's id: the executor sets them for each call."""
    tool_call_id: str = ""
    snapshots: SnapshotRecorder | None = None
    """Where the file tools keep a file's state before changing it, so the reply can be undone (None: not kept)."""
    knowledge: KnowledgeAccess | None = None
    """The knowledge sources `search_knowledge` may search (None: no source is switched on, so it is not offered)."""
    report_output: Callable[[str], None] = ignore_output
    """Shows `text` (more output of the running call) on its card; the executor binds it to each call while the call
    runs (core/agent/execution.py), so a tool may call it freely, on the event loop's thread. What the model gets is
    still the tool's result."""


class ToolError(Exception):
    """A failure the tool explains in words; the message goes back to the model as an error result."""


class ToolArgumentsError(ToolError):
    """The arguments do not fit the tool's schema; the message says which and how, so the model can retry."""


class Tool(ABC):
    """A registry entry. Built-ins subclass PydanticTool; MCP tools arrive at run time with a JSON Schema."""

    name: str
    """The name the model calls (provider-safe: [A-Za-z0-9_-], at most 64 characters)."""
    title: str = ""
    """The name shown to the user ("" shows `name`): an MCP tool's own name without the `mcp__server__` prefix."""
    description: str = ""
    risk: Risk = Risk.UNKNOWN
    source: ToolSource = BUILTIN
    required_keys: tuple[str, ...] = ()
    timeout: float = 30.0
    needs_workspace: bool = False
    needs_knowledge: bool = False
    """Offered only while a knowledge source is switched on (search_knowledge)."""
    enabled_by_default: bool = True
    """False: not offered until the user switches it on in Settings ▸ Tools (`Settings.enabled_tools`; the shell)."""
    grantable: bool = True
    """False: every call asks, a standing grant ("always", "in this conversation") never covers it (the shell)."""

    @property
    def input_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {}}

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.input_schema)

    @property
    def shown_name(self) -> str:
        return self.title or self.name

    @abstractmethod
    def validate(self, arguments: dict[str, Any]) -> Any:
        """The arguments checked against the schema (raise ToolArgumentsError saying what to fix)."""

    @abstractmethod
    async def run(self, args: Any, ctx: ToolContext) -> str | ToolResult:
        """Run with validated arguments (raise ToolError on a failure the model should read)."""

    async def preview(self, args: Any, ctx: ToolContext) -> str:
        """What the user should see before approving, beside the arguments (a diff for a file edit); "" for none."""
        return ""


class PydanticTool(Tool):
    """A built-in tool whose arguments are a pydantic model."""

    arguments: ClassVar[type[BaseModel]]
    risk: Risk = Risk.READ_ONLY

    @property
    def input_schema(self) -> dict[str, Any]:
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        return schema

    def validate(self, arguments: dict[str, Any]) -> BaseModel:
        try:
            return self.arguments.model_validate(arguments)
        except ValidationError as exc:
            raise ToolArgumentsError(describe_validation_error(self.name, exc)) from None


def describe_validation_error(tool: str, error: ValidationError) -> str:
    """An error result that tells the model which arguments were wrong and how."""
    problems = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "(arguments)"
        problems.append(f"- {where}: {item['msg']}")
    return f"Invalid arguments for {tool}:\n" + "\n".join(problems) + "\nFix the arguments and call the tool again."


class ToolRegistry:
    """All known tools by name, built-in and arriving at run time (MCP); `enabled_for` picks the offered ones."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._sources: list[ToolProvider] = []
        for tool in tools or []:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        self._tools[tool.name] = tool

    def add_provider(self, provider: ToolProvider) -> None:
        """A source whose tools change at run time (the MCP servers); asked afresh at every run."""
        self._sources.append(provider)

    def all(self) -> list[Tool]:
        tools = dict(self._tools)
        for source in self._sources:
            for tool in source.tools():
                tools.setdefault(tool.name, tool)
        return list(tools.values())

    def enabled_for(self, keys: KeyLookup, switched_off: set[str] | frozenset[str] = frozenset(),
                    *, workspace: Path | None = None, knowledge: bool = False) -> list[Tool]:
        return [
            tool
            for tool in self.all()
            if tool.name not in switched_off
            and all(keys.has(k) for k in tool.required_keys)
            and can_run_here(tool, workspace=workspace, knowledge=knowledge)
        ]


def can_run_here(tool: Tool, *, workspace: Path | None, knowledge: bool) -> bool:
    """Whether what `tool` works on is there: a workspace folder for the file tools and the shell, a switched-on
    knowledge source for search_knowledge."""
    return (workspace is not None or not tool.needs_workspace) and (knowledge or not tool.needs_knowledge)


def not_switched_on(tools: Iterable[Tool], enabled: Collection[str]) -> set[str]:
    """The names of `tools` off until switched on (`Tool.enabled_by_default` False: the shell) and not in `enabled`
    (Settings.enabled_tools)."""
    return {tool.name for tool in tools if not tool.enabled_by_default and tool.name not in enabled}


class ToolProvider(ABC):
    """Something that offers tools that come and go (an MCP server manager)."""

    @abstractmethod
    def tools(self) -> list[Tool]:
        """The tools offered right now."""


def find_tool(tools: list[Tool], name: str) -> Tool | None:
    """The tool called `name`, repairing a letter-case mismatch (`Tavily_Search`)."""
    exact = {t.name: t for t in tools}
    if name in exact:
        return exact[name]
    folded = {t.name.casefold(): t for t in tools}
    return folded.get(name.casefold()) or folded.get(name.casefold().replace("-", "_"))
