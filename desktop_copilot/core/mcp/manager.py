"""All configured MCP servers: one background thread with its own event loop owns every connection; the GUI's loop
and `ask`'s loop reach it only through thread-safe snapshots and awaitable bridges. Restarts a crashed server once."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from desktop_copilot.core.mcp.connection import ConnectionLost, McpConnection, describe_error
from desktop_copilot.core.mcp.oauth import KeyringTokenStorage, LoopbackCallback, default_open_browser, keyring_token_storage, oauth_provider, registered_port
from desktop_copilot.core.mcp.results import to_tool_result
from desktop_copilot.core.mcp.server_config import SECRET_REF, McpServerConfig
from desktop_copilot.core.mcp.tools import McpTool
from desktop_copilot.core.keys.redaction import redact
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.tools.base import Risk, Tool, ToolError, ToolProvider, ToolResult

log = logging.getLogger(__name__)
T = TypeVar("T")

TokenStoreFactory = Callable[[str], KeyringTokenStorage]


class ServerState(StrEnum):
    DISABLED = "disabled"
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    STOPPED = "stopped"


@dataclass(frozen=True)
class ServerTool:
    name: str
    """The server's own name for the tool."""
    model_name: str
    """What the model calls it: mcp__server__tool, cut to provider rules."""
    title: str
    description: str
    risk: Risk
    input_schema: dict


@dataclass(frozen=True)
class ServerStatus:
    name: str
    state: ServerState
    where: str
    kind: str
    identity: str
    tools: tuple[ServerTool, ...] = ()
    last_error: str = ""
    restarts: int = 0


class MissingSecret(Exception):
    def __init__(self, entry: str) -> None:
        super().__init__(f"the secret {entry} is not in the keyring; run desktop-copilot mcp add again")


@dataclass
class _Slot:
    config: McpServerConfig
    state: ServerState = ServerState.STARTING
    kind: str = ""
    conn: McpConnection | None = None
    tools: tuple[McpTool, ...] = ()
    last_error: str = ""
    restarts: int = 0
    crashes: int = 0
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class McpManager(ToolProvider):
    """The MCP servers as a ToolProvider. Build it with a config loader and a secret resolver, `start()` it, and
    `stop()` it at exit. Background connects never open a browser; `login(name)` signs in (OAuth) on request."""

    def __init__(self, load_configs: Callable[[], list[McpServerConfig]], resolve_secret: Callable[[str], str | None], *,
                 token_store_factory: TokenStoreFactory | None = None, open_browser: Callable[[str], None] | None = None,
                 connect_timeout: float = 30.0) -> None:
        self._load_configs = load_configs
        self._resolve_secret = resolve_secret
        self._token_store = token_store_factory or keyring_token_storage
        self._open_browser = open_browser or default_open_browser
        self.connect_timeout = connect_timeout
        self._slots: dict[str, _Slot] = {}
        self._lock = threading.Lock()
        self._statuses: tuple[ServerStatus, ...] = ()
        self._tools: tuple[Tool, ...] = ()
        self._listeners: list[Callable[[], None]] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._started = False
        self._loading = False
        self._stopped = False

    @classmethod
    def from_configs(cls, configs: list[McpServerConfig], secrets: dict[str, str] | None = None, **kwargs: Any) -> McpManager:
        """A manager over a fixed list of configs, with secrets from a dict (tests, `mcp list`)."""
        known = dict(secrets or {})
        return cls(lambda: list(configs), known.get, **kwargs)

    def __repr__(self) -> str:
        return f"McpManager({len(self._statuses)} servers)"

    # ---- the thread ------------------------------------------------------------------------------------------------

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                if self._stopped:
                    raise RuntimeError("the MCP manager was stopped")
                self._loop = asyncio.SelectorEventLoop()  # not new_event_loop(): qasync swaps the policy (DESIGN §5)
                self._thread = threading.Thread(target=self._thread_main, args=(self._loop,), name="mcp", daemon=True)
                self._thread.start()
            return self._loop

    @staticmethod
    def _thread_main(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            with contextlib.suppress(BaseException):
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            with contextlib.suppress(BaseException):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _bridge(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the MCP loop and await it from the caller's loop; cancelling the await cancels it there."""
        loop = self._ensure_loop()
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))

    # ---- snapshots -------------------------------------------------------------------------------------------------

    def tools(self) -> list[Tool]:
        return list(self._tools)

    def statuses(self) -> list[ServerStatus]:
        return list(self._statuses)

    def status(self, name: str) -> ServerStatus | None:
        return next((s for s in self._statuses if s.name == name), None)

    def subscribe(self, listener: Callable[[], None]) -> None:
        """`listener()` runs on the MCP thread after any change of state or tools."""
        with self._lock:
            self._listeners.append(listener)

    def _status_of(self, slot: _Slot) -> ServerStatus:
        cfg = slot.config
        tools = tuple(ServerTool(t.tool_name, t.name, t.title, t.description, t.risk, t.input_schema) for t in slot.tools)
        return ServerStatus(cfg.name, slot.state, cfg.where, slot.kind or cfg.kind, cfg.identity, tools, slot.last_error, slot.restarts)

    def _publish(self) -> None:
        statuses = tuple(self._status_of(slot) for slot in self._slots.values())
        tools = tuple(t for slot in self._slots.values() if slot.state is ServerState.READY for t in slot.tools)
        with self._lock:
            self._statuses, self._tools = statuses, tools
            listeners = list(self._listeners)
        if not self._settling():
            waiters, self._waiters = self._waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
        for listener in listeners:
            try:
                listener()
            except Exception:
                log.exception("an MCP state listener failed")

    def _settling(self) -> bool:
        return self._loading or any(slot.state is ServerState.STARTING for slot in self._slots.values())

    # ---- public lifecycle ------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the thread and connect every enabled server in the background; returns at once."""
        if self._started:
            return
        self._started = True
        self._loading = True
        asyncio.run_coroutine_threadsafe(self._start_all(), self._ensure_loop())

    async def wait_ready(self, timeout: float) -> None:
        """Return when no server is starting any more, or after `timeout` seconds."""
        if not self._started:
            return
        await self._bridge(self._wait_settled(timeout))

    async def test(self, config: McpServerConfig, timeout: float = 20.0) -> ServerStatus:
        """Connect once, list the tools, disconnect: READY with the tools, or FAILED with the reason."""
        return await self._bridge(self._test(config, timeout))

    async def reload(self) -> None:
        """Read the configs again: start new and changed servers, stop removed ones."""
        await self._bridge(self._reload())

    async def restart(self, name: str) -> None:
        await self._bridge(self._restart(name))

    async def login(self, name: str, timeout: float = 300.0) -> ServerStatus:
        """Sign in to a remote server through the browser (OAuth), keep the tokens, and connect."""
        return await self._bridge(self._login(name, timeout))

    async def call(self, server: str, tool: str, arguments: dict[str, Any], timeout: float) -> ToolResult:
        """Call `tool` on `server` (from any loop). Raises ToolError saying what went wrong."""
        return await self._bridge(self._call(server, tool, arguments, timeout))

    def stop(self, timeout: float = 5.0) -> None:
        """Close every session and stop every server process, then end the thread (blocking; call at exit)."""
        with self._lock:
            loop, thread, already, self._stopped = self._loop, self._thread, self._stopped, True
        if loop is None or thread is None or already:  # a second stop() has nothing to do
            return
        future = asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
        try:
            future.result(timeout)
        except (concurrent.futures.TimeoutError, TimeoutError):
            log.warning("MCP servers did not all stop within %g s", timeout)
        except Exception:
            log.exception("stopping the MCP servers failed")
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)

    # ---- on the MCP loop -------------------------------------------------------------------------------------------

    async def _start_all(self) -> None:
        try:
            configs = self._load_configs()
        except Exception as exc:  # noqa: BLE001 - a broken mcp.json must not take the app down
            log.warning("cannot read the MCP server configuration: %s", redact(str(exc)))
            configs = []
        for config in configs:
            self._add(config)
        self._loading = False
        self._publish()

    def _add(self, config: McpServerConfig) -> None:
        slot = _Slot(config=config, state=ServerState.DISABLED if config.disabled else ServerState.STARTING)
        self._slots[config.name] = slot
        if not config.disabled:
            self._launch(slot)

    def _launch(self, slot: _Slot) -> None:
        slot.state = ServerState.STARTING
        slot.task = asyncio.get_running_loop().create_task(self._connect(slot), name=f"mcp-connect-{slot.config.name}")

    def _resolve(self, config: McpServerConfig) -> tuple[dict[str, str], dict[str, str]]:
        """env and headers with "${keyring:...}" references replaced by the secrets (registered for log redaction)."""
        resolved: list[dict[str, str]] = []
        for values in (config.env, config.headers):
            out = {}
            for key, value in values.items():
                match = SECRET_REF.match(value)
                if match:
                    secret = self._resolve_secret(match["name"])
                    if secret is None:
                        raise MissingSecret(match["name"])
                    value = Secret(secret).reveal()
                out[key] = value
            resolved.append(out)
        return resolved[0], resolved[1]

    def _storage(self, config: McpServerConfig) -> KeyringTokenStorage | None:
        if config.kind == "stdio":
            return None
        try:
            return self._token_store(config.name)
        except Exception as exc:  # noqa: BLE001
            log.warning("MCP server %s: no token storage: %s", config.name, redact(str(exc)))
            return None

    async def _background_auth(self, config: McpServerConfig) -> Any:
        """Stored OAuth tokens (refreshed by the SDK) when there are any; no browser."""
        storage = self._storage(config)
        try:
            if storage is None or not storage.has_tokens():
                return None
        except Exception as exc:  # noqa: BLE001 - no keyring: connect without OAuth
            log.info("MCP server %s: no stored sign-in (%s)", config.name, redact(type(exc).__name__))
            return None
        client = await storage.get_client_info()
        uri = (client.redirect_uris or ["http://127.0.0.1/callback"])[0] if client else "http://127.0.0.1/callback"
        return oauth_provider(config.url or "", storage, str(uri))

    def _new_connection(self, config: McpServerConfig, timeout: float, auth: Any, slot: _Slot | None) -> McpConnection:
        env, headers = self._resolve(config)
        return McpConnection(config, env=env, headers=headers, auth=auth, connect_timeout=timeout,
                             on_tools=(lambda conn: self._tools_changed(slot, conn)) if slot else None,
                             on_lost=(lambda conn, reason: self._lost(slot, conn, reason)) if slot else None)

    async def _connect(self, slot: _Slot, auth: Any = None) -> None:
        config = slot.config
        self._publish()
        try:
            if auth is None:
                auth = await self._background_auth(config)
            conn = self._new_connection(config, self.connect_timeout, auth, slot)
            await conn.open()
        except asyncio.CancelledError:
            raise
        except MissingSecret as exc:
            self._fail(slot, str(exc))
        except Exception as exc:  # noqa: BLE001 - every failure becomes words in last_error
            self._fail(slot, describe_error(exc, config, self.connect_timeout))
        else:
            if self._slots.get(config.name) is not slot:  # removed or replaced meanwhile
                await conn.close()
                return
            slot.conn, slot.kind, slot.state, slot.last_error = conn, conn.kind, ServerState.READY, ""
            slot.tools = self._mcp_tools(config, conn)
            log.info("MCP server %s ready over %s (%d tools)", config.name, conn.kind, len(slot.tools))
            self._publish()

    def _fail(self, slot: _Slot, error: str) -> None:
        log.warning("MCP server %s failed: %s", slot.config.name, error)
        slot.state, slot.last_error, slot.tools, slot.conn = ServerState.FAILED, redact(error), (), None
        self._publish()

    def _mcp_tools(self, config: McpServerConfig, conn: McpConnection) -> tuple[McpTool, ...]:
        name = config.name

        async def call(tool: str, arguments: dict[str, Any], timeout: float) -> ToolResult:
            return await self.call(name, tool, arguments, timeout)

        return tuple(McpTool(name, config.identity, tool, call) for tool in conn.tools)

    def _tools_changed(self, slot: _Slot | None, conn: McpConnection) -> None:
        if slot is not None and slot.conn is conn:
            slot.tools = self._mcp_tools(slot.config, conn)
            self._publish()

    def _lost(self, slot: _Slot | None, conn: McpConnection, reason: str) -> None:
        if slot is None or slot.conn is not conn:
            return
        tail = conn.stderr_tail
        if tail:
            reason = f"{reason} (last output: {tail[-1][:200]})"
        slot.conn, slot.tools = None, ()
        if slot.crashes == 0:
            slot.crashes, slot.restarts = 1, slot.restarts + 1
            slot.last_error = redact(reason)
            log.warning("MCP server %s stopped: %s; restarting it once", slot.config.name, reason)
            self._launch(slot)
            self._publish()
        else:
            self._fail(slot, f"{reason}; it had already been restarted once, so it stays stopped (use Restart)")

    async def _wait_settled(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._settling():
            remaining = deadline - loop.time()
            if remaining <= 0:
                return
            waiter = loop.create_future()
            self._waiters.append(waiter)
            try:
                await asyncio.wait_for(waiter, remaining)
            except TimeoutError:
                return

    async def _test(self, config: McpServerConfig, timeout: float) -> ServerStatus:
        slot = _Slot(config=config)
        conn = None
        try:
            conn = self._new_connection(config, timeout, await self._background_auth(config), None)
            await conn.open()
            slot.state, slot.kind, slot.tools = ServerState.READY, conn.kind, self._mcp_tools(config, conn)
        except MissingSecret as exc:
            slot.state, slot.last_error = ServerState.FAILED, str(exc)
        except Exception as exc:  # noqa: BLE001
            slot.state, slot.last_error = ServerState.FAILED, describe_error(exc, config, timeout)
        finally:
            if conn is not None:
                await conn.close()
        return self._status_of(slot)

    async def _stop_slot(self, slot: _Slot, state: ServerState = ServerState.STOPPED) -> None:
        if slot.task is not None and not slot.task.done():
            slot.task.cancel()
            with contextlib.suppress(BaseException):
                await slot.task
        conn, slot.conn, slot.tools = slot.conn, None, ()
        slot.state = state
        if conn is not None:
            await conn.close()

    async def _reload(self) -> None:
        try:
            configs = {c.name: c for c in self._load_configs()}
        except Exception as exc:  # noqa: BLE001
            log.warning("cannot read the MCP server configuration: %s", redact(str(exc)))
            return
        for name in [n for n in self._slots if n not in configs]:
            slot = self._slots.pop(name)
            await self._stop_slot(slot)
        for name, config in configs.items():
            old = self._slots.get(name)
            if old is not None and _same(old.config, config):
                continue
            if old is not None:
                await self._stop_slot(old)
            self._add(config)
        self._publish()

    async def _restart(self, name: str) -> None:
        slot = self._slots.get(name)
        if slot is None:
            raise KeyError(name)
        await self._stop_slot(slot)
        slot.crashes, slot.last_error = 0, ""
        if slot.config.disabled:
            slot.state = ServerState.DISABLED
            self._publish()
            return
        slot.state = ServerState.STARTING
        slot.task = asyncio.get_running_loop().create_task(self._connect(slot))
        await slot.task

    async def _login(self, name: str, timeout: float) -> ServerStatus:
        slot = self._slots.get(name)
        if slot is None:
            raise KeyError(name)
        if slot.config.kind == "stdio":
            raise ValueError(f"{name} is a local server; only remote servers sign in")
        storage = self._storage(slot.config)
        if storage is None:
            raise RuntimeError("no keyring to keep the sign-in in")
        await self._stop_slot(slot, ServerState.STARTING)
        slot.crashes, slot.last_error = 0, ""
        stored = await storage.get_client_info()
        callback = LoopbackCallback()
        await callback.start(registered_port(stored))
        if stored is not None and registered_port(stored) != callback.port:
            storage.forget_client()  # registered for another port: register again with this redirect URI
        try:
            auth = oauth_provider(slot.config.url or "", storage, callback.redirect_uri, open_browser=self._open_browser,
                                  callback=callback, sign_in_timeout=timeout)
            saved, self.connect_timeout = self.connect_timeout, self.connect_timeout + timeout  # the sign-in's wait runs out first
            try:
                slot.task = asyncio.get_running_loop().create_task(self._connect(slot, auth))
                await slot.task
            finally:
                self.connect_timeout = saved
        finally:
            await callback.close()
        return self._status_of(slot)

    async def _call(self, server: str, tool: str, arguments: dict[str, Any], timeout: float) -> ToolResult:
        from mcp.shared.exceptions import MCPError
        from mcp_types import INTERNAL_ERROR, PARSE_ERROR, REQUEST_TIMEOUT

        slot = self._slots.get(server)
        if slot is None:
            raise ToolError(f"The MCP server {server} is not configured any more.")
        if slot.conn is None or slot.state is not ServerState.READY:
            detail = f": {slot.last_error}" if slot.last_error else ""
            raise ToolError(f"The MCP server {server} is not running ({slot.state.value}{detail}).")
        try:
            result = await slot.conn.call_tool(tool, arguments, timeout)
        except ConnectionLost as exc:
            raise ToolError(f"The MCP server {server} stopped during the call to {tool} ({exc}); the tool did not finish. "
                            "The app restarts a crashed server once.") from None
        except TimeoutError:
            raise ToolError(f"{tool} on the MCP server {server} did not answer within {timeout:g} s.") from None
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise ToolError(f"{tool} on the MCP server {server} did not answer within {timeout:g} s.") from None
            if exc.code == PARSE_ERROR:  # the answer arrived broken (cut off, or not JSON-RPC)
                raise ToolError(f"The MCP server {server} sent an answer to {tool} that could not be read, so whether the tool "
                                f"ran is unknown. Try again, or check the server. ({redact(exc.message)[:300]})") from None
            if exc.code == INTERNAL_ERROR and exc.message == "Server returned an error response":  # an HTTP error status
                raise ToolError(f"The MCP server {server} answered the call to {tool} with an HTTP error: it may be busy or "
                                "failing. Try again in a little while.") from None
            raise ToolError(f"The MCP server {server} refused the call to {tool}: {redact(exc.message)[:1000]}") from None
        return to_tool_result(result)

    async def _shutdown(self) -> None:
        slots = list(self._slots.values())
        await asyncio.gather(*(self._stop_slot(slot) for slot in slots), return_exceptions=True)
        self._publish()


def _same(a: McpServerConfig, b: McpServerConfig) -> bool:
    return a.model_dump(by_alias=True) == b.model_dump(by_alias=True)
