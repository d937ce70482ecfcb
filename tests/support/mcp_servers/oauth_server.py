"""A real MCP server over Streamable HTTP protected by OAuth, built with the SDK's server-side auth: an in-memory
authorization server (dynamic client registration, an authorize endpoint that approves at once and redirects straight
back with a code, a token endpoint for authorization_code + PKCE and refresh_token) with short-lived access tokens.

Run: python -m tests.support.mcp_servers.oauth_server --port N [--access-token-seconds S] [--refuse-sign-in]

Tools: the demo server's (read_note, delete_note, …) and auth_stats (how many tokens were issued and refreshed).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import threading
import time
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from tests.support.mcp_servers.demo_server import build_server
from tests.support.mcp_servers.http_fixture import DemoHttpServer

SUBJECT = "demo-user"
CODE_SECONDS = 300


class InMemoryAuthorizationServer:
    """The SDK's OAuthAuthorizationServerProvider over dicts. Every sign-in is approved at once (no login page) unless
    `refuse` is set, which redirects back with access_denied. Access tokens live `access_seconds`; refresh rotates both."""

    def __init__(self, access_seconds: float, refuse: bool = False) -> None:
        self.access_seconds = access_seconds
        self.refuse = refuse
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, tuple[AccessToken, float]] = {}
        """token -> (the token, its expiry as a float: the SDK's own check has one-second steps)."""
        self.refresh: dict[str, RefreshToken] = {}
        self.stats = {"registered": 0, "authorized": 0, "issued": 0, "refreshed": 0, "rejected": 0}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id or ""] = client_info
        self.stats["registered"] += 1

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if self.refuse:
            raise AuthorizeError("access_denied", "the demo server refuses every sign-in")
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + CODE_SECONDS, client_id=client.client_id or "",
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource, subject=SUBJECT,
        )
        self.stats["authorized"] += 1
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, authorization_code: str) -> AuthorizationCode | None:
        code = self.codes.get(authorization_code)
        return code if code is not None and code.client_id == client.client_id else None

    async def exchange_authorization_code(self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode) -> OAuthToken:
        if self.codes.pop(authorization_code.code, None) is None:
            raise TokenError("invalid_grant", "the authorization code was used already")
        return self._issue(client.client_id or "", authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        token = self.refresh.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        if self.refresh.pop(refresh_token.token, None) is None:
            raise TokenError("invalid_grant", "the refresh token was used already")
        self.stats["refreshed"] += 1
        return self._issue(client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or found[1] <= time.time():
            self.stats["rejected"] += 1
            return None
        return found[0]

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = f"demo-at-{secrets.token_urlsafe(24)}", f"demo-rt-{secrets.token_urlsafe(24)}"
        expires = time.time() + self.access_seconds
        self.access[access] = (AccessToken(token=access, client_id=client_id, scopes=scopes, expires_at=int(expires) + 1,
                                           resource=resource, subject=SUBJECT), expires)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource, subject=SUBJECT)
        self.stats["issued"] += 1
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=max(1, round(self.access_seconds)),
                          refresh_token=refresh, scope=" ".join(scopes) or None)


def build_oauth_server(port: int, access_seconds: float, refuse: bool = False) -> Any:
    base = f"http://127.0.0.1:{port}"
    provider = InMemoryAuthorizationServer(access_seconds, refuse)
    auth = AuthSettings(issuer_url=base, resource_server_url=f"{base}/mcp", validate_token_resource=True,
                        client_registration_options=ClientRegistrationOptions(enabled=True),
                        revocation_options=RevocationOptions(enabled=True))
    server = build_server("oauth-demo", auth_server_provider=provider, auth=auth, log_level="WARNING")

    @server.tool()
    def auth_stats() -> str:
        """How many clients registered and how many tokens were issued, refreshed and rejected (JSON)."""
        return json.dumps(provider.stats)

    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--access-token-seconds", type=float, default=2.0)
    parser.add_argument("--refuse-sign-in", action="store_true")
    args = parser.parse_args(argv)
    server = build_oauth_server(args.port, args.access_token_seconds, args.refuse_sign_in)
    print("oauth demo server: starting", file=sys.stderr, flush=True)
    server.run("streamable-http", host="127.0.0.1", port=args.port)


class OAuthDemoServer(DemoHttpServer):
    """`with OAuthDemoServer(access_seconds=2) as server: server.url` — the OAuth-protected server listens until the
    block ends. `play_browser(url)` does what a browser would: follows the authorize URL's redirects to the callback."""

    def __init__(self, *, access_seconds: float = 2.0, refuse_sign_in: bool = False) -> None:
        extra = ("--access-token-seconds", str(access_seconds), *(("--refuse-sign-in",) if refuse_sign_in else ()))
        super().__init__("http", extra_args=extra)

    name = "the OAuth demo server"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "tests.support.mcp_servers.oauth_server", "--port", str(self.port), *self.extra_args]


class FakeBrowser:
    """An `open_browser` for McpManager that plays the browser on a thread of its own (as a real browser is a process of
    its own: the callback server must stay free to answer): GET the authorize URL and follow the redirects."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.landed: list[tuple[int, str, str]] = []
        """(status, final URL, page text) of each visit."""
        self.errors: list[BaseException] = []
        self._threads: list[threading.Thread] = []

    def __call__(self, url: str) -> None:
        self.opened.append(url)
        thread = threading.Thread(target=self.visit, args=(url,), name="fake-browser", daemon=True)
        self._threads.append(thread)
        thread.start()

    def visit(self, url: str) -> None:
        import httpx

        try:
            response = httpx.get(url, follow_redirects=True, timeout=30)
            self.landed.append((response.status_code, str(response.url), response.text))
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            self.errors.append(exc)

    def join(self, timeout: float = 30) -> None:
        for thread in self._threads:
            thread.join(timeout)


if __name__ == "__main__":
    main()
