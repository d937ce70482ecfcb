"""One connection to one MCP server (stdio, Streamable HTTP, or SSE as the fallback): connect, list its tools,
follow `tools/list_changed`, call tools, notice when it drops, close. Runs on the manager's MCP loop."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any, Self

from desktop_copilot.core.mcp.server_config import McpServerConfig
from desktop_copilot.core.keys.redaction import redact

if TYPE_CHECKING:  # mcp_types and the SDK are imported on the MCP thread, at the first connect
    import mcp_types as types

log = logging.getLogger(__name__)
stderr_log = logging.getLogger("desktop_copilot.mcp.stderr")

CLIENT_NAME = "desktop-copilot"
MAX_TOOL_PAGES = 50
MAX_TOOLS = 1_000
STDERR_TAIL = 20
MAX_ERROR_CHARS = 400
CONNECT_TIMEOUT = 30.0


class ConnectionLost(Exception):
    """The server's process ended or its connection dropped."""


class NeedsSignIn(Exception):
    """The remote server wants an OAuth sign-in that this connection may not start (no browser allowed)."""


class SignInTimedOut(TimeoutError):
    """The browser sign-in did not come back to the local callback in time."""


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def find_error(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first `kind` inside `exc`, looking through exception groups and causes."""
    for leaf in _leaves(exc):
        seen: BaseException | None = leaf
        while seen is not None:
            if isinstance(seen, kind):
                return seen
            seen = seen.__cause__ or seen.__context__
    return None


def describe_error(exc: BaseException, config: McpServerConfig, timeout: float = CONNECT_TIMEOUT) -> str:
    """A short sentence for `last_error` and ToolErrors: what went wrong, without secrets."""
    import httpx2
    from mcp.client.auth import OAuthFlowError
    from mcp.shared.exceptions import MCPError

    if find_error(exc, NeedsSignIn) is not None:
        return f"needs sign-in: run desktop-copilot mcp login {config.name}"
    if (timed_out := find_error(exc, SignInTimedOut)) is not None:
        return str(timed_out)
    if (refused := find_error(exc, OAuthFlowError)) is not None:
        text = redact(" ".join(f"sign-in failed: {refused}".split()))
        return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"
    leaves = [leaf for leaf in _leaves(exc) if not isinstance(leaf, asyncio.CancelledError)] or _leaves(exc)
    leaf = leaves[0]
    if isinstance(leaf, FileNotFoundError):
        text = f"cannot start {config.command!r}: no such program (check the command and PATH)"
    elif isinstance(leaf, PermissionError):
        text = f"cannot start {config.command!r}: permission denied"
    elif isinstance(leaf, TimeoutError):
        text = f"no answer within {timeout:g} s"
    elif isinstance(leaf, httpx2.HTTPStatusError):
        text = f"the server answered HTTP {leaf.response.status_code}"
    elif isinstance(leaf, httpx2.ConnectError):
        text = f"cannot connect to {config.url}"
    elif isinstance(leaf, httpx2.HTTPError):
        text = f"HTTP error: {type(leaf).__name__}: {leaf}"
    elif isinstance(leaf, MCPError):
        text = f"the server answered: {leaf.message}"
    elif isinstance(leaf, ConnectionLost):
        text = str(leaf) or "the server stopped"
    else:
        text = f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__
    text = redact(" ".join(text.split()))
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


class _WatchedReadStream:
    """The transport's read stream, telling the connection when it ends (the server exited or hung up)."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


@asynccontextmanager
async def _watched(transport: Any, on_end: Callable[[], None]) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read_stream, write_stream):
        yield _WatchedReadStream(read_stream, on_end), write_stream


class _StderrPipe:
    """A pipe the server writes its stderr into; a thread logs it line by line (never the terminal)."""

    def __init__(self, server: str) -> None:
        read_fd, write_fd = os.pipe()
        self.writer = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self.tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._server = server
        self._thread = threading.Thread(target=self._pump, args=(os.fdopen(read_fd, "rb"),), name=f"mcp-stderr-{server}", daemon=True)
        self._thread.start()

    def _pump(self, reader: Any) -> None:
        with reader:
            for raw in reader:
                line = redact(raw.decode("utf-8", "replace").rstrip())[:2_000]
                if line:
                    self.tail.append(line)
                    stderr_log.info("[%s] %s", self._server, line)

    def close_writer(self) -> None:
        """Our copy of the write end; the child keeps its own, so the pump ends when the child does."""
        with contextlib.suppress(OSError):
            self.writer.close()


class McpConnection:
    """One server. `open()` connects and lists tools; `on_tools` fires after a re-listing, `on_lost` once if the
    connection ends without `close()`. `env` and `headers` hold the resolved secrets (never logged)."""

    def __init__(self, config: McpServerConfig, *, env: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None,
                 auth: Any = None, on_tools: Callable[[McpConnection], None] | None = None,
                 on_lost: Callable[[McpConnection, str], None] | None = None, connect_timeout: float = CONNECT_TIMEOUT,
                 mode: str = "auto") -> None:
        self.config = config
        self.kind: str = config.kind
        self.tools: tuple[types.Tool, ...] = ()
        self.protocol_version = ""
        self.connect_timeout = connect_timeout
        self._env = dict(env if env is not None else config.env)
        self._headers = dict(headers if headers is not None else config.headers)
        self._auth = auth
        self._on_tools = on_tools or (lambda _c: None)
        self._on_lost = on_lost or (lambda _c, _r: None)
        self._mode = mode
        self._client: Any = None
        self._stderr: _StderrPipe | None = None
        self._statuses: list[tuple[str, int, str]] = []
        self._ended = asyncio.Event()
        self._ready: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._helpers: set[asyncio.Task[Any]] = set()
        self._refresh_wanted = False
        self._refresh_task: asyncio.Task[None] | None = None
        self._closing = False
        self.lost_reason = ""

    def __repr__(self) -> str:
        return f"McpConnection({self.config.name!r}, {self.kind}, tools={len(self.tools)})"

    @property
    def stderr_tail(self) -> list[str]:
        return list(self._stderr.tail) if self._stderr else []

    @property
    def alive(self) -> bool:
        return self._client is not None and not self._ended.is_set()

    # ---- lifecycle -------------------------------------------------------------------------------------------------

    async def open(self) -> None:
        """Connect, negotiate, list the tools. Raises what went wrong (describe it with `describe_error`)."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._task = loop.create_task(self._run(), name=f"mcp-{self.config.name}")
        await asyncio.wait({self._ready, self._task}, timeout=self.connect_timeout, return_when=asyncio.FIRST_COMPLETED)
        if self._ready.done():
            self._ready.result()
            return
        self._closing = True
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task
        if self._ready.done() and self._ready.exception() is not None:
            raise self._ready.exception()  # type: ignore[misc]
        raise TimeoutError(f"no answer within {self.connect_timeout:g} s")

    async def close(self) -> None:
        """Close the session; a stdio server gets its stdin closed, then SIGTERM, then SIGKILL (the SDK's sequence)."""
        self._closing = True
        self._ended.set()
        if self._task is not None and not self._task.done():
            with contextlib.suppress(BaseException):
                await self._task

    async def _run(self) -> None:
        assert self._ready is not None
        reason = ""
        try:
            async with AsyncExitStack() as stack:
                self._client = await self._connect(stack)
                self.protocol_version = str(self._client.protocol_version)
                await self._list_tools()
                self._start_list_changed_watch()
                self._ready.set_result(None)
                await self._ended.wait()
                for task in list(self._helpers):
                    task.cancel()
                for task in list(self._helpers):
                    with contextlib.suppress(BaseException):
                        await task
                if not self._closing:
                    reason = "the server stopped unexpectedly"
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc if isinstance(exc, Exception) else ConnectionLost("the connection was cancelled"))
                return
            if not self._closing:
                reason = describe_error(exc, self.config, self.connect_timeout)
                log.warning("MCP server %s: connection ended: %s", self.config.name, reason)
            if isinstance(exc, asyncio.CancelledError) and self._closing:
                raise
        finally:
            self._client = None
            self._ended.set()
            if self._stderr is not None:
                self._stderr.close_writer()
        if self._ready.done() and not self._ready.exception() and not self._closing:
            self.lost_reason = reason or "the server stopped unexpectedly"
            self._on_lost(self, self.lost_reason)

    def _on_eof(self) -> None:
        self._ended.set()

    # ---- transports ------------------------------------------------------------------------------------------------

    async def _connect(self, stack: AsyncExitStack) -> Any:
        if self.config.kind == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            self._stderr = _StderrPipe(self.config.name)
            params = StdioServerParameters(command=self.config.command or "", args=list(self.config.args), env=self._env or None,
                                           cwd=self.config.cwd or None)
            try:
                return await self._enter(stack, stdio_client(params, errlog=self._stderr.writer))
            finally:
                self._stderr.close_writer()
        if self.config.kind == "sse":
            return await self._enter_sse(stack)
        attempt = AsyncExitStack()
        try:
            client = await self._enter_streamable_http(attempt)
        except Exception as exc:
            await attempt.aclose()
            self._raise_if_sign_in_needed()
            if not self._rejected_post():
                raise
            log.info("MCP server %s: Streamable HTTP refused (HTTP %s); trying the older SSE transport", self.config.name,
                     self._rejected_post())
            self._statuses.clear()
            try:
                client = await self._enter_sse(stack)
            except NeedsSignIn:
                raise
            except Exception:  # noqa: BLE001 - report the Streamable HTTP failure
                raise exc from None
            self.kind = "sse"
            return client
        await stack.enter_async_context(attempt)
        return client

    def _http_client(self) -> Any:
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=self._headers or None, auth=self._auth)
        client.event_hooks["response"] = [*client.event_hooks.get("response", []), self._record_response]
        return client

    async def _record_response(self, response: Any) -> None:
        self._statuses.append((response.request.method, response.status_code, response.headers.get("www-authenticate", "")))

    def _rejected_post(self) -> int:
        """The 4xx status of a POST to the endpoint during connect, other than the ones that ask for credentials."""
        for method, status, _ in self._statuses:
            if method == "POST" and 400 <= status < 500 and status not in (401, 403):
                return status
        return 0

    def _raise_if_sign_in_needed(self) -> None:
        """A Bearer 401 means "sign in" when no OAuth provider took part (with one, its own error says more)."""
        if self._auth is not None:
            return
        for _, status, challenge in self._statuses:
            if status == 401 and challenge.lower().startswith("bearer"):
                raise NeedsSignIn(self.config.name)

    async def _enter_streamable_http(self, stack: AsyncExitStack) -> Any:
        from mcp.client.streamable_http import streamable_http_client

        http = await stack.enter_async_context(self._http_client())
        return await self._enter(stack, streamable_http_client(self.config.url or "", http_client=http))

    async def _enter_sse(self, stack: AsyncExitStack) -> Any:
        from mcp.client.sse import sse_client

        def factory(headers: Any = None, timeout: Any = None, auth: Any = None) -> Any:
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
            client.event_hooks["response"] = [self._record_response]
            return client

        try:
            return await self._enter(stack, sse_client(self.config.url or "", headers=self._headers or None, auth=self._auth,
                                                       httpx_client_factory=factory))
        except Exception:
            self._raise_if_sign_in_needed()
            raise

    async def _enter(self, stack: AsyncExitStack, transport: Any) -> Any:
        import mcp_types as types
        from mcp import Client

        client = Client(_watched(transport, self._on_eof), mode=self._mode, cache=None, message_handler=self._on_message,
                        client_info=types.Implementation(name=CLIENT_NAME, version="1"), read_timeout_seconds=self.connect_timeout)
        await stack.enter_async_context(client)
        return client

    # ---- tools -----------------------------------------------------------------------------------------------------

    async def _list_tools(self) -> None:
        client = self._client
        if client is None:
            raise ConnectionLost("the server stopped")
        found: dict[str, types.Tool] = {}
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                if len(found) < MAX_TOOLS:
                    found.setdefault(tool.name, tool)
            cursor = page.next_cursor
            if not cursor:
                break
        self.tools = tuple(found.values())

    def _start_list_changed_watch(self) -> None:
        """At protocol 2026-07-28 list changes come on a `subscriptions/listen` stream; before, as notifications."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        capabilities = self._client.server_capabilities
        if self.protocol_version in MODERN_PROTOCOL_VERSIONS and capabilities.tools and capabilities.tools.list_changed:
            self._spawn(self._listen_for_changes())

    async def _listen_for_changes(self) -> None:
        try:
            async with self._client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self._schedule_refresh()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a lost subscription only costs live updates
            log.info("MCP server %s: list-change subscription ended: %s", self.config.name, describe_error(exc, self.config))

    async def _on_message(self, message: Any) -> None:
        import mcp_types as types

        if isinstance(message, types.ToolListChangedNotification):
            self._schedule_refresh()
        elif isinstance(message, Exception):
            log.warning("MCP server %s: transport error: %s", self.config.name, describe_error(message, self.config))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._helpers.add(task)
        task.add_done_callback(self._helpers.discard)
        return task

    def _schedule_refresh(self) -> None:
        self._refresh_wanted = True
        if self._refresh_task is None or self._refresh_task.done():
            self._refresh_task = self._spawn(self._refresh())

    async def _refresh(self) -> None:
        while self._refresh_wanted and self.alive:
            self._refresh_wanted = False
            try:
                await self._list_tools()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001
                log.warning("MCP server %s: re-listing tools failed: %s", self.config.name, describe_error(exc, self.config))
                return
            log.info("MCP server %s: tool list changed (%d tools)", self.config.name, len(self.tools))
            self._on_tools(self)

    # ---- calls -----------------------------------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout: float) -> types.CallToolResult:
        """The server's answer. Raises ConnectionLost if the server goes away meanwhile, TimeoutError, or MCPError."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        client = self._client
        if client is None or self._ended.is_set():
            raise ConnectionLost(self.lost_reason or "the server is not connected")
        call = asyncio.ensure_future(client.call_tool(name, arguments, read_timeout_seconds=timeout))
        ended = asyncio.ensure_future(self._ended.wait())
        try:
            await asyncio.wait({call, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            if not call.done():
                call.cancel()
                with contextlib.suppress(BaseException):
                    await call
        if not call.done() or call.cancelled():
            raise ConnectionLost(self.lost_reason or "the server stopped during the call")
        try:
            return call.result()
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED or self._ended.is_set():
                raise ConnectionLost(self.lost_reason or "the server stopped during the call") from None
            raise
