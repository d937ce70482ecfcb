"""The secret scan: a whole session with every provider configured with a key of its own (typed into Settings, an
endpoint added there with its key), a stdio MCP server with a secret in its environment and a Streamable HTTP MCP server
signed in with OAuth, a message to each provider through the window (switching provider mid-conversation, tool calls
through both MCP servers and Tavily), `ask` twice, provider errors that echo the key back, a log at DEBUG, Markdown and
JSON exports and a crash report of real unhandled exceptions that carry secrets. Then no secret, in any form
(tests/support/secret_scan.py), is in any file under the profile or among the exports, on screen, or in the repr of
the objects that hold one; and the log, the exports, the database and the crash report are shown to hold the session.

With DESKTOP_COPILOT_SECRET_SERVICE=1 (tests/run.sh) the keyring is the real Secret Service and `ask` runs as its own
process; otherwise an in-memory keyring is used and `ask` runs in this process."""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import string
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog

from desktop_copilot.app.window_setup import install_error_reporting
from desktop_copilot.core.conversation.models import Role
from desktop_copilot.core.provider_table import PROVIDERS
from tests.qt.conftest import make_window, qasync_loop, run_async  # noqa: F401 - fixtures are used by name
from tests.support import gemini_support, ollama_support
from tests.support.chat_completions_support import chat_reply, chat_response, openai_error
from tests.support.log_support import read_log
from tests.support.loopback import anthropic_error, anthropic_text_reply, anthropic_tool_reply, sse_response, tavily_results
from tests.support.mcp_servers.oauth_server import FakeBrowser, OAuthDemoServer
from tests.support.secret_scan import leaks_in_files, leaks_in_texts
from tests.support.secret_session import (  # noqa: F401 - fixtures are used by name
    SECRET_SERVICE,
    app_log,
    keyring_entries,
    run_ask,
    run_cli,
    save_in_dialog,
)
from tests.support.settings_support import open_dialog

pytestmark = pytest.mark.qt_no_exception_capture  # the crash report is the app's hook, not pytest-qt's

CHAT_COMPLETIONS = [spec.id for spec in PROVIDERS.values() if spec.wire == "chat_completions" and not spec.local]
ENDPOINT = "gateway"
"""The id of the OpenAI-compatible endpoint the test adds in Settings ▸ Providers (its name is "Gateway")."""
ALNUM = string.ascii_letters + string.digits


def _alnum(n: int) -> str:
    return "".join(secrets.choice(ALNUM) for _ in range(n))


def fresh_keys() -> dict[str, str]:
    """One new key per provider (and Tavily, and the added endpoint), each in its vendor's shape."""
    return {
        "anthropic": f"sk-ant-api03-{secrets.token_urlsafe(60)}", "openai": f"sk-proj-{secrets.token_urlsafe(60)}",
        "deepseek": f"sk-{secrets.token_hex(16)}", "moonshot": f"sk-{_alnum(48)}",
        "zhipu": f"{secrets.token_hex(16)}.{_alnum(16)}", "openrouter": f"sk-or-v1-{secrets.token_hex(32)}",
        "groq": f"gsk_{_alnum(52)}", "xai": f"xai-{_alnum(80)}", "gemini": f"AIza{_alnum(35)}",
        "tavily": f"tvly-dev-{_alnum(32)}", ENDPOINT: f"gw-{secrets.token_hex(20)}",
    }


UNREGISTERED = {
    "a GitHub token never used": f"ghp_{_alnum(36)}",
    "a Gemini-shaped key never used": f"AIza{_alnum(35)}",
    "a Groq-shaped key never used": f"gsk_{_alnum(52)}",
    "an xAI-shaped key never used": f"xai-{_alnum(80)}",
    "a JWT never used": f"eyJ{_alnum(30)}.eyJ{_alnum(60)}.{_alnum(43)}",
}
"""Key-shaped values this process never held as a Secret, raised in the crash: masked by their shape alone."""


def chat_path(provider_id: str) -> str:
    return f"/{provider_id}/v1"


@pytest.fixture
def oauth_server():
    """The OAuth-protected MCP server; it starts in the background while the window is set up (a few seconds of CPU),
    `ready()` waits for it."""
    server = OAuthDemoServer(access_seconds=3600)
    with ThreadPoolExecutor(1) as pool:
        starting = pool.submit(server.start)
        server.ready = lambda: starting.result(60)
        try:
            yield server
        finally:
            starting.exception()
            server.stop()


@pytest.fixture
def browser(monkeypatch) -> FakeBrowser:
    """The system browser the app opens for the sign-in (webbrowser.open) is a fake one that follows the redirects."""
    import webbrowser

    fake = FakeBrowser()
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: fake(url) or True)
    return fake


@pytest.fixture
def endpoints(loopback, monkeypatch):
    """Every built-in provider's base URL on the loopback server (each Chat Completions vendor under a path of its own)."""
    for provider_id in CHAT_COMPLETIONS:
        monkeypatch.setenv(f"{provider_id.upper()}_BASE_URL", loopback.url + chat_path(provider_id))
    for variable in ("ANTHROPIC_BASE_URL", "GEMINI_BASE_URL", "OLLAMA_HOST", "TAVILY_BASE_URL"):
        monkeypatch.setenv(variable, loopback.url)
    return loopback


@pytest.fixture
def session_window(qtbot, make_window, endpoints, oauth_server):  # noqa: F811 - the window goes before the server
    from desktop_copilot.core.bootstrap import build_runtime

    window = make_window(build_runtime(check_keyring=False))
    undo = install_error_reporting(window)
    yield window
    undo()
    window.controller.session.runtime.stop_mcp()


# --- configuring it all through Settings ----------------------------------------------------------------------------


def configure_keys(qtbot, dialog, loopback, keys: dict[str, str]) -> str:
    """Keys typed into the Keys and Providers pages, an endpoint added with its key, and a Test answered by a 401 that
    echoes the key; returns the Test's words."""
    if SECRET_SERVICE:  # one key through the command line, into the real keyring
        result = run_cli("keys", "set", "anthropic", stdin=keys["anthropic"] + "\n", timeout=60)
        assert result.returncode == 0 and "Secret Service" in result.stdout, result.stderr
    else:
        save_in_dialog(qtbot, dialog, "anthropic", keys["anthropic"])
    save_in_dialog(qtbot, dialog, "tavily", keys["tavily"])
    dialog.show_page("providers")
    page = dialog.providers_page
    for provider_id in [*CHAT_COMPLETIONS, "gemini"]:
        row = page.rows[provider_id]
        row.key_field.edit.setText(keys[provider_id])
        row.key_field.save_button.click()
        qtbot.waitUntil(lambda row=row: row.key_state.text().startswith("Key stored in"), timeout=10000)
    assert "Secret Service" in page.rows["openai"].key_state.text() or not SECRET_SERVICE

    form = page.open_form()
    form.name_edit.setText("Gateway")
    form.url_edit.setText(loopback.url + chat_path(ENDPOINT))
    form.model_edit.setText("gateway-model")
    form.key_edit.setText(keys[ENDPOINT])
    form.add_button.click()
    assert ENDPOINT in page.rows, form.problem.text()

    xai = page.rows["xai"]  # a real API's 401 quotes the key it refused
    loopback.enqueue(chat_path("xai") + "/models", openai_error(401, f"Incorrect API key provided: {keys['xai']}.", code="invalid_api_key"))
    xai.test_button.click()
    qtbot.waitUntil(lambda: xai.result.property("kind") == "error", timeout=15000)
    return xai.result.text()


CHATTY_SERVER = ('echo "notes: starting with token $NOTES_TOKEN" >&2; '
                 'echo "notes: Authorization: Basic $(printf "user:%s" "$NOTES_TOKEN" | base64 | tr -d "\\n")" >&2; '
                 'exec "$0" -m tests.support.mcp_servers.demo_server --transport stdio')
"""The demo server behind a shell that prints its secret on stderr, raw and in a Basic auth header, as careless
servers do (the app logs a server's stderr)."""


def configure_mcp(qtbot, dialog, oauth_server, env_secret: str) -> None:
    """The stdio demo server with NOTES_TOKEN in its environment and the OAuth demo server, added on the MCP page;
    signed in to the second through the (fake) browser."""
    from desktop_copilot.qt.settings.mcp_page import McpPage

    dialog.show_page("mcp")
    page: McpPage = dialog.mcp_page
    form = page.open_form()
    form.name_edit.setText("notes")
    form.command_edit.setText(f"sh -c {shlex.quote(CHATTY_SERVER)} {shlex.quote(sys.executable)}")
    form.env_edit.setPlainText(f"NOTES_TOKEN={env_secret}")
    form.add_button.click()
    qtbot.waitUntil(lambda: "notes" in page.rows and page.rows["notes"].state.text() == "Ready", timeout=30000)

    oauth_server.ready()
    form = page.open_form()
    form.name_edit.setText("secure")
    form.remote_radio.setChecked(True)
    form.url_edit.setText(oauth_server.url)
    form.add_button.click()
    qtbot.waitUntil(lambda: "secure" in page.rows and page.rows["secure"].state.text() == "Failed", timeout=30000)
    secure = page.rows["secure"]
    secure.sign_in_button.click()
    qtbot.waitUntil(lambda: secure.result.text().startswith("✓ Signed in"), timeout=30000)


# --- the conversation -----------------------------------------------------------------------------------------------


def reply_for(provider_id: str, text: str, calls: list[tuple[str, str, dict]] = ()):
    """The loopback path and the streamed replies (a tool round first when `calls`) of `provider_id`."""
    wire = "chat_completions" if provider_id == ENDPOINT else PROVIDERS[provider_id].wire
    if wire == "anthropic":
        first = [sse_response(anthropic_tool_reply(list(calls), msg_id="msg_tools"))] if calls else []
        return "/v1/messages", [*first, sse_response(anthropic_text_reply(text, msg_id=f"msg_{len(text)}"))]
    if wire == "chat_completions":
        first = [chat_response(chat_reply(calls=list(calls)))] if calls else []
        return chat_path(provider_id) + "/chat/completions", [*first, chat_response(chat_reply(text))]
    if wire == "gemini":
        return "/v1beta/models/", [gemini_support.gemini_sse(gemini_support.text_reply(text))]
    return "/api/chat", [ollama_support.text_reply(text)]


def switch_and_send(qtbot, window, provider_id: str, prompt: str) -> None:
    spec = window.controller.session.runtime.spec(provider_id)
    assert window.model_picker.choose(provider_id, spec.default_model)
    assert window.send(prompt)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)


def replies(window):
    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def converse(qtbot, window, loopback, keys: dict[str, str]) -> None:
    """One message to each provider, in one conversation; tool calls through both MCP servers and Tavily; then a
    401 (or 400) that echoes the key from Anthropic, a Chat Completions vendor and Gemini."""
    order = ["anthropic", *CHAT_COMPLETIONS, ENDPOINT, "gemini", "ollama"]
    tools = {
        "anthropic": [("toolu_env", "mcp__notes__env_check", {"name": "NOTES_TOKEN"}),
                      ("toolu_web", "tavily_search", {"query": "weather in Hong Kong"})],
        "openai": [("call_note", "mcp__secure__read_note", {"name": "todo"})],
    }
    loopback.enqueue("/search", tavily_results("weather in Hong Kong", [("HK Observatory", "https://www.hko.gov.hk", "Cloudy")]))
    for provider_id in order:
        path, responses = reply_for(provider_id, f"Reply from {provider_id}.", tools.get(provider_id, ()))
        loopback.enqueue(path, *responses)
        switch_and_send(qtbot, window, provider_id, f"Hello {provider_id}")
        assert replies(window)[-1].text == f"Reply from {provider_id}.", replies(window)[-1].error
        assert window.banner.isHidden(), window.banner.text()

    echoes = {
        "anthropic": ("/v1/messages", anthropic_error(401, "authentication_error", f"invalid x-api-key: {keys['anthropic']}")),
        "groq": (chat_path("groq") + "/chat/completions", openai_error(401, f"Invalid API Key: {keys['groq']}", code="invalid_api_key")),
        "gemini": ("/v1beta/models/", gemini_support.gemini_error(400, f"API key not valid: {keys['gemini']}. Please pass a valid API key.",
                                                                  "INVALID_ARGUMENT")),
    }
    for provider_id, (path, response) in echoes.items():
        loopback.enqueue(path, response)
        switch_and_send(qtbot, window, provider_id, f"Again {provider_id}")
        error = replies(window)[-1].error or ""
        assert f"…{keys[provider_id][-4:]}" in error, error  # the echo arrived, masked to the key's hint


def check_tool_calls(window, env_secret: str) -> None:
    import hashlib

    calls = {call.name: call for message in replies(window) for call in message.tool_calls}
    assert calls["mcp__notes__env_check"].result == f"NOTES_TOKEN: set sha256={hashlib.sha256(env_secret.encode()).hexdigest()}"
    assert calls["mcp__secure__read_note"].result == "Buy milk."
    assert "Cloudy" in calls["tavily_search"].result


# --- the crash -------------------------------------------------------------------------------------------------------


def crash(qtbot, window, values: dict[str, str]) -> str:
    """Raises, in a Qt slot and in a worker thread, exceptions whose message, cause, notes and locals hold `values`;
    returns the banner's text."""
    held = dict(values)  # a local the traceback passes through

    def broken_slot() -> None:
        api_key = held["openai key"]  # noqa: F841 - a local holding a key
        try:
            raise KeyError(f"no route for token={held['OAuth access token']}")
        except KeyError as cause:
            error = RuntimeError("the crash marker: " + " ".join(f"{name}={value}" for name, value in held.items()))
            error.add_note(f"refresh token was {held['OAuth refresh token']}")
            raise error from cause

    def broken_worker() -> None:
        raise OSError(f"the worker crash marker, header Authorization: Bearer {held['MCP env secret']}")

    QTimer.singleShot(0, broken_slot)
    qtbot.waitUntil(lambda: "the crash marker" in window.banner.text(), timeout=5000)
    banner = window.banner.text()
    thread = threading.Thread(target=broken_worker, name="crash-worker")
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: "the worker crash marker" in window.banner.text(), timeout=5000)
    return banner + "\n" + window.banner.text()


# --- the exports -----------------------------------------------------------------------------------------------------


def export_all_kinds(window, folder: Path, monkeypatch) -> list[Path]:
    folder.mkdir()
    chosen: list[str] = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda parent, title, default, filters: (chosen[-1], filters))
    actions = window.history.file_actions
    made = []
    for name, action in (("conversation.md", actions.export_markdown_action), ("conversation.json", actions.export_json_action),
                         ("all.json", actions.export_all_action)):
        chosen.append(str(folder / name))
        action.trigger()
        made.append(folder / name)
        assert made[-1].exists(), window.banner.text()
    return made


# --- the reprs -------------------------------------------------------------------------------------------------------


def runtime_reprs(qtbot, window) -> dict[str, str]:
    """repr() of every object of the session that holds a key, a token or an MCP secret."""
    from desktop_copilot.core.mcp.oauth import keyring_token_storage

    runtime = window.controller.session.runtime
    texts = {"runtime.keys": repr(runtime.keys), "runtime.key_store": repr(runtime.key_store)}
    for provider_id in runtime.providers():
        resources = run_async(qtbot, runtime.prepare_run(provider_id), timeout=10000)
        texts[f"run resources for {provider_id}"] = repr(resources) + repr(resources.tool_context) + repr(resources.tool_context.keys)
        spec = runtime.spec(provider_id)
        if spec.key_name and (found := runtime.keys.get(spec.key_name)) is not None:  # a local server's is optional
            texts[f"key of {provider_id}"] = f"{found!r} {found.secret} {found.secret!s} {[found]!r}"
    manager = runtime.mcp
    texts["mcp manager"] = f"{manager!r} {manager.statuses()!r} {manager.tools()!r}"
    texts["mcp slots"] = repr({name: (slot.conn, slot.last_error) for name, slot in manager._slots.items()})
    texts["mcp configs"] = repr(runtime.mcp_config.configs())
    texts["token storage"] = repr(keyring_token_storage("secure"))
    return texts


def platform_profile() -> list[Path]:
    """The folders the profile would be in without DESKTOP_COPILOT_HOME: nothing may go there either."""
    import platformdirs

    from desktop_copilot.core.config.paths import APP_NAME

    dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
    return [Path(dirs.user_config_dir), Path(dirs.user_data_dir), Path(dirs.user_log_dir), Path(dirs.user_cache_dir)]


# --- the test --------------------------------------------------------------------------------------------------------


def test_a_whole_session_leaves_no_secret_in_any_file_on_screen_or_in_a_repr(
        qtbot, session_window, endpoints, oauth_server, browser, keyring_entries, app_log, capsys, monkeypatch):  # noqa: F811
    from desktop_copilot.core.keys.keyring_store import KeyringKeys
    from desktop_copilot.core.mcp.oauth import client_entry, tokens_entry

    window, loopback = session_window, endpoints
    home = Path(os.environ["DESKTOP_COPILOT_HOME"])
    keys = fresh_keys()
    env_secret = f"notes-{secrets.token_urlsafe(24)}"
    keyring_entries.update([*keys, "mcp/notes/env/NOTES_TOKEN", tokens_entry("secure"), client_entry("secure")])

    dialog = open_dialog(qtbot, window)
    test_words = configure_keys(qtbot, dialog, loopback, keys)
    configure_mcp(qtbot, dialog, oauth_server, env_secret)
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10000)
    assert f"…{keys['xai'][-4:]}" in test_words and "401" in test_words, test_words  # the echo was seen, and masked
    assert KeyringKeys().get(ENDPOINT).secret.reveal() == keys[ENDPOINT]  # the endpoint's key, saved on OK

    converse(qtbot, window, loopback, keys)
    check_tool_calls(window, env_secret)

    loopback.enqueue("/v1/messages", *reply_for("anthropic", "Your todo note says: Buy milk.",
                                                [("toolu_ask", "mcp__secure__read_note", {"name": "todo"})])[1])
    asked = run_ask(qtbot, capsys, "What is in my todo note?")
    loopback.enqueue(chat_path("deepseek") + "/chat/completions",
                     *reply_for("deepseek", "The token is set.", [("call_env", "mcp__notes__env_check", {"name": "NOTES_TOKEN"})])[1])
    asked += run_ask(qtbot, capsys, "--provider", "deepseek", "Is my notes token set?")
    assert "Buy milk." in asked and "The token is set." in asked

    from desktop_copilot.core.mcp.secret_store import KeyringSecrets

    stored = KeyringSecrets()
    tokens = json.loads(stored.get(tokens_entry("secure")))
    client = json.loads(stored.get(client_entry("secure")))
    [(_status, landed, _page)] = browser.landed
    found = {
        **{f"{name} key": value for name, value in keys.items()},
        "MCP env secret": env_secret,
        "OAuth access token": tokens["access_token"],
        "OAuth refresh token": tokens["refresh_token"],
        "OAuth authorization code": re.search(r"[?&]code=([^&]+)", landed)[1],
    }
    if client.get("client_secret"):  # a public client (PKCE, no secret) is what the app registers
        found["OAuth client secret"] = client["client_secret"]
    assert stored.get("mcp/notes/env/NOTES_TOKEN") == env_secret

    every_secret = {**found, **UNREGISTERED}
    sent = {f"request {n}": f"{r.headers!r} {r.query}" for n, r in enumerate(loopback.requests)}
    assert {leak.split(" in ")[0] for leak in leaks_in_texts(found, sent)} >= {f"{name} key" for name in keys}  # all used
    banner = crash(qtbot, window, every_secret)

    exports = export_all_kinds(window, home / "exports", monkeypatch)
    log_text = read_log(app_log)
    check_not_vacuous(home, log_text, exports, banner, keys)

    screen = {"banner": banner, "providers page Test": test_words, "ask output": asked,
              **{f"reply {m.id} error": m.error or "" for m in replies(window)}}
    leaks = (leaks_in_files(every_secret, home, *platform_profile(), files=exports)
             + leaks_in_texts(every_secret, screen)
             + leaks_in_texts(found, runtime_reprs(qtbot, window)))
    assert leaks == [], "\n".join(leaks)


def check_not_vacuous(home: Path, log_text: str, exports: list[Path], banner: str, keys: dict[str, str]) -> None:
    """The places scanned hold the session: the log its requests and tool runs at DEBUG and the crash's tracebacks,
    the exports and the database its conversation."""
    import sqlite3

    files = {p.relative_to(home).as_posix() for p in home.rglob("*") if p.is_file()}
    assert {"config/settings.json", "config/mcp.json", "data/conversations.sqlite3",
            "data/conversations.sqlite3-wal", "logs/desktop-copilot.log"} <= files, files
    for provider_id in ["anthropic", *CHAT_COMPLETIONS, ENDPOINT, "gemini", "ollama"]:
        assert re.search(rf"{provider_id} request: model=\S+ status=200 ", log_text), provider_id
        assert f"{provider_id} request starting: model=" in log_text, provider_id  # a DEBUG line
    for provider_id in ("anthropic", "groq", "gemini"):  # the echoed keys' requests, masked
        line = re.search(rf"{provider_id} request: model=\S+ status=40[01] .*", log_text)[0]
        assert "[redacted" in line or f"…{keys[provider_id][-4:]}" in line, line
    assert "[notes] notes: starting with token [redacted" in log_text and "Authorization: Basic [redacted]" in log_text
    for tool in ("mcp__notes__env_check", "mcp__secure__read_note", "tavily_search"):
        assert f"tool run: name={tool}" in log_text, tool
    assert "Uncaught exception\nTraceback (most recent call last):" in log_text and "the crash marker" in log_text
    assert "Uncaught exception in thread crash-worker" in log_text and "the worker crash marker" in log_text
    assert "refresh token was" in log_text and "no route for token=" in log_text  # the note and the cause are reported
    assert "Something went wrong: RuntimeError: the crash marker" in banner

    markdown = exports[0].read_text(encoding="utf-8")
    for provider_id in ["anthropic", *CHAT_COMPLETIONS, ENDPOINT, "gemini", "ollama"]:
        assert f"Reply from {provider_id}." in markdown, provider_id
    assert "Buy milk." in markdown and "NOTES_TOKEN: set sha256=" in markdown and "Reply failed" in markdown
    conversations = json.loads(exports[2].read_text(encoding="utf-8"))["conversations"]
    assert sum(len(c["messages"]) for c in conversations) >= 2 * 13
    with sqlite3.connect(f"file:{home / 'data' / 'conversations.sqlite3'}?mode=ro", uri=True) as db:
        assert db.execute("SELECT count(*) FROM messages WHERE blocks LIKE '%mcp__notes__env_check%'").fetchone()[0] >= 2


def test_a_model_list_refused_with_the_key_echoed_shows_no_key(qtbot, make_window, endpoints, keyring_entries):  # noqa: F811
    """The model picker's Refresh, answered by a 401 that quotes the key (Anthropic's and OpenAI's wording): the problem
    shown under the provider names the refusal, not the key."""
    from desktop_copilot.core.bootstrap import build_runtime
    from desktop_copilot.core.keys.keyring_store import KeyringKeys

    loopback, keys = endpoints, fresh_keys()
    for name in ("anthropic", "openai"):
        KeyringKeys().set(name, keys[name])
        keyring_entries.add(name)
    loopback.enqueue("/v1/models", anthropic_error(401, "authentication_error", f"invalid x-api-key: {keys['anthropic']}"))
    loopback.enqueue(chat_path("openai") + "/models", openai_error(401, f"Incorrect API key provided: {keys['openai']}."))
    window = make_window(build_runtime(check_keyring=False))
    picker = window.model_picker
    popup = picker.open_popup()
    for name in ("anthropic", "openai"):
        picker.refresh_models(name)
    qtbot.waitUntil(lambda: {"anthropic", "openai"} <= set(picker.problems) and not picker.refreshing, timeout=15000)
    shown = {row.provider_id: row.text for row in popup.rows if row.kind == "problem"}
    assert set(shown) == {"anthropic", "openai"} and all("401" in text for text in shown.values()), shown
    assert leaks_in_texts({f"{name} key": keys[name] for name in shown}, shown) == []


@pytest.mark.parametrize("provider_id", ["anthropic", "openai", "gemini"])
def test_the_error_raised_by_a_refused_model_list_holds_no_key(qtbot, qasync_loop, endpoints, provider_id):  # noqa: F811
    """Runtime.list_models answered by an error that echoes the key: neither str() nor repr() of what it raises
    (nor of its cause, context or arguments) holds the key."""
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup

    loopback, key = endpoints, fresh_keys()[provider_id]
    replies = {
        "anthropic": ("/v1/models", anthropic_error(401, "authentication_error", f"invalid x-api-key: {key}")),
        "openai": (chat_path("openai") + "/models", openai_error(401, f"Incorrect API key provided: {key}.")),
        "gemini": ("/v1beta/models", gemini_support.gemini_error(400, f"API key not valid: {key}.", "INVALID_ARGUMENT")),
    }
    loopback.enqueue(*replies[provider_id])
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment(),
                      KeyLookup([EnvironmentKeys({PROVIDERS[provider_id].key_name.upper() + "_API_KEY": key})]))
    try:
        with pytest.raises(Exception) as raised:
            run_async(qtbot, runtime.list_models(provider_id), timeout=15000)
    finally:
        run_async(qtbot, runtime.aclose())
    error = raised.value
    texts = {"str": str(error), "repr": repr(error), "args": repr(error.args), "cause": repr(error.__cause__),
             "context": repr(error.__context__), "body": repr(getattr(error, "body", None))}
    assert leaks_in_texts({f"{provider_id} key": key}, texts) == []


@pytest.mark.parametrize("shift", [0, 1, 2])
def test_the_scan_finds_a_secret_in_every_form_and_not_its_mask(tmp_path, shift):
    """The scanner is not vacuous: a secret written raw, as UTF-16, inside a base64 blob at any alignment, URL-encoded,
    as hex or in an SQLite database is found; the masks the app writes instead are not."""
    import base64
    import sqlite3
    from urllib.parse import quote

    value = f"tok/{secrets.token_urlsafe(24)}+="
    around = b"p" * shift + value.encode() + b"-after"
    written = {"raw.log": b"x " + value.encode(), "utf16.txt": ("x " + value).encode("utf-16"),
               "b64.bin": base64.b64encode(around), "urlsafe.bin": base64.urlsafe_b64encode(around),
               "url.txt": quote(f"?q={value}").encode(), "hex.txt": around.hex().encode()}
    for name, data in written.items():
        (tmp_path / name).write_bytes(data)
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        db.execute("CREATE TABLE t (v)")
        db.executemany("INSERT INTO t VALUES (?)", [("x" * (4000 + shift) + value,), (("x" + value).encode("utf-16-le"),)])
    (tmp_path / "masked.log").write_text(f"[redacted …{value[-4:]}] [redacted] …{value[-4:]}")
    leaks = leaks_in_files({"the secret": value}, tmp_path)
    assert {Path(leak.split(" in ")[1].split(" (")[0]).name for leak in leaks} == {*written, "db.sqlite3"}, leaks
    cells = next(leak for leak in leaks if "db.sqlite3 (sqlite cells" in leak)
    assert "raw" in cells and "utf-16-le hex" in cells, cells  # the text and the blob, as SQLite reads them


@pytest.mark.asyncio
async def test_an_ollama_key_echoed_by_a_401_is_masked(loopback):
    """The app's catalog gives Ollama no key (key_name None), but its provider takes one for a remote server: a 401 that
    echoes it ends the reply masked, and the provider's repr shows only the hint."""
    from desktop_copilot.core.providers.base import ProviderRequest
    from desktop_copilot.core.providers.ollama_provider import OllamaProvider
    from desktop_copilot.core.keys.secrets import Secret

    key = f"ollama-{secrets.token_hex(20)}"
    loopback.enqueue("/api/chat", ollama_support.ollama_error(401, f"unauthorized: invalid key {key}"))
    provider = OllamaProvider(loopback.url, api_key=Secret(key))
    try:
        events = [event async for event in provider.stream(ProviderRequest(model="llama3.2", messages=[], tools=[]))]
    finally:
        await provider.aclose()
    assert loopback.requests_to("/api/chat")[0].headers["authorization"] == f"Bearer {key}"
    error = events[-1]
    assert error.status_code == 401 and f"…{key[-4:]}" in error.message, error
    assert leaks_in_texts({"ollama key": key}, {"error": repr(events), "provider": repr(provider)}) == []
