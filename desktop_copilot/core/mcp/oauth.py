"""OAuth for remote MCP servers through the SDK's client provider: tokens and the registered client kept in the
keyring, browser sign-in, and a one-shot callback server on 127.0.0.1 that receives the redirect. Refresh is the SDK's."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import json
import logging
import threading
import time
import webbrowser
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from desktop_copilot.core.mcp.connection import NeedsSignIn, SignInTimedOut
from desktop_copilot.core.keys.secrets import Secret

log = logging.getLogger(__name__)

GetEntry = Callable[[str], "str | None"]
SetEntry = Callable[[str, str], None]
DeleteEntry = Callable[[str], None]

CALLBACK_PATH = "/callback"
EXPIRES_AT = "desktop_copilot_expires_at"
"""Added to the stored tokens: when the access token expires (the SDK keeps it only in memory)."""
SIGN_IN_TIMEOUT = 300.0
REFRESH_MARGIN = 30.0
_MAX_REQUEST = 16 * 1024
_PAGE = ("<!doctype html><meta charset=utf-8><title>Desktop Copilot</title>"
         "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{text}</p></body>")


def _register_secrets(model: Any) -> None:
    """Tokens and a client secret are registered for log redaction, like any key."""
    for name in ("access_token", "refresh_token", "client_secret"):
        value = getattr(model, name, None)
        if isinstance(value, str) and value:
            Secret(value)


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
            data = json.loads(raw)
            if isinstance(data, dict):
                data.pop(EXPIRES_AT, None)
            found = model.model_validate(data)
        except ValueError:
            log.warning("ignoring an unreadable keyring entry %s", entry)
            return None
        _register_secrets(found)
        return found

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        return self._load(tokens_entry(self.server), OAuthToken)

    async def set_tokens(self, tokens: Any) -> None:
        """Kept with the moment the access token expires, which `expires_in` alone loses across a restart."""
        _register_secrets(tokens)
        data = json.loads(tokens.model_dump_json(exclude_none=True))
        if tokens.expires_in is not None:
            data[EXPIRES_AT] = time.time() + int(tokens.expires_in)
        self._set(tokens_entry(self.server), json.dumps(data))

    def token_expiry(self) -> float | None:
        """When the stored access token expires (seconds since the epoch), None if unknown or never."""
        try:
            data = json.loads(self._get(tokens_entry(self.server)) or "null")
            value = data.get(EXPIRES_AT) if isinstance(data, dict) else None
            return float(value) if isinstance(value, int | float) else None
        except (ValueError, TypeError):
            return None

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        return self._load(client_entry(self.server), OAuthClientInformationFull)

    async def set_client_info(self, client_info: Any) -> None:
        _register_secrets(client_info)
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
    """Storage in the app's keyring service, in the backend the rest of the app uses and only if the app accepts it
    (never keyring's plain-file or null backends): SecretStoreError, saying so, at the first use otherwise."""
    from desktop_copilot.core.mcp.secret_store import KeyringSecrets

    secrets = KeyringSecrets()
    return KeyringTokenStorage(server, secrets.get, secrets.set, secrets.delete)


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
        """The AuthorizationCodeResult from the redirect (OAuthFlowError if the server refused, SignInTimedOut)."""
        assert self._result is not None
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        except TimeoutError:
            raise SignInTimedOut(f"the sign-in in the browser did not finish within {timeout:g} s; try again") from None

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
        Secret(query["code"])  # registered for log redaction: with the PKCE verifier it buys the tokens
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
    return _provider_class()(server_url, metadata, storage, redirect_handler=redirect, callback_handler=wait_for_code)


@functools.cache
def _provider_class() -> type:
    from mcp.client.auth import OAuthClientProvider

    class KeyringOAuthProvider(OAuthClientProvider):
        """The SDK's provider, which forgets when stored tokens expire: it would send an expired access token, take the
        401 for a sign-in and never refresh. This one restores the expiry kept with the tokens, and refreshes a little
        before the expiry (the SDK's own check has no margin, so a token could expire on its way to the server)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.context.update_token_expiry = self._update_token_expiry  # type: ignore[method-assign]

        def _update_token_expiry(self, token: Any) -> None:
            seconds = None if token.expires_in is None else int(token.expires_in)
            self.context.token_expiry_time = None if seconds is None else time.time() + seconds - _margin(seconds)

        async def _initialize(self) -> None:
            await super()._initialize()
            storage, tokens = self.context.storage, self.context.current_tokens
            if tokens is not None and isinstance(storage, KeyringTokenStorage):
                expiry = storage.token_expiry()
                seconds = int(tokens.expires_in) if tokens.expires_in is not None else 0
                self.context.token_expiry_time = None if expiry is None else expiry - _margin(seconds)

    return KeyringOAuthProvider


def _margin(lifetime: float) -> float:
    """How long before its expiry an access token is refreshed: a tenth of its lifetime, at most REFRESH_MARGIN."""
    return min(REFRESH_MARGIN, max(lifetime, 0) / 10)


def default_open_browser(url: str) -> None:
    """Opens the system browser on a thread of its own: some browsers (a BROWSER command, a text browser) only return
    when they are closed, and the callback server on the MCP loop must stay free to take the redirect meanwhile."""

    def open_it() -> None:
        try:
            if not webbrowser.open(url):
                log.warning("no browser could be opened for the sign-in; open the address shown by the app")
        except Exception as exc:  # noqa: BLE001 - the address is shown, so the user can still sign in
            log.warning("opening the browser failed: %s", type(exc).__name__)

    threading.Thread(target=open_it, name="open-browser", daemon=True).start()
