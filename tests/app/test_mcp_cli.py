"""`desktop-copilot mcp add|list|remove|import|enable|disable` with an in-memory keyring and real MCP servers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from keyring.backends import fail

from desktop_copilot.app.cli import main
from desktop_copilot.core.keys.keyring_store import SERVICE
from tests.support.memory_keyring import MemoryKeyring, use_memory_keyring

REPO = Path(__file__).resolve().parents[2]
TOKEN = "ghp_cli-secret-token-5a7e9c"
HEADER = "Bearer cli-header-secret 8d2f"
DEMO = ["--cwd", str(REPO), "--", sys.executable, "-m", "tests.support.mcp_servers.demo_server", "--transport", "stdio"]
DEMO_TOOLS = 15


@pytest.fixture
def keyring(monkeypatch) -> MemoryKeyring:
    return use_memory_keyring(monkeypatch)


def home() -> Path:
    return Path(os.environ["DESKTOP_COPILOT_HOME"])


def mcp_json() -> dict:
    return json.loads((home() / "config" / "mcp.json").read_text(encoding="utf-8"))


def everything_written() -> str:
    """Every file under the app's folders (config, data, logs) as text."""
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in home().rglob("*") if p.is_file())


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["mcp", *argv])
    out, err = capsys.readouterr()
    for secret in (TOKEN, HEADER, "cli-header-secret"):
        assert secret not in out and secret not in err
    return code, out, err


def test_add_a_local_server_keeps_env_values_in_the_keyring_only(capsys, keyring):
    code, out, err = run(capsys, "add", "github", "--env", f"GITHUB_TOKEN={TOKEN}", "--env", "EMPTY=", "--",
                         "npx", "-y", "@modelcontextprotocol/server-github", "--verbose")
    assert code == 0, err
    assert "Added the MCP server 'github' (stdio: npx -y @modelcontextprotocol/server-github --verbose)" in out
    assert "env: GITHUB_TOKEN (in keyring), EMPTY (empty)" in out
    assert keyring.entries == {(SERVICE, "mcp/github/env/GITHUB_TOKEN"): TOKEN}
    assert mcp_json() == {"mcpServers": {"github": {
        "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github", "--verbose"],
        "env": {"GITHUB_TOKEN": "${keyring:mcp/github/env/GITHUB_TOKEN}", "EMPTY": ""},
    }}}
    assert TOKEN not in everything_written()


def test_add_env_key_alone_takes_the_value_from_the_environment(capsys, keyring, monkeypatch):
    monkeypatch.setenv("MY_TOKEN", TOKEN)
    code, _, err = run(capsys, "add", "s", "--env", "MY_TOKEN", "--", "srv")
    assert code == 0, err
    assert keyring.entries == {(SERVICE, "mcp/s/env/MY_TOKEN"): TOKEN}


def test_add_a_remote_server_with_headers_sse_and_oauth(capsys, keyring):
    code, out, err = run(capsys, "add", "remote", "--url", "https://mcp.example.com/sse", "--header", f"Authorization: {HEADER}",
                         "--sse", "--oauth")
    assert code == 0, err
    assert "(sse: https://mcp.example.com/sse)" in out and "headers: Authorization (in keyring)" in out
    assert keyring.entries == {(SERVICE, "mcp/remote/headers/Authorization"): HEADER}
    assert mcp_json()["mcpServers"]["remote"] == {
        "url": "https://mcp.example.com/sse", "headers": {"Authorization": "${keyring:mcp/remote/headers/Authorization}"},
        "type": "sse", "oauth": True,
    }
    assert "cli-header-secret" not in everything_written()


@pytest.mark.parametrize(("argv", "words"), [
    (["bad name", "--", "srv"], "use 1 to 64 letters, digits, '_', '.' or '-'"),
    (["s", "--env", "NOEQUALS_AND_NOT_SET", "--", "srv"], "write KEY=VALUE (e.g. --env API_TOKEN=abc123)"),
    (["s", "--env", "=value", "--", "srv"], "--env needs a name before '='"),
    (["s", "--url", "https://x.example/mcp", "--header", "Authorization Bearer x"], "write 'KEY: VALUE' in quotes"),
    (["s", "--url", "https://x.example/mcp", "--header", ": value"], "--header needs a name before ':'"),
    (["s", "--url", "https://x.example/mcp", "--header", "Bad Name: v"], "cannot be a header name"),
    (["s", "--url", "ftp://x.example/mcp"], "the url must start with http:// or https://"),
    (["s", "--url", "https://x.example/mcp", "--", "srv"], "either --url URL (a remote server) or -- COMMAND"),
    (["s", "--url", "https://x.example/mcp", "--env", "A=1"], "--env cannot be used with a remote server"),
    (["s", "--header", "A: 1", "--", "srv"], "--header cannot be used with a local server"),
    (["s"], "give the server's command after -- or its --url"),
    (["s", "--cwd", "/no/such/folder", "--", "srv"], "there is no folder /no/such/folder"),
    (["s", "--bogus", "--", "srv"], "unrecognized arguments: --bogus"),
])
def test_usage_errors_exit_2_and_say_how_to_write_it(capsys, keyring, argv, words):
    code, out, err = run(capsys, "add", *argv)
    assert code == 2 and out == ""
    assert words in err
    assert keyring.entries == {} and not (home() / "config" / "mcp.json").exists()


def test_add_stores_cwd_as_an_absolute_folder(capsys, keyring, monkeypatch, tmp_path):
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "add", "s", "--cwd", "work", "--", "srv")
    assert code == 0, err
    assert mcp_json()["mcpServers"]["s"] == {"command": "srv", "cwd": str(tmp_path / "work")}


def test_add_a_taken_name_exits_2_and_names_the_remedy(capsys, keyring):
    assert run(capsys, "add", "s", "--", "srv")[0] == 0
    code, _, err = run(capsys, "add", "s", "--", "other")
    assert code == 2 and "remove it first (`desktop-copilot mcp remove s`)" in err
    code, _, err = run(capsys, "add", "s", "--replace", "--", "other")
    assert code == 0 and mcp_json()["mcpServers"]["s"] == {"command": "other"}


def test_without_a_keyring_secrets_are_refused_and_nothing_is_written(capsys, monkeypatch):
    use_memory_keyring(monkeypatch, fail.Keyring())
    code, out, err = run(capsys, "add", "s", "--env", f"TOKEN={TOKEN}", "--", "srv")
    assert code == 1 and out == ""
    assert err.startswith("error: no keyring: secrets for MCP servers cannot be stored") and "Nothing was stored" in err
    assert not (home() / "config" / "mcp.json").exists()
    assert TOKEN not in everything_written()


def test_remove_deletes_the_server_and_its_keyring_entries(capsys, keyring):
    run(capsys, "add", "one", "--env", f"TOKEN={TOKEN}", "--", "srv")
    run(capsys, "add", "two", "--url", "https://two.example/mcp", "--header", f"Authorization: {HEADER}")
    code, out, err = run(capsys, "remove", "one")
    assert code == 0, err
    assert "Removed the MCP server 'one'" in out and "deleted its 1 secret(s) from the keyring" in out
    assert keyring.entries == {(SERVICE, "mcp/two/headers/Authorization"): HEADER}
    assert list(mcp_json()["mcpServers"]) == ["two"]

    code, _, err = run(capsys, "remove", "one")
    assert code == 2 and "no MCP server named 'one'" in err and "(servers: two)" in err


def test_enable_and_disable(capsys, keyring):
    run(capsys, "add", "s", "--", "srv")
    assert run(capsys, "disable", "s")[:2] == (0, "Disabled the MCP server 's'.\n")
    assert mcp_json()["mcpServers"]["s"]["disabled"] is True
    code, out, _ = run(capsys, "list")
    assert code == 0 and "s  disabled  stdio  srv" in out and "state: disabled" in out
    assert run(capsys, "enable", "s")[0] == 0 and "disabled" not in mcp_json()["mcpServers"]["s"]
    assert run(capsys, "enable", "nope")[0] == 2


def test_import_a_claude_desktop_config(capsys, keyring, tmp_path):
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({
        "mcpServers": {
            "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Documents"]},
            "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": TOKEN}},
            "no-command": {"env": {"X": "y"}},
        },
    }, indent=2))
    code, out, err = run(capsys, "import", str(source))
    assert code == 1  # one entry could not be taken
    assert f"Added 2 MCP server(s) from {source}: filesystem, github." in out
    assert "error: 'no-command' was not imported: give either a command (a local server) or a url (a remote server)." in err
    assert keyring.entries == {(SERVICE, "mcp/github/env/GITHUB_PERSONAL_ACCESS_TOKEN"): TOKEN}
    assert TOKEN not in everything_written()

    code, out, _ = run(capsys, "import", str(source))
    assert "Skipped filesystem, github: a server of that name exists already (import with --replace to overwrite)." in out
    code, out, _ = run(capsys, "import", str(source), "--replace")
    assert "Replaced 2 MCP server(s)" in out

    code, _, err = run(capsys, "import", str(tmp_path / "missing.json"))
    assert code == 1 and "there is no file" in err


def test_list_of_a_damaged_file_explains_without_crashing(capsys, keyring):
    path = home() / "config" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"mcpServers": {"a": {"command": "x"}')
    code, out, err = run(capsys, "list")
    assert code == 1
    assert f"{path} is not valid JSON (Expecting ',' delimiter at line 1, column 38)" in err
    assert "fixed or removed" in err and "No MCP servers" in out
    code, _, err = run(capsys, "add", "b", "--", "srv")
    assert code == 1 and "Nothing was changed" in err
    assert path.read_text() == '{"mcpServers": {"a": {"command": "x"}'


def test_list_names_a_bad_entry_and_still_lists_the_good_one(capsys, keyring):
    path = home() / "config" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"good": {"command": "srv", "disabled": True}, "bad": {"command": ["not", "a", "string"]}}}))
    code, out, err = run(capsys, "list")
    assert code == 1
    assert "good  disabled  stdio  srv" in out and "bad  invalid  command: Input should be a valid string" in out
    assert "'bad': command: Input should be a valid string" in err and "desktop-copilot mcp remove NAME" in err


def test_list_moves_values_pasted_into_mcp_json_into_the_keyring(capsys, keyring):
    path = home() / "config" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"pasted": {"command": "srv", "env": {"API_KEY": TOKEN}, "disabled": True}}}))
    code, out, err = run(capsys, "list", "--no-connect")
    assert code == 0, err
    assert "Moved the env/header values of 'pasted' from mcp.json into the keyring." in err
    assert "env: API_KEY (in keyring)" in out
    assert keyring.entries == {(SERVICE, "mcp/pasted/env/API_KEY"): TOKEN}
    assert TOKEN not in everything_written()


def test_list_connects_to_a_real_stdio_server(capsys, keyring):
    assert run(capsys, "add", "demo", "--env", f"DEMO_SECRET={TOKEN}", *DEMO)[0] == 0
    assert run(capsys, "add", "off", "--disabled", "--", "does-not-matter")[0] == 0
    assert run(capsys, "add", "missing", "--", str(home() / "no-such-program"))[0] == 0

    code, out, err = run(capsys, "list")
    assert code == 0, err
    blocks = {block.split()[0]: block for block in out.split("\n\n")[1:]}
    assert blocks["demo"].startswith(f"demo  enabled  stdio  {sys.executable} -m tests.support.mcp_servers.demo_server --transport stdio")
    assert "env: DEMO_SECRET (in keyring)" in blocks["demo"]
    assert f"state: ready, {DEMO_TOOLS} tools (read_note, delete_note," in blocks["demo"]
    assert "state: disabled" in blocks["off"]
    assert "state: failed" in blocks["missing"] and "last error:" in blocks["missing"]

    code, out, _ = run(capsys, "list", "--json")
    listing = json.loads(out)
    servers = {server["name"]: server for server in listing["servers"]}
    assert servers["demo"]["state"] == "ready" and servers["demo"]["tool_count"] == DEMO_TOOLS
    assert servers["demo"]["env"] == ["DEMO_SECRET"]
    tools = {tool["name"]: tool["risk"] for tool in servers["demo"]["tools"]}
    assert tools["read_note"] != tools["delete_note"]
    assert servers["off"]["state"] == "disabled" and servers["off"]["enabled"] is False
    assert servers["missing"]["state"] == "failed" and servers["missing"]["last_error"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def http_demo():
    """The demo server over Streamable HTTP, answering only `Authorization: Bearer <DEMO_TOKEN>`."""
    port = free_port()
    env = dict(os.environ, DEMO_TOKEN="http-demo-token-31c4")
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mcp_servers.demo_server", "--transport", "http", "--port", str(port),
         "--bearer-token-env", "DEMO_TOKEN"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            assert process.poll() is None, process.stderr.read().decode()
            time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stderr.close()


def test_list_sends_header_secrets_from_the_keyring_to_a_real_http_server(capsys, keyring, http_demo):
    assert run(capsys, "add", "good", "--url", http_demo, "--header", "Authorization: Bearer http-demo-token-31c4")[0] == 0
    assert run(capsys, "add", "wrong", "--url", http_demo, "--header", "Authorization: Bearer not-the-token")[0] == 0
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    servers = {server["name"]: server for server in json.loads(out)["servers"]}
    assert servers["good"]["state"] == "ready" and servers["good"]["tool_count"] == DEMO_TOOLS
    assert servers["good"]["headers"] == ["Authorization"]
    assert servers["wrong"]["state"] == "failed" and servers["wrong"]["last_error"]
    assert "http-demo-token-31c4" not in out and "not-the-token" not in out


def test_the_real_command_refuses_secrets_without_a_keyring_and_lists_without_connecting(tmp_path):
    env = dict(os.environ, DESKTOP_COPILOT_HOME=str(tmp_path), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", PYTHONIOENCODING="utf-8")

    def command(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "desktop_copilot", "mcp", *argv], env=env, cwd=REPO, check=False,
                              capture_output=True, text=True, encoding="utf-8", timeout=60)

    refused = command("add", "s", "--env", f"TOKEN={TOKEN}", "--", "srv")
    assert refused.returncode == 1 and "no keyring: secrets for MCP servers cannot be stored" in refused.stderr
    added = command("add", "plain", "--", "srv", "--flag")
    assert added.returncode == 0, added.stderr
    listed = command("list", "--no-connect")
    assert listed.returncode == 0 and "plain  enabled  stdio  srv --flag" in listed.stdout and "state: not tested" in listed.stdout
    usage = command("add", "s", "--env", "=x", "--", "srv")
    assert usage.returncode == 2 and "--env needs a name before '='" in usage.stderr
    assert TOKEN not in "".join(p.read_text("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file())
