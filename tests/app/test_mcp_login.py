"""`desktop-copilot mcp login NAME` in-process against the real OAuth-protected MCP server: `webbrowser.open` is replaced
by a fake browser that follows the authorize URL's redirects to the local callback; tokens land in the in-memory keyring
and nowhere on disk; `mcp list` points at `mcp login` while a sign-in is needed; `mcp remove` deletes the sign-in."""

from __future__ import annotations

import json
import webbrowser

import pytest
from keyring.backends import fail

from desktop_copilot.app.cli import main
from desktop_copilot.core.keys.keyring_store import SERVICE
from desktop_copilot.core.mcp.oauth import client_entry, tokens_entry
from tests.app.test_mcp_cli import DEMO, everything_written
from tests.support.mcp_servers.oauth_server import FakeBrowser, OAuthDemoServer
from tests.support.memory_keyring import MemoryKeyring, use_memory_keyring

SIGN_IN_LINE = "  sign in: desktop-copilot mcp login secure  (opens the browser)"


@pytest.fixture(scope="module")
def oauth_server():
    with OAuthDemoServer(access_seconds=60) as server:
        yield server


@pytest.fixture
def keyring(monkeypatch) -> MemoryKeyring:
    return use_memory_keyring(monkeypatch)


@pytest.fixture
def browser(monkeypatch) -> FakeBrowser:
    """webbrowser.open, played: the app calls it on a thread of its own; the visit is made right there."""
    fake = FakeBrowser()

    def open_url(url: str, *args, **kwargs) -> bool:
        fake.opened.append(url)
        fake.visit(url)
        return True

    monkeypatch.setattr(webbrowser, "open", open_url)
    return fake


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["mcp", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def add_secure(capsys, server: OAuthDemoServer) -> None:
    code, _, err = run(capsys, "add", "secure", "--url", server.url, "--oauth")
    assert code == 0, err


def test_login_signs_in_through_the_browser_and_list_and_remove_follow(capsys, keyring, browser, oauth_server):
    add_secure(capsys, oauth_server)
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert "  last error: needs sign-in: run desktop-copilot mcp login secure" in out and SIGN_IN_LINE in out
    assert browser.opened == []  # listing never opens a browser
    code, out, _ = run(capsys, "list", "--json")
    [entry] = json.loads(out)["servers"]
    assert entry["needs_sign_in"] is True and entry["state"] == "failed"

    code, out, err = run(capsys, "login", "secure")
    assert code == 0, err
    assert f"Signing in to secure ({oauth_server.url}): opening your browser; waiting up to 5 minutes for the sign-in." in out
    [url] = browser.opened
    assert url.startswith(f"{oauth_server.base}/authorize?")
    assert f"If no browser opens, open this address yourself:\n  {url}\n" in out
    assert "Signed in to secure: ready, 16 tools (read_note, delete_note," in out
    assert "Signed in to the MCP server" in browser.landed[0][2]
    tokens = json.loads(keyring.entries[(SERVICE, tokens_entry("secure"))])
    assert (SERVICE, client_entry("secure")) in keyring.entries
    for secret in (tokens["access_token"], tokens["refresh_token"]):
        assert secret not in everything_written() and secret not in out + err

    code, out, _ = run(capsys, "list")
    assert code == 0 and "  state: ready, 16 tools" in out and "sign in:" not in out and "last error" not in out

    code, out, err = run(capsys, "login", "secure")  # the stored sign-in still works: no browser
    assert code == 0, err
    assert "Already signed in to secure: ready" in out and len(browser.opened) == 1

    code, out, err = run(capsys, "remove", "secure")
    assert code == 0, err
    assert "and deleted its 2 secret(s) from the keyring" in out
    assert keyring.entries == {}


def test_a_refused_sign_in_exits_1_with_the_reason(capsys, keyring, browser):
    with OAuthDemoServer(refuse_sign_in=True) as server:
        add_secure(capsys, server)
        code, out, err = run(capsys, "login", "secure")
    assert code == 1 and len(browser.opened) == 1 and browser.opened[0] in out
    assert err == "error: could not sign in to secure: sign-in failed: the sign-in was refused: the demo server refuses every sign-in\n"
    assert (SERVICE, tokens_entry("secure")) not in keyring.entries


def test_a_sign_in_that_never_comes_back_times_out(capsys, keyring, monkeypatch, oauth_server):
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or False)  # no browser on this machine
    add_secure(capsys, oauth_server)
    code, out, err = run(capsys, "login", "secure", "--timeout", "1")
    assert code == 1 and len(opened) == 1
    assert "waiting up to 1 s for the sign-in" in out and opened[0] in out  # the address is printed for the user
    assert err == "error: could not sign in to secure: the sign-in in the browser did not finish within 1 s; try again\n"


def test_login_refuses_local_and_unknown_servers(capsys, keyring, browser):
    assert run(capsys, "add", "local", *DEMO)[0] == 0
    code, out, err = run(capsys, "login", "local")
    assert (code, out) == (1, "") and "'local' is a local server (a command); only remote servers (added with --url) sign in." in err
    code, out, err = run(capsys, "login", "nowhere")
    assert (code, out) == (2, "") and "there is no MCP server named 'nowhere'" in err and "(servers: local)" in err
    assert browser.opened == []


def test_without_a_keyring_login_says_so_before_opening_a_browser(capsys, monkeypatch, browser, oauth_server):
    use_memory_keyring(monkeypatch, fail.Keyring())
    add_secure(capsys, oauth_server)
    code, out, err = run(capsys, "login", "secure")
    assert (code, out) == (1, "") and err.startswith("error: no keyring to keep the sign-in in (")
    assert browser.opened == []
