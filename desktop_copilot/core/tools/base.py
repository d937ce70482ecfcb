"""Tool contract and registry: tools declare the keys they need and are offered only when those exist."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, ValidationError

from desktop_copilot.core.providers.base import ToolSpec
from desktop_copilot.core.secrets import KeyLookup, Secret

if TYPE_CHECKING:  # httpx is imported when a tool first runs, not at start-up
    import httpx


@dataclass(slots=True)
class ToolContext:
    """What a running tool may use: its keys, a shared HTTP client and endpoint overrides."""

    keys: dict[str, Secret]
    http: httpx.AsyncClient
    endpoints: dict[str, str]


class ToolError(Exception):
    """A failure the tool explains in words; the message goes back to the model as an error result."""


class Tool(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    arguments: ClassVar[type[BaseModel]]
    required_keys: ClassVar[tuple[str, ...]] = ()
    timeout: ClassVar[float] = 30.0
    has_side_effects: ClassVar[bool] = False

    @classmethod
    def spec(cls) -> ToolSpec:
        schema = cls.arguments.model_json_schema()
        schema.pop("title", None)
        return ToolSpec(cls.name, cls.description, schema)

    @abstractmethod
    async def run(self, args: BaseModel, ctx: ToolContext) -> str:
        """Run with validated arguments and return the text result (raise ToolError on failure)."""


def describe_validation_error(tool: str, error: ValidationError) -> str:
    """An error result that tells the model which arguments were wrong and how."""
    problems = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "(arguments)"
        problems.append(f"- {where}: {item['msg']}")
    return f"Invalid arguments for {tool}:\n" + "\n".join(problems) + "\nFix the arguments and call the tool again."


class ToolRegistry:
    """All known tools by name; `enabled_for` picks those whose keys are configured."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools or []:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        self._tools[tool.name] = tool

    def all(self) -> list[Tool]:
        return list(self._tools.values())

    def enabled_for(self, keys: KeyLookup, switched_off: set[str] | frozenset[str] = frozenset()) -> list[Tool]:
        return [
            tool
            for tool in self._tools.values()
            if tool.name not in switched_off and all(keys.has(k) for k in tool.required_keys)
        ]


def find_tool(tools: list[Tool], name: str) -> Tool | None:
    """The tool called `name`, repairing a letter-case mismatch (`Tavily_Search`)."""
    exact = {t.name: t for t in tools}
    if name in exact:
        return exact[name]
    folded = {t.name.casefold(): t for t in tools}
    return folded.get(name.casefold()) or folded.get(name.casefold().replace("-", "_"))
