"""One MCP server as configured in mcp.json (Claude Desktop's shape), its identity, and secret references."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from desktop_copilot.core.empty_lists import new_list
from desktop_copilot.core.words import tr

SECRET_REF = re.compile(r"^\$\{keyring:(?P<name>[^}]+)\}$")
"""A value kept in the keyring appears in mcp.json as "${keyring:<keyring entry name>}"."""

SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def secret_ref(entry: str) -> str:
    return "${keyring:" + entry + "}"


def secret_entry(server: str, where: Literal["env", "headers"], key: str) -> str:
    """The keyring entry name for one secret value of a server: "mcp/<server>/<env|headers>/<key>"."""
    return f"mcp/{server}/{where}/{key}"


class McpServerConfig(BaseModel):
    """A server: `command` (+ `args`, `env`) for stdio, or `url` (+ `headers`) for Streamable HTTP / SSE.

    `env` and `headers` values in mcp.json are references to keyring entries (SECRET_REF), never the secrets.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    name: str = Field(default="", exclude=True)
    """The key under "mcpServers" (not stored inside the entry)."""
    command: str | None = None
    args: list[str] = Field(default_factory=new_list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    transport: Literal["stdio", "http", "sse"] | None = Field(default=None, alias="type")
    """Claude Desktop and others write "type"; None: stdio with a command, Streamable HTTP (then SSE) with a URL."""
    disabled: bool = False
    oauth: bool = False
    """Sign in through the browser (OAuth) before connecting to this remote server."""

    @model_validator(mode="after")
    def _one_kind(self) -> McpServerConfig:
        if bool(self.command) == bool(self.url):
            raise ValueError(tr("give either a command (a local server) or a url (a remote server)"))
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError(tr("the url must start with http:// or https://"))
        return self

    @property
    def kind(self) -> Literal["stdio", "http", "sse"]:
        if self.command:
            return "stdio"
        return "sse" if self.transport == "sse" else "http"

    @property
    def identity(self) -> str:
        """A fingerprint of what runs: the command and args, or the URL. Grants are bound to it."""
        what = [self.command, *self.args] if self.command else [self.url]
        return "mcp:" + hashlib.sha256(json.dumps(what).encode()).hexdigest()[:16]

    @property
    def where(self) -> str:
        """The command line or URL, as shown to the user (secrets never appear in either)."""
        return " ".join([self.command or "", *self.args]).strip() if self.command else (self.url or "")
