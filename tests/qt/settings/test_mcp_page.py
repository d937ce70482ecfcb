"""Settings ▸ MCP servers with a real McpConfigFile on a temporary folder (secrets in the in-memory keyring) and a
real McpManager running the demo MCP server over stdio: live states, Test with the tool list and risks, Restart,
Add server (only keyring references reach mcp.json), Remove with a confirmation, Import, and a broken file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from desktop_copilot.core.mcp.config_file import KeyringSecrets, McpConfigFile
from desktop_copilot.core.mcp.server_config import McpServerConfig
from desktop_copilot.qt.settings.mcp_page import EMPTY, McpPage
from desktop_copilot.qt.settings.mcp_parts import KEYRING_NOTE
from tests.support.memory_keyring import MemoryKeyring
from tests.support.settings_support import files_containing

REPO = Path(__file__).resolve().parents[3]
ENV_SECRET = "notes-token-never-on-disk-5c1e9a"
HEADER_SECRET = "Bearer remote-secret-never-on-disk-77d0"
IMPORTED_SECRET = "imported-secret-never-on-disk-a9f3"


def demo_config(name: str = "demo", **extra) -> McpServerConfig:
    return McpServerConfig(name=name, command=sys.executable, cwd=str(REPO),
                           args=["-m", "tests.support.mcp_servers.demo_server", "--transport", "stdio"], **extra)


@pytest.fixture
def keyring() -> MemoryKeyring:
    return MemoryKeyring()


@pytest.fixture
def config_dir(tmp_path) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    return folder


@pytest.fixture
def config(config_dir, keyring) -> McpConfigFile:
    return McpConfigFile(config_dir / "mcp.json", KeyringSecrets(keyring))


@pytest.fixture
def make_page(qtbot, qasync_loop):
    def make(config: McpConfigFile | None, manager=None) -> McpPage:
        page = McpPage(config, manager)
        qtbot.addWidget(page)
        page.resize(760, 600)
        page.show()
        return page

    return make


def servers_in(config: McpConfigFile) -> dict:
    return json.loads(config.path.read_text())["mcpServers"]


def wait_idle(qtbot, page: McpPage, timeout: int = 10000) -> None:
    qtbot.waitUntil(lambda: not page.tasks.busy, timeout=timeout)


def confirm(box: QMessageBox) -> None:
    next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole).click()


# --- without a running manager: mcp.json and the keyring ----------------------------------------------------


def test_an_empty_file_says_how_to_add_a_server(make_page, config):
    page = make_page(config)
    assert page.rows == {} and page.empty.text() == EMPTY and page.empty.isVisible()
    assert page.problem.isHidden()


def test_add_server_puts_env_values_in_the_keyring_and_only_references_in_mcp_json(qtbot, make_page, config, config_dir, keyring):
    page = make_page(config)
    form = page.open_form()
    assert any(KEYRING_NOTE in label.text() for label in form.findChildren(type(page.problem)))
    form.name_edit.setText("notes")
    form.command_edit.setText(f'{sys.executable} -m tests.support.mcp_servers.demo_server --label "my notes"')
    form.env_edit.setPlainText(f"NOTES_TOKEN={ENV_SECRET}\n\nMODE=plain")
    form.add_button.click()
    wait_idle(qtbot, page)
    assert not form.isVisible()

    entry = servers_in(config)["notes"]
    assert entry["command"] == sys.executable
    assert entry["args"] == ["-m", "tests.support.mcp_servers.demo_server", "--label", "my notes"]  # split like a shell
    assert entry["env"] == {"NOTES_TOKEN": "${keyring:mcp/notes/env/NOTES_TOKEN}", "MODE": "${keyring:mcp/notes/env/MODE}"}
    assert ENV_SECRET in keyring.entries.values()
    assert files_containing(config_dir, ENV_SECRET) == []
    row = page.rows["notes"]
    assert row.kind.text() == "Local command" and row.where.text().endswith('--label my notes')
    assert page.message.text() == "Added notes."


def test_add_a_remote_server_with_a_secret_header_and_sse(qtbot, make_page, config, config_dir, keyring):
    page = make_page(config)
    form = page.open_form()
    form.remote_radio.click()
    assert form.pages.currentWidget() is form.remote_page
    form.name_edit.setText("remote")
    form.url_edit.setText("https://mcp.example.org/sse")
    form.headers_edit.setPlainText(f"Authorization: {HEADER_SECRET}")
    form.sse_box.setChecked(True)
    form.add_button.click()
    wait_idle(qtbot, page)
    entry = servers_in(config)["remote"]
    assert entry == {"url": "https://mcp.example.org/sse", "type": "sse",
                     "headers": {"Authorization": "${keyring:mcp/remote/headers/Authorization}"}}
    assert keyring.entries[("desktop-copilot", "mcp/remote/headers/Authorization")] == HEADER_SECRET
    assert files_containing(config_dir, HEADER_SECRET) == [] and files_containing(config_dir, "remote-secret") == []
    assert page.rows["remote"].kind.text() == "Remote (SSE)"


@pytest.mark.parametrize(("fill", "problem"), [
    ({"name_edit": ""}, "Give the server a name"),
    ({"name_edit": "taken"}, "There is a server called “taken” already"),
    ({"command_edit": 'node "server.js'}, "check its quotes"),
    ({"command_edit": "  "}, "Give the command that starts the server"),
    ({"env_edit": "NO EQUALS SIGN"}, "Environment line 1 is not"),
])
def test_the_form_says_what_to_fix_and_adds_nothing(qtbot, make_page, config, fill, problem):
    config.add(demo_config("taken"))
    page = make_page(config)
    form = page.open_form()
    values = {"name_edit": "new", "command_edit": "node server.js", "env_edit": ""} | fill
    for field, value in values.items():
        widget = getattr(form, field)
        widget.setPlainText(value) if field == "env_edit" else widget.setText(value)
    form.add_button.click()
    assert form.isVisible() and problem in form.problem.text()
    assert list(servers_in(config)) == ["taken"]


def test_a_remote_url_must_be_http(qtbot, make_page, config):
    page = make_page(config)
    form = page.open_form()
    form.remote_radio.click()
    form.name_edit.setText("remote")
    form.url_edit.setText("ftp://example.org/mcp")
    form.add_button.click()
    assert form.isVisible() and form.problem.text() == "The URL must start with http:// or https://."


def test_remove_asks_then_takes_the_server_and_its_secrets_away(qtbot, make_page, config, keyring):
    config.add(demo_config("notes", env={"NOTES_TOKEN": ENV_SECRET}))
    config.add(demo_config("other"))
    page = make_page(config)
    box = page.ask_remove("notes")
    assert "notes" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.wait(50)
    assert set(servers_in(config)) == {"notes", "other"}

    page.rows["notes"].remove_button.click()
    confirm(page.confirm_box)
    wait_idle(qtbot, page)
    assert list(servers_in(config)) == ["other"] and list(page.rows) == ["other"]
    assert ENV_SECRET not in keyring.entries.values()
    assert page.message.text() == "Removed notes."


def test_import_takes_claude_desktops_servers_and_reports(qtbot, make_page, config, config_dir, tmp_path):
    config.add(demo_config("existing"))
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                  "env": {"FILES_TOKEN": IMPORTED_SECRET}},
        "existing": {"command": "node", "args": ["x.js"]},
        "broken": {"command": "node", "url": "https://both.example"},
    }}))
    page = make_page(config)
    chooser = page.choose_import()
    qtbot.waitUntil(chooser.isVisible)
    chooser.selectFile(str(source))
    chooser.accept()
    wait_idle(qtbot, page)
    text = page.message.text()
    assert text.startswith("From claude_desktop_config.json: added files; skipped existing")
    assert "broken could not be imported" in text and page.message.property("kind") == "warning"
    assert set(page.rows) == {"existing", "files"}
    assert servers_in(config)["files"]["env"] == {"FILES_TOKEN": "${keyring:mcp/files/env/FILES_TOKEN}"}
    assert files_containing(config_dir, IMPORTED_SECRET) == []


def test_a_broken_mcp_json_is_shown_and_not_overwritten(qtbot, make_page, config):
    config.path.write_text('{"mcpServers": {"a": ')
    page = make_page(config)
    assert page.problem.isVisible() and "is not valid JSON" in page.problem.text()
    assert page.rows == {} and page.empty.isHidden()
    form = page.open_form()
    form.name_edit.setText("new")
    form.command_edit.setText("node server.js")
    form.add_button.click()
    wait_idle(qtbot, page)
    assert page.message.text().startswith("Not added:") and page.message.property("kind") == "error"
    assert config.path.read_text() == '{"mcpServers": {"a": '


# --- with a real McpManager running the demo server -----------------------------------------------------------


@pytest.fixture
def manager(config):
    from desktop_copilot.core.mcp.manager import McpManager

    running = McpManager(config.configs, config.resolve_secret, connect_timeout=20.0)
    yield running
    running.stop()


def call(qtbot, manager, server: str, tool: str, arguments: dict) -> str:
    from tests.qt.conftest import run_async

    return run_async(qtbot, manager.call(server, tool, arguments, 10.0), timeout=15000).text


def test_servers_are_listed_with_their_live_state_tools_and_last_error(qtbot, make_page, config, manager):
    config.add(demo_config("demo"))
    config.add(McpServerConfig(name="broken", command=sys.executable, args=["-c", "import sys; sys.exit(2)"]))
    page = make_page(config, manager)
    assert [row.state.text() for row in page.rows.values()] == ["Not running", "Not running"]
    manager.start()  # the page hears of each change from the manager's thread
    demo, broken = page.rows["demo"], page.rows["broken"]
    qtbot.waitUntil(lambda: demo.state.text() == "Ready" and broken.state.text() == "Failed", timeout=30000)
    tools = manager.status("demo").tools
    assert demo.count.text() == f"{len(tools)} tools" and len(tools) > 5
    assert demo.kind.text() == "Local command" and demo.where.text().endswith("demo_server --transport stdio")
    assert demo.state.property("kind") == "on" and demo.error.isHidden()
    assert broken.error.isVisible() and broken.error.text().startswith("Last error: ")
    assert broken.error.text() == f"Last error: {manager.status('broken').last_error}"


def test_test_connects_in_the_background_and_lists_the_tools_with_their_risks(qtbot, make_page, config, manager):
    config.add(demo_config("demo"))
    page = make_page(config, manager)
    row = page.rows["demo"]
    assert row.tools.isHidden()
    row.test_button.click()
    assert not row.test_button.isEnabled() and row.result.text() == "Connecting to demo…"  # the GUI goes on meanwhile
    qtbot.waitUntil(lambda: row.result.text().startswith("✓ Works"), timeout=30000)
    risks = row.tools.risks()
    assert risks["read_note"] == "Read-only" and risks["delete_note"] == "Destructive"
    assert risks["no_hints"] == "Undeclared effects" and risks["open_world"] == "Reaches the internet"
    assert row.result.text() == f"✓ Works — {len(risks)} tools" and row.test_button.isEnabled()
    assert manager.statuses() == []  # a Test is a connection of its own: nothing was started


def test_a_failing_test_says_why(qtbot, make_page, config, manager):
    config.add(McpServerConfig(name="missing", command="/nonexistent/mcp-server"))
    page = make_page(config, manager)
    row = page.rows["missing"]
    row.test_button.click()
    qtbot.waitUntil(lambda: row.result.text().startswith("Could not connect: "), timeout=30000)
    assert row.result.property("kind") == "error" and row.tools.isHidden()


def test_restart_starts_a_new_server_process(qtbot, make_page, config, manager):
    config.add(demo_config("demo"))
    page = make_page(config, manager)
    manager.start()
    row = page.rows["demo"]
    qtbot.waitUntil(lambda: row.state.text() == "Ready", timeout=30000)
    before = call(qtbot, manager, "demo", "pid", {})
    row.restart_button.click()
    wait_idle(qtbot, page, 30000)
    qtbot.waitUntil(lambda: row.state.text() == "Ready", timeout=30000)
    assert call(qtbot, manager, "demo", "pid", {}) != before


def test_a_server_added_here_starts_with_its_secret_and_removing_it_stops_it(qtbot, make_page, config, config_dir, manager):
    page = make_page(config, manager)
    form = page.open_form()
    form.name_edit.setText("notes")
    form.command_edit.setText(f"{sys.executable} -m tests.support.mcp_servers.demo_server --transport stdio")
    form.env_edit.setPlainText(f"NOTES_TOKEN={ENV_SECRET}")
    form.add_button.click()
    wait_idle(qtbot, page, 30000)  # saved, then the manager reloaded
    row = page.rows["notes"]
    qtbot.waitUntil(lambda: row.state.text() == "Ready", timeout=30000)
    import hashlib

    assert call(qtbot, manager, "notes", "env_check", {"name": "NOTES_TOKEN"}) == (
        f"NOTES_TOKEN: set sha256={hashlib.sha256(ENV_SECRET.encode()).hexdigest()}")
    assert files_containing(config_dir, ENV_SECRET) == []

    row.remove_button.click()
    confirm(page.confirm_box)
    wait_idle(qtbot, page, 30000)
    assert page.rows == {} and manager.statuses() == [] and servers_in(config) == {}


# --- Sign in… with the OAuth-protected demo server --------------------------------------------------------------


@pytest.fixture(scope="module")
def oauth_server():
    from tests.support.mcp_servers.oauth_server import OAuthDemoServer

    with OAuthDemoServer(access_seconds=60) as server:
        yield server


@pytest.fixture
def signing_manager(config, keyring, monkeypatch):
    """A real McpManager whose OAuth tokens go to the test's keyring and whose browser is the fake one."""
    from desktop_copilot.core.mcp.manager import McpManager
    from tests.support.mcp_servers.oauth_server import FakeBrowser
    from tests.support.memory_keyring import use_memory_keyring

    use_memory_keyring(monkeypatch, keyring)
    browser = FakeBrowser()
    running = McpManager(config.configs, config.resolve_secret, open_browser=browser, connect_timeout=20.0)
    running.browser = browser
    yield running
    running.stop()


def test_sign_in_waits_for_the_browser_then_connects_and_keeps_the_tokens_in_the_keyring(
        qtbot, make_page, config, config_dir, keyring, oauth_server, signing_manager):
    from desktop_copilot.core.mcp.oauth import tokens_entry

    config.add(McpServerConfig(name="secure", url=oauth_server.url))  # not marked oauth: the 401 tells
    config.add(demo_config("local"))
    page = make_page(config, signing_manager)
    secure, local = page.rows["secure"], page.rows["local"]
    assert secure.sign_in_button.isHidden()  # nothing says it needs a sign-in yet
    signing_manager.start()
    qtbot.waitUntil(lambda: secure.state.text() == "Failed" and local.state.text() == "Ready", timeout=30000)
    assert secure.error.text() == "Last error: needs sign-in: run desktop-copilot mcp login secure"
    assert secure.sign_in_button.isVisible() and local.sign_in_button.isHidden()
    assert signing_manager.browser.opened == []  # starting never opens a browser

    secure.sign_in_button.click()
    assert secure.result.text().startswith("Waiting for the browser…") and not secure.sign_in_button.isEnabled()
    qtbot.waitUntil(lambda: secure.result.text().startswith("✓ Signed in"), timeout=30000)
    tools = signing_manager.status("secure").tools
    assert secure.result.text() == f"✓ Signed in — {len(tools)} tools" and secure.result.property("kind") == "ok"
    assert secure.state.text() == "Ready" and secure.error.isHidden() and secure.sign_in_button.isHidden()
    assert secure.tools.risks()["read_note"] == "Read-only"
    assert len(signing_manager.browser.opened) == 1
    tokens = json.loads(keyring.entries[("desktop-copilot", tokens_entry("secure"))])
    assert files_containing(config_dir, tokens["access_token"]) == [] and files_containing(config_dir, tokens["refresh_token"]) == []
    assert call(qtbot, signing_manager, "secure", "read_note", {"name": "todo"}) == "Buy milk."


def test_an_oauth_server_offers_sign_in_and_a_refusal_is_shown(qtbot, make_page, config, signing_manager):
    from tests.support.mcp_servers.oauth_server import OAuthDemoServer

    with OAuthDemoServer(refuse_sign_in=True) as server:
        config.add(McpServerConfig(name="secure", url=server.url, oauth=True))
        page = make_page(config, signing_manager)
        row = page.rows["secure"]
        assert row.sign_in_button.isVisible()  # marked oauth: offered before any connect
        signing_manager.start()
        qtbot.waitUntil(lambda: row.state.text() == "Failed", timeout=30000)
        row.sign_in_button.click()
        qtbot.waitUntil(lambda: row.result.text().startswith("Could not sign in: "), timeout=30000)
    assert row.result.text() == "Could not sign in: sign-in failed: the sign-in was refused: the demo server refuses every sign-in"
    assert row.result.property("kind") == "error" and row.sign_in_button.isEnabled() and row.sign_in_button.isVisible()
    assert "Sign-in failed" in signing_manager.browser.landed[0][2]
