"""An MCP server's tool as a registry entry: its provider-safe name, its risk from the annotations, and
argument validation against the JSON Schema the server sent."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from desktop_copilot.core.tools.base import Risk, Tool, ToolArgumentsError, ToolContext, ToolResult, ToolSource

if TYPE_CHECKING:  # mcp_types costs ~0.5 s to import: loaded on the MCP thread at the first connect
    import mcp_types as types

log = logging.getLogger(__name__)

MAX_NAME = 64
"""Providers accept tool names of [A-Za-z0-9_-], at most 64 characters."""
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")
_HASH_CHARS = 8
MAX_ERROR_CHARS = 1_200
_MAX_PROBLEM_CHARS = 240
_MAX_PROBLEMS = 6

CallTool = Callable[[str, dict[str, Any], float], Awaitable[ToolResult]]
"""(the server's tool name, arguments, timeout) -> the result; raises ToolError."""


def model_tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, cut to provider rules. A sanitized or cut name ends in a hash of the original
    pair, so two tools never share a name (and a server name with "__" cannot pose as another pair)."""
    plain = f"mcp__{server}__{tool}"
    if len(plain) <= MAX_NAME and not _NOT_ALLOWED.search(plain) and "__" not in server:
        return plain
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:_HASH_CHARS]
    cleaned = _NOT_ALLOWED.sub("_", plain)[: MAX_NAME - _HASH_CHARS - 1]
    return f"{cleaned}_{digest}"


def risk_of(annotations: types.ToolAnnotations | None) -> Risk:
    """Risk from the tool's hints, as the issue sets them: `readOnlyHint: true` runs without asking (unless the tool
    also says it is destructive, a contradiction taken at its worse word); `destructiveHint`, `openWorldHint` or no
    annotations ask. Per the MCP spec `destructiveHint` defaults to true when `readOnlyHint` is false."""
    if annotations is None:
        return Risk.UNKNOWN
    read_only = annotations.read_only_hint
    destructive = annotations.destructive_hint
    if destructive is True or (read_only is False and destructive is None):
        return Risk.DESTRUCTIVE
    if read_only is True:
        return Risk.READ_ONLY
    if annotations.open_world_hint is True:
        return Risk.OPEN_WORLD
    return Risk.UNKNOWN


def _short(value: str, limit: int = _MAX_PROBLEM_CHARS) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


class McpTool(Tool):
    """One tool of one MCP server; `run` goes through the manager to the server's connection."""

    timeout: float = 120.0

    def __init__(self, server: str, identity: str, tool: types.Tool, call: CallTool) -> None:
        self.server = server
        self.tool_name = tool.name
        self.name = model_tool_name(server, tool.name)
        self.title = tool.name
        self.description = (tool.description or tool.title or tool.name).strip()
        self.risk = risk_of(tool.annotations)
        self.source = ToolSource("mcp", server, identity)
        self._schema = dict(tool.input_schema or {"type": "object", "properties": {}})
        self._call = call
        self._validator: Any = None

    def __repr__(self) -> str:
        return f"McpTool({self.name!r}, risk={self.risk.value})"

    @property
    def input_schema(self) -> dict[str, Any]:
        return self._schema

    def _compiled(self) -> Any:
        if self._validator is None:
            from jsonschema import Draft202012Validator, SchemaError
            from jsonschema.validators import validator_for

            cls = validator_for(self._schema, default=Draft202012Validator)
            try:
                cls.check_schema(self._schema)
                self._validator = cls(self._schema)
            except SchemaError as exc:  # the server's problem: check the shape only, the server checks the rest
                log.warning("MCP tool %s has an invalid input schema (%s); only checking for an object", self.name, _short(exc.message))
                self._validator = Draft202012Validator({"type": "object"})
        return self._validator

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(arguments, dict):
            raise ToolArgumentsError(f"Invalid arguments for {self.name}: expected a JSON object. Fix the arguments and call the tool again.")
        errors = sorted(self._compiled().iter_errors(arguments), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
        if not errors:
            return arguments
        lines = []
        for error in errors[:_MAX_PROBLEMS]:
            where = ".".join(str(p) for p in error.absolute_path) or "(arguments)"
            lines.append(f"- {_short(where, 80)}: {_short(error.message)}")
        if len(errors) > _MAX_PROBLEMS:
            lines.append(f"- and {len(errors) - _MAX_PROBLEMS} more")
        expected = json.dumps(self._schema.get("properties", {}), ensure_ascii=False)
        text = f"Invalid arguments for {self.name}:\n" + "\n".join(lines)
        text += "\nExpected properties: " + _short(expected, 400) + "\nFix the arguments and call the tool again."
        raise ToolArgumentsError(_short(text, MAX_ERROR_CHARS))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await self._call(self.tool_name, args, self.timeout)
