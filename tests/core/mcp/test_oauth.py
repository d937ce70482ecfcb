"""OAuth pieces: tokens and the registered client kept in the (in-memory) keyring, and the loopback callback server
that receives the browser's redirect."""

from __future__ import annotations

import asyncio
import secrets

import httpx
import pytest
from mcp.client.auth import OAuthFlowError
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from desktop_copilot.core.keys.keyring_store import SERVICE
from desktop_copilot.core.mcp.oauth import LoopbackCallback, keyring_token_storage, oauth_provider, registered_port
from desktop_copilot.core.keys.redaction import redact
from tests.support.memory_keyring import use_memory_keyring


@pytest.mark.asyncio
async def test_tokens_and_client_round_trip_through_the_keyring(monkeypatch):
    backend = use_memory_keyring(monkeypatch)
    storage = keyring_token_storage("remote")
    assert await storage.get_tokens() is None and not storage.has_tokens()
    await storage.set_tokens(OAuthToken(access_token="at-123456789", refresh_token="rt-987654321", expires_in=3600))
    client = OAuthClientInformationFull(client_id="cid", redirect_uris=["http://127.0.0.1:8765/callback"])
    await storage.set_client_info(client)

    assert set(backend.entries) == {(SERVICE, "mcp/remote/oauth/tokens"), (SERVICE, "mcp/remote/oauth/client")}
    again = keyring_token_storage("remote")
    tokens = await again.get_tokens()
    assert (tokens.access_token, tokens.refresh_token, tokens.expires_in) == ("at-123456789", "rt-987654321", 3600)
    assert (await again.get_client_info()).client_id == "cid"
    assert registered_port(await again.get_client_info()) == 8765
    assert "at-123456789" not in repr(again)

    again.sign_out()
    assert backend.entries == {} and await again.get_tokens() is None


@pytest.mark.asyncio
async def test_an_unreadable_entry_is_ignored(monkeypatch):
    backend = use_memory_keyring(monkeypatch)
    backend.set_password(SERVICE, "mcp/remote/oauth/tokens", "{not json")
    assert await keyring_token_storage("remote").get_tokens() is None


async def _get(url: str) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.get(url)


@pytest.mark.asyncio
async def test_the_callback_server_takes_the_redirect():
    callback = LoopbackCallback()
    await callback.start()
    try:
        assert callback.redirect_uri == f"http://127.0.0.1:{callback.port}/callback"
        assert (await _get(f"http://127.0.0.1:{callback.port}/other")).status_code == 404
        page = await _get(callback.redirect_uri + "?code=abc&state=xyz")
        assert page.status_code == 200 and "You can close this tab" in page.text
        result = await callback.wait(5)
        assert (result.code, result.state) == ("abc", "xyz")
        assert (await _get(callback.redirect_uri + "?code=again&state=xyz")).status_code == 409
    finally:
        await callback.close()


@pytest.mark.asyncio
async def test_the_authorization_code_is_masked_like_a_key():
    """With the PKCE verifier the code buys the tokens: once received, no log line or shown error carries it."""
    code = secrets.token_urlsafe(32)
    callback = LoopbackCallback()
    await callback.start()
    try:
        await _get(callback.redirect_uri + f"?code={code}&state=xyz")
        assert (await callback.wait(5)).code == code
    finally:
        await callback.close()
    assert code not in redact(f"exchanging {code} for tokens")


@pytest.mark.asyncio
async def test_a_refused_sign_in_is_an_error_and_the_page_is_escaped():
    callback = LoopbackCallback()
    await callback.start()
    try:
        page = await _get(callback.redirect_uri + "?error=access_denied&error_description=%3Cscript%3Ex%3C/script%3E")
        assert "<script>" not in page.text and "&lt;script&gt;" in page.text
        with pytest.raises(OAuthFlowError, match="refused"):
            await callback.wait(5)
    finally:
        await callback.close()


@pytest.mark.asyncio
async def test_the_callback_prefers_the_registered_port():
    first = LoopbackCallback()
    await first.start()
    port = first.port
    await first.close()
    again = LoopbackCallback()
    await again.start(port)
    try:
        assert again.port == port
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_waiting_for_the_browser_times_out():
    callback = LoopbackCallback()
    await callback.start()
    try:
        with pytest.raises(asyncio.TimeoutError):
            await callback.wait(0.2)
    finally:
        await callback.close()


def test_a_background_provider_never_opens_a_browser(monkeypatch):
    use_memory_keyring(monkeypatch)
    from desktop_copilot.core.mcp.connection import NeedsSignIn

    provider = oauth_provider("http://127.0.0.1:9/mcp", keyring_token_storage("remote"), "http://127.0.0.1:9/callback")
    with pytest.raises(NeedsSignIn):
        asyncio.run(provider.context.redirect_handler("http://auth.example/authorize"))
