"""OAuth for remote MCP servers through the SDK's client provider: tokens and the registered client kept in the
keyring, browser sign-in, and a one-shot callback server on 127.0.0.1 that receives the redirect. Refresh is the SDK's."""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import webbrowser
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from desktop_copilot.core.mcp.connection import NeedsSignIn

log = logging.getLogger(__name__)

GetEntry = Callable[[str], "str | None"]
SetEntry = Callable[[str, str], None]
DeleteEntry = Callable[[str], None]

CALLBACK_PATH = "/callback"
SIGN_IN_TIMEOUT = 300.0
_MAX_REQUEST = 16 * 1024
_PAGE = ("<!doctype html><meta charset=utf-8><title>Desktop Copilot</title>"
         "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{text}</p></body>")


def tokens_entry(server: str) -> str:
    return f"mcp/{server}/oauth/tokens"


def client_entry(server: str) -> str:
    return f"mcp/{server}/oauth/client"


class KeyringTokenStorage:
    """The SDK's TokenStorage over keyring entries "mcp/<server>/oauth/tokens" and ".../client" (JSON each)."""

    def __init__(self, server: str, get: GetEntry, set_: SetEntry, delete: DeleteEntry) -> None:
        self.server = server
        self._get, self._set, self._delete = get, set_, delete

    def __repr__(self) -> str:
        return f"KeyringTokenStorage({self.server!r})"

    def _load(self, entry: str, model: Any) -> Any:
        raw = self._get(entry)
        if not raw:
            return None
        try:
            return model.model_validate_json(raw)
        except ValueError:
            log.warning("ignoring an unreadable keyring entry %s", entry)
            return None

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        return self._load(tokens_entry(self.server), OAuthToken)

    async def set_tokens(self, tokens: Any) -> None:
        self._set(tokens_entry(self.server), tokens.model_dump_json(exclude_none=True))

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        return self._load(client_entry(self.server), OAuthClientInformationFull)

    async def set_client_info(self, client_info: Any) -> None:
        self._set(client_entry(self.server), client_info.model_dump_json(exclude_none=True))

    def has_tokens(self) -> bool:
        return bool(self._get(tokens_entry(self.server)))

    def forget_client(self) -> None:
        with contextlib.suppress(Exception):
            self._delete(client_entry(self.server))

    def sign_out(self) -> None:
        for entry in (tokens_entry(self.server), client_entry(self.server)):
            with contextlib.suppress(Exception):
                self._delete(entry)


def keyring_token_storage(server: str) -> KeyringTokenStorage:
    """Storage in the app's keyring service (the backend the rest of the app uses)."""
    from desktop_copilot.core import keyring_store

    def backend() -> Any:
        return keyring_store.default_backend()

    return KeyringTokenStorage(
        server,
        lambda entry: backend().get_password(keyring_store.SERVICE, entry),
        lambda entry, value: backend().set_password(keyring_store.SERVICE, entry, value),
        lambda entry: backend().delete_password(keyring_store.SERVICE, entry),
    )


class LoopbackCallback:
    """A tiny HTTP server on 127.0.0.1 that takes the authorization redirect (code, state) once."""

    def __init__(self) -> None:
        self.port = 0
        self._server: asyncio.AbstractServer | None = None
        self._result: asyncio.Future[Any] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self, preferred_port: int = 0) -> None:
        """Listen on `preferred_port` (the one the client was registered with) if free, else on any free port."""
        self._result = asyncio.get_running_loop().create_future()
        for port in dict.fromkeys([preferred_port, 0]):
            try:
                self._server = await asyncio.start_server(self._serve, "127.0.0.1", port)
                break
            except OSError:
                continue
        assert self._server is not None
        self.port = self._server.sockets[0].getsockname()[1]

    async def wait(self, timeout: float = SIGN_IN_TIMEOUT) -> Any:
        """The AuthorizationCodeResult from the redirect (OAuthFlowError if the server refused, TimeoutError)."""
        assert self._result is not None
        return await asyncio.wait_for(asyncio.shield(self._result), timeout)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            status, title, text = self._handle(head[:_MAX_REQUEST].decode("latin-1").split("\r\n", 1)[0])
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            status, title, text = "400 Bad Request", "Bad request", "This address only takes the sign-in redirect."
        body = _PAGE.format(title=html.escape(title), text=html.escape(text)).encode()
        with contextlib.suppress(ConnectionError):
            writer.write(f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
                         "Cache-Control: no-store\r\nConnection: close\r\n\r\n".encode() + body)
            await writer.drain()
        writer.close()

    def _handle(self, request_line: str) -> tuple[str, str, str]:
        from mcp.client.auth import AuthorizationCodeResult, OAuthFlowError

        parts = request_line.split(" ")
        if len(parts) != 3 or parts[0] != "GET" or urlsplit(parts[1]).path != CALLBACK_PATH:
            return "404 Not Found", "Not found", "This address only takes the sign-in redirect."
        query = {k: v[0][:4096] for k, v in parse_qs(urlsplit(parts[1]).query).items()}
        assert self._result is not None
        if self._result.done():
            return "409 Conflict", "Already signed in", "You can close this tab."
        if "error" in query:
            reason = query.get("error_description") or query["error"]
            self._result.set_exception(OAuthFlowError(f"the sign-in was refused: {reason[:200]}"))
            return "200 OK", "Sign-in failed", f"{reason[:200]}. You can close this tab."
        if not query.get("code"):
            return "400 Bad Request", "Bad request", "The redirect carried no authorization code."
        self._result.set_result(AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss")))
        return "200 OK", "Signed in to the MCP server", "You can close this tab and return to Desktop Copilot."


def registered_port(client_info: Any) -> int:
    """The loopback port in the registered client's redirect URI (0 if none)."""
    for uri in (getattr(client_info, "redirect_uris", None) or []):
        parsed = urlsplit(str(uri))
        if parsed.hostname == "127.0.0.1" and parsed.port:
            return parsed.port
    return 0


def oauth_provider(server_url: str, storage: KeyringTokenStorage, redirect_uri: str, *,
                   open_browser: Callable[[str], Any] | None = None, callback: LoopbackCallback | None = None,
                   sign_in_timeout: float = SIGN_IN_TIMEOUT) -> Any:
    """The SDK's OAuthClientProvider. Without `open_browser` and `callback` it only uses and refreshes stored
    tokens: a sign-in it would need raises NeedsSignIn (a background connect never opens a browser)."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    async def redirect(url: str) -> None:
        if open_browser is None or callback is None:
            raise NeedsSignIn(storage.server)
        log.info("MCP server %s: opening the browser to sign in", storage.server)
        result = open_browser(url)
        if isinstance(result, Awaitable):
            await result

    async def wait_for_code() -> Any:
        if callback is None:
            raise NeedsSignIn(storage.server)
        return await callback.wait(sign_in_timeout)

    metadata = OAuthClientMetadata(
        client_name="Desktop Copilot",
        redirect_uris=[redirect_uri],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(server_url, metadata, storage, redirect_handler=redirect, callback_handler=wait_for_code)


def default_open_browser(url: str) -> None:
    webbrowser.open(url)
