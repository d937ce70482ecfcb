"""A real MCP server written with the SDK's MCPServer, for tests of the client, the CLI and the window.

Run: python -m tests.support.mcp_servers.demo_server --transport stdio|http|sse [--port N] [--page-size N]
[--bearer-token-env VAR] (HTTP only: require `Authorization: Bearer <the value of VAR>`, answer 401 otherwise).

Tools: read_note (readOnlyHint), delete_note (destructiveHint), slow, crash, image, structured, fail, no_hints,
add_tool (registers another tool and announces tools/list_changed), env_check, pid, links, open_world.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

NOTES = {"hello": "Hello from the demo server.", "todo": "Buy milk."}


def tiny_png(width: int = 2, height: int = 2, rgb: tuple[int, int, int] = (255, 0, 0)) -> bytes:
    """A valid PNG of one colour, built by hand (no imaging library needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


class DemoServer(MCPServer):
    """MCPServer whose tools/list can be paginated (`page_size`), to exercise the client's cursor walk."""

    page_size = 0

    async def _handle_list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tools = await self.list_tools()
        if not self.page_size:
            return types.ListToolsResult(tools=tools)
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + self.page_size
        return types.ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)


def build_server(name: str = "demo", **settings: Any) -> DemoServer:
    server = DemoServer(name, **settings)
    notes = dict(NOTES)

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def read_note(name: str) -> str:
        """Read the note called `name`."""
        if name not in notes:
            raise ToolError(f"no note called {name!r}")
        return notes[name]

    @server.tool(annotations=types.ToolAnnotations(destructive_hint=True))
    def delete_note(name: str) -> str:
        """Delete the note called `name`."""
        notes.pop(name, None)
        return f"deleted {name}"

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    async def slow(seconds: float, marker: str = "") -> str:
        """Sleep `seconds`; with `marker`, write "started", then "finished" or "cancelled" to that file."""
        if marker:
            Path(marker).write_text("started")
        try:
            await asyncio.sleep(seconds)
        except BaseException:
            if marker:
                Path(marker).write_text("cancelled")
            raise
        if marker:
            Path(marker).write_text("finished")
        return f"slept {seconds:g} s"

    @server.tool(annotations=types.ToolAnnotations(destructive_hint=True))
    def crash() -> str:
        """Exit the server process at once."""
        print("demo server: crashing on request", file=sys.stderr, flush=True)
        os._exit(3)

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def image() -> types.CallToolResult:
        """A small red PNG."""
        import base64

        data = base64.b64encode(tiny_png()).decode()
        return types.CallToolResult(content=[types.TextContent(text="a red square"), types.ImageContent(data=data, mime_type="image/png")])

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def structured(city: str = "Paris") -> types.CallToolResult:
        """The weather as structured content only (no text block)."""
        return types.CallToolResult(content=[], structured_content={"city": city, "temperature": 21.5, "unit": "C"})

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def fail(reason: str = "it went wrong") -> types.CallToolResult:
        """Always answers with isError."""
        return types.CallToolResult(content=[types.TextContent(text=f"failed: {reason}")], is_error=True)

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def blob(size: int) -> str:
        """`size` characters of text (a huge result)."""
        return ("0123456789abcdef" * (size // 16 + 1))[:size]

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def boom(reason: str = "the disk caught fire") -> str:
        """Raises an exception inside the tool."""
        raise RuntimeError(reason)

    @server.tool()
    def no_hints(text: str = "") -> str:
        """A tool without annotations."""
        return f"echo: {text}"

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=False, open_world_hint=True, destructive_hint=False))
    def open_world(query: str) -> str:
        """Pretends to reach the internet."""
        return f"searched {query}"

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def env_check(name: str) -> str:
        """Whether environment variable `name` is set, and the SHA-256 of its value (never the value)."""
        value = os.environ.get(name)
        if value is None:
            return f"{name}: not set"
        return f"{name}: set sha256={hashlib.sha256(value.encode()).hexdigest()}"

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def pid() -> str:
        """The server's process id."""
        return str(os.getpid())

    @server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    def links() -> types.CallToolResult:
        """A resource link and an embedded text resource."""
        return types.CallToolResult(content=[
            types.ResourceLink(uri="file:///notes/hello.txt", name="hello.txt", mime_type="text/plain"),
            types.EmbeddedResource(resource=types.TextResourceContents(uri="file:///notes/todo.txt", text="Buy milk.", mime_type="text/plain")),
        ])

    @server.tool(annotations=types.ToolAnnotations(destructive_hint=False, read_only_hint=False))
    async def add_tool(name: str, ctx: Context) -> str:
        """Register a new read-only tool called `name` (it answers "hi from <name>") and announce the change."""

        def added() -> str:
            return f"hi from {name}"

        server.add_tool(added, name=name, description=f"Added at run time: {name}", annotations=types.ToolAnnotations(read_only_hint=True))
        await ctx.notify_tools_changed()  # subscriptions/listen (protocol 2026-07-28)
        if ctx.protocol_version not in ("2026-07-28",):
            await ctx.session.send_tool_list_changed()  # notifications/tools/list_changed (handshake era)
        return f"added {name}"

    return server


def _bearer_settings(token: str, port: int) -> dict[str, Any]:
    from mcp.server.auth.provider import AccessToken
    from mcp.server.auth.settings import AuthSettings

    class StaticToken:
        async def verify_token(self, presented: str) -> AccessToken | None:
            if presented == token:
                return AccessToken(token=presented, client_id="demo", scopes=[])
            return None

    base = f"http://127.0.0.1:{port}"
    return {"auth": AuthSettings(issuer_url=base, resource_server_url=f"{base}/mcp"), "token_verifier": StaticToken()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=("stdio", "http", "sse"), default="stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--bearer-token-env", default="")
    args = parser.parse_args(argv)
    settings: dict[str, Any] = {"log_level": "WARNING"}
    if args.bearer_token_env:
        settings |= _bearer_settings(os.environ[args.bearer_token_env], args.port)
    server = build_server(**settings)
    server.page_size = args.page_size
    print(f"demo server: starting ({args.transport})", file=sys.stderr, flush=True)
    if args.transport == "stdio":
        server.run("stdio")
    elif args.transport == "http":
        server.run("streamable-http", host="127.0.0.1", port=args.port)
    else:
        server.run("sse", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
