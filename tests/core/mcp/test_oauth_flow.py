"""OAuth sign-in end to end: the real McpManager against a real MCP server protected by the SDK's server-side OAuth
(dynamic registration, PKCE, 2-second access tokens), a fake browser that follows the redirects to our loopback callback,
and tokens in the in-memory keyring: background starts never open a browser, login signs in, a restart reuses the
tokens, expired tokens are refreshed (and stored again), removing the server deletes its sign-in."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from pathlib import Path

import pytest

from desktop_copilot.core.keys.keyring_store import SERVICE
from desktop_copilot.core.mcp.config_file import KeyringSecrets, McpConfigFile
from desktop_copilot.core.mcp.manager import McpManager, ServerState
from desktop_copilot.core.mcp.oauth import EXPIRES_AT, client_entry, keyring_token_storage, tokens_entry
from desktop_copilot.core.mcp.server_config import McpServerConfig
from tests.core.mcp.test_manager_stdio import started
from tests.support.mcp_servers.oauth_server import FakeBrowser, OAuthDemoServer
from tests.support.memory_keyring import MemoryKeyring, use_memory_keyring
from tests.support.settings_support import files_containing

SIGN_IN = "needs sign-in: run desktop-copilot mcp login secure"


@pytest.fixture(scope="module")
def oauth_server():
    with OAuthDemoServer(access_seconds=2) as server:
        yield server


@pytest.fixture
def keyring(monkeypatch) -> MemoryKeyring:
    return use_memory_keyring(monkeypatch)


@pytest.fixture
def managers():
    made: list[McpManager] = []

    def make(*configs: McpServerConfig, browser=None, load=None, resolve=None) -> McpManager:
        if load is not None:
            manager = McpManager(load, resolve, open_browser=browser, connect_timeout=20.0)
        else:
            manager = McpManager.from_configs(list(configs), open_browser=browser, connect_timeout=20.0)
        made.append(manager)
        return manager

    yield make
    for manager in made:
        manager.stop()


def home() -> Path:
    return Path(os.environ["DESKTOP_COPILOT_HOME"])


def secure(server: OAuthDemoServer, **fields) -> McpServerConfig:
    return McpServerConfig(name="secure", url=server.url, oauth=True, **fields)


def stored_tokens(keyring: MemoryKeyring, name: str = "secure") -> dict:
    return json.loads(keyring.entries[(SERVICE, tokens_entry(name))])


async def stats(manager: McpManager, name: str = "secure") -> dict:
    return json.loads((await manager.call(name, "auth_stats", {}, 10.0)).text)


async def past_expiry(keyring: MemoryKeyring, name: str = "secure") -> None:
    """Sleeps until the stored access token has expired (the server refuses it from then on)."""
    await asyncio.sleep(max(0.0, stored_tokens(keyring, name)[EXPIRES_AT] - time.time()) + 0.5)


async def signed_in(managers, server: OAuthDemoServer, browser: FakeBrowser | None = None) -> McpManager:
    manager = await started(managers(secure(server), browser=browser or FakeBrowser()))
    status = await manager.login("secure", timeout=30.0)
    assert status.state is ServerState.READY, status.last_error
    return manager


@pytest.mark.asyncio
async def test_a_background_start_needs_sign_in_and_opens_no_browser(oauth_server, keyring, managers):
    browser = FakeBrowser()
    manager = await started(managers(secure(oauth_server), browser=browser))
    [status] = manager.statuses()
    assert (status.state, status.last_error, status.tools) == (ServerState.FAILED, SIGN_IN, ())
    assert browser.opened == [] and keyring.entries == {}  # nothing registered, nothing kept


@pytest.mark.asyncio
async def test_a_401_to_a_server_not_marked_oauth_asks_for_sign_in_too(oauth_server, keyring, managers):
    browser = FakeBrowser()
    manager = await started(managers(McpServerConfig(name="secure", url=oauth_server.url), browser=browser))
    assert (manager.statuses()[0].state, manager.statuses()[0].last_error) == (ServerState.FAILED, SIGN_IN)
    assert browser.opened == []


@pytest.mark.asyncio
async def test_login_signs_in_through_the_browser_and_keeps_the_tokens_in_the_keyring_only(keyring, managers, caplog):
    caplog.set_level(logging.DEBUG)
    with OAuthDemoServer(access_seconds=60) as server:
        await check_login(server, keyring, managers, caplog)


async def check_login(oauth_server, keyring, managers, caplog) -> None:
    browser = FakeBrowser()
    manager = await started(managers(secure(oauth_server), browser=browser))
    status = await manager.login("secure", timeout=30.0)

    assert (status.state, status.last_error) == (ServerState.READY, "")
    assert {"read_note", "delete_note", "auth_stats"} <= {tool.name for tool in status.tools}
    [url] = browser.opened
    assert url.startswith(f"{oauth_server.base}/authorize?") and "code_challenge_method=S256" in url
    assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in url
    [(code, landed, page)] = browser.landed
    assert code == 200 and landed.startswith("http://127.0.0.1:") and "/callback?code=" in landed
    assert "Signed in to the MCP server" in page

    assert set(keyring.entries) == {(SERVICE, tokens_entry("secure")), (SERVICE, client_entry("secure"))}
    tokens = stored_tokens(keyring)
    assert tokens["access_token"].startswith("demo-at-") and tokens["refresh_token"].startswith("demo-rt-")
    assert tokens[EXPIRES_AT] > time.time() - 5
    client = json.loads(keyring.entries[(SERVICE, client_entry("secure"))])
    assert client["redirect_uris"][0].startswith("http://127.0.0.1:")

    read = next(t for t in manager.tools() if t.name == "mcp__secure__read_note")
    assert (await read.run({"name": "todo"}, None)).text == "Buy milk."
    assert await stats(manager) == {"registered": 1, "authorized": 1, "issued": 1, "refreshed": 0, "rejected": 0}
    for secret in (tokens["access_token"], tokens["refresh_token"]):
        assert files_containing(home(), secret) == []
        assert secret not in caplog.text and secret not in repr(manager.statuses())


@pytest.mark.asyncio
async def test_an_expired_access_token_is_refreshed_during_a_call_and_stored_again(oauth_server, keyring, managers):
    browser = FakeBrowser()
    manager = await signed_in(managers, oauth_server, browser)
    start = await stats(manager)
    before = stored_tokens(keyring)
    await past_expiry(keyring)

    assert (await manager.call("secure", "read_note", {"name": "hello"}, 10.0)).text == "Hello from the demo server."
    after = stored_tokens(keyring)
    assert after["access_token"] != before["access_token"] and after["refresh_token"] != before["refresh_token"]
    assert after[EXPIRES_AT] > before[EXPIRES_AT]
    counts = await stats(manager)
    assert counts["refreshed"] > start["refreshed"] and counts["authorized"] == start["authorized"]
    assert counts["rejected"] == start["rejected"]  # refreshed before the expiry, not after a refusal
    assert len(browser.opened) == 1  # the refresh needed no browser
    assert manager.statuses()[0].state is ServerState.READY


@pytest.mark.asyncio
async def test_a_restart_connects_with_the_stored_tokens_without_a_browser(oauth_server, keyring, managers):
    first = await signed_in(managers, oauth_server)
    start = await stats(first)
    first.stop()

    browser = FakeBrowser()
    again = await started(managers(secure(oauth_server), browser=browser))
    assert (again.statuses()[0].state, again.statuses()[0].last_error) == (ServerState.READY, "")
    assert (await again.call("secure", "read_note", {"name": "todo"}, 10.0)).text == "Buy milk."
    assert (await stats(again))["authorized"] == start["authorized"] and browser.opened == []


@pytest.mark.asyncio
async def test_a_restart_after_the_access_token_expired_refreshes_it_first(oauth_server, keyring, managers):
    first = await signed_in(managers, oauth_server)
    start = await stats(first)
    first.stop()
    before = stored_tokens(keyring)
    await past_expiry(keyring)

    browser = FakeBrowser()
    again = await started(managers(secure(oauth_server), browser=browser))
    assert (again.statuses()[0].state, again.statuses()[0].last_error) == (ServerState.READY, "")
    counts = await stats(again)
    assert counts["refreshed"] == start["refreshed"] + 1 and counts["authorized"] == start["authorized"] and browser.opened == []
    assert counts["rejected"] == start["rejected"]  # the expired token was never sent
    assert stored_tokens(keyring)["refresh_token"] != before["refresh_token"]
    await past_expiry(keyring)  # and the restored session keeps refreshing
    assert (await again.call("secure", "read_note", {"name": "todo"}, 10.0)).text == "Buy milk."
    assert (await stats(again))["refreshed"] >= start["refreshed"] + 2


@pytest.mark.asyncio
async def test_a_refused_sign_in_says_so(keyring, managers):
    with OAuthDemoServer(refuse_sign_in=True) as server:
        browser = FakeBrowser()
        manager = await started(managers(secure(server), browser=browser))
        status = await manager.login("secure", timeout=30.0)
    assert status.state is ServerState.FAILED
    assert status.last_error == "sign-in failed: the sign-in was refused: the demo server refuses every sign-in"
    assert "Sign-in failed" in browser.landed[0][2]
    assert (SERVICE, tokens_entry("secure")) not in keyring.entries


@pytest.mark.asyncio
async def test_a_sign_in_nobody_finishes_times_out_in_words(oauth_server, keyring, managers):
    opened: list[str] = []
    manager = await started(managers(secure(oauth_server), browser=opened.append))  # a browser that never comes back
    status = await manager.login("secure", timeout=1.0)
    assert len(opened) == 1
    assert (status.state, status.last_error) == (ServerState.FAILED, "the sign-in in the browser did not finish within 1 s; try again")


@pytest.mark.asyncio
async def test_removing_the_server_deletes_its_sign_in_from_the_keyring(oauth_server, keyring, managers):
    config = McpConfigFile(home() / "config" / "mcp.json", KeyringSecrets(keyring))
    config.add(secure(oauth_server))
    config.add(McpServerConfig(name="other", url=oauth_server.url, oauth=True))
    manager = await started(managers(load=config.configs, resolve=config.resolve_secret, browser=FakeBrowser()))
    assert (await manager.login("secure", timeout=30.0)).state is ServerState.READY
    assert (await manager.login("other", timeout=30.0)).state is ServerState.READY
    tokens = stored_tokens(keyring)
    assert files_containing(home(), tokens["access_token"]) == [] and files_containing(home(), tokens["refresh_token"]) == []

    removed = config.remove("secure")
    assert (removed.deleted_secrets, removed.left_in_keyring) == (2, None)
    assert set(keyring.entries) == {(SERVICE, tokens_entry("other")), (SERVICE, client_entry("other"))}
    assert await keyring_token_storage("secure").get_tokens() is None
    await manager.reload()
    assert [s.name for s in manager.statuses()] == ["other"]
