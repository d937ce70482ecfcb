"""mcp.json: secrets moved into the keyring, damaged files reported without a crash, imports from other apps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from keyring.backends import fail

from desktop_copilot.core.keys.keyring_store import SERVICE
from desktop_copilot.core.mcp.config_file import (
    KeyringSecrets,
    McpConfigError,
    McpConfigFile,
    McpNameError,
    SecretStoreError,
)
from desktop_copilot.core.mcp.server_config import McpServerConfig, secret_entry, secret_ref
from tests.support.memory_keyring import MemoryKeyring

TOKEN = "ghp_secretvalue_0123456789abcdef"
BEARER = "Bearer s3cr3t-header-value with spaces"


def server(name: str, **fields) -> McpServerConfig:
    config = McpServerConfig.model_validate(fields)
    config.name = name
    return config


def folder_text(folder: Path) -> str:
    return "\n".join(path.read_bytes().decode("utf-8", "replace") for path in folder.rglob("*") if path.is_file())


@pytest.fixture
def keyring() -> MemoryKeyring:
    return MemoryKeyring()


@pytest.fixture
def mcp_file(tmp_path, keyring) -> McpConfigFile:
    return McpConfigFile(tmp_path / "config" / "mcp.json", KeyringSecrets(keyring))


def on_disk(mcp_file: McpConfigFile) -> dict:
    return json.loads(mcp_file.path.read_text(encoding="utf-8"))


def test_add_moves_env_values_into_the_keyring_and_writes_only_references(mcp_file, keyring):
    saved = mcp_file.add(server("github", command="npx", args=["-y", "@modelcontextprotocol/server-github"], env={"GITHUB_TOKEN": TOKEN}))

    entry = secret_entry("github", "env", "GITHUB_TOKEN")
    assert keyring.entries == {(SERVICE, entry): TOKEN}
    assert on_disk(mcp_file) == {"mcpServers": {"github": {
        "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": secret_ref(entry)},
    }}}
    assert saved.env == {"GITHUB_TOKEN": secret_ref(entry)}
    assert TOKEN not in folder_text(mcp_file.path.parent)
    assert mcp_file.resolve_secret(entry) == TOKEN
    assert [c.name for c in McpConfigFile(mcp_file.path, mcp_file.secrets).configs()] == ["github"]


def test_add_remote_server_keeps_header_values_with_spaces_in_the_keyring(mcp_file, keyring):
    mcp_file.add(server("remote", url="https://mcp.example.com/mcp", headers={"Authorization": BEARER}, type="sse", oauth=True))

    entry = secret_entry("remote", "headers", "Authorization")
    assert keyring.entries == {(SERVICE, entry): BEARER}
    assert on_disk(mcp_file)["mcpServers"]["remote"] == {
        "url": "https://mcp.example.com/mcp", "headers": {"Authorization": secret_ref(entry)}, "type": "sse", "oauth": True,
    }
    (config,) = mcp_file.configs()
    assert config.kind == "sse" and config.oauth and config.name == "remote"


def test_an_existing_reference_is_kept_and_an_empty_value_is_not_a_secret(mcp_file, keyring):
    ref = secret_ref("mcp/other/env/SHARED")
    mcp_file.add(server("a", command="srv", env={"SHARED": ref, "EMPTY": ""}))
    assert keyring.entries == {}
    assert on_disk(mcp_file)["mcpServers"]["a"]["env"] == {"SHARED": ref, "EMPTY": ""}


def test_a_taken_name_is_refused_and_replace_deletes_secrets_no_longer_used(mcp_file, keyring):
    mcp_file.add(server("s", command="srv", env={"OLD": "old-value-123", "KEEP": "keep-value-1"}))
    with pytest.raises(McpNameError, match="already an MCP server named 's'.*mcp remove s"):
        mcp_file.add(server("s", command="other"))

    mcp_file.add(server("s", command="other", env={"KEEP": "new-value-22"}), replace=True)
    assert keyring.entries == {(SERVICE, secret_entry("s", "env", "KEEP")): "new-value-22"}
    assert on_disk(mcp_file)["mcpServers"]["s"]["command"] == "other"


@pytest.mark.parametrize("name", ["", "has space", "-leading-dash", "a/b", "x" * 65, "ünïcode"])
def test_bad_names_say_what_is_allowed(mcp_file, name):
    with pytest.raises(McpNameError, match="letters, digits, '_', '.' or '-'"):
        mcp_file.add(server(name, command="srv"))
    assert not mcp_file.path.exists()


@pytest.mark.parametrize(("fields", "words"), [
    ({"command": "srv", "env": {"A=B": "v"}}, "cannot be an environment variable name"),
    ({"url": "https://x.example/mcp", "headers": {"Bad Header": "v"}}, "cannot be a header name"),
    ({"url": "https://x.example/mcp", "headers": {"X-Key": "a\r\nInjected: yes"}}, "line break"),
    ({"command": "srv", "env": {"BIG": "k" * 2561}}, "2,560"),
])
def test_values_the_keyring_or_server_cannot_take_are_refused_without_showing_them(mcp_file, keyring, fields, words):
    with pytest.raises(McpConfigError, match=words) as caught:
        mcp_file.add(server("s", **fields))
    assert "Injected" not in str(caught.value) and "kkkk" not in str(caught.value)
    assert keyring.entries == {} and not mcp_file.path.exists()


def test_without_a_keyring_secrets_are_refused_and_nothing_is_written(tmp_path):
    mcp_file = McpConfigFile(tmp_path / "mcp.json", KeyringSecrets(fail.Keyring()))
    with pytest.raises(SecretStoreError, match=r"^no keyring: secrets for MCP servers cannot be stored.*Nothing was stored"):
        mcp_file.add(server("s", command="srv", env={"TOKEN": TOKEN}))
    assert not mcp_file.path.exists()

    mcp_file.add(server("plain", command="srv", args=["--flag"]))  # no secrets: no keyring needed
    assert list(on_disk(mcp_file)["mcpServers"]) == ["plain"]


class RefusesOneEntry(MemoryKeyring):
    def set_password(self, service, username, password):
        if username.endswith("/REFUSED"):
            raise RuntimeError(f"refused {password}")
        super().set_password(service, username, password)


def test_a_keyring_failure_midway_puts_back_what_was_stored_and_never_shows_the_value(tmp_path):
    keyring = RefusesOneEntry()
    mcp_file = McpConfigFile(tmp_path / "mcp.json", KeyringSecrets(keyring))
    mcp_file.add(server("s", command="srv", env={"A": "first-value-1"}))

    with pytest.raises(SecretStoreError, match="did not store the MCP secret 'mcp/s/env/REFUSED'") as caught:
        mcp_file.add(server("s", command="srv", env={"A": "second-value-2", "REFUSED": "never-shown-99"}), replace=True)
    assert "never-shown-99" not in str(caught.value)
    assert keyring.entries == {(SERVICE, "mcp/s/env/A"): "first-value-1"}
    assert on_disk(mcp_file)["mcpServers"]["s"]["env"] == {"A": secret_ref("mcp/s/env/A")}


def test_remove_deletes_the_server_and_its_keyring_entries_only(mcp_file, keyring):
    mcp_file.add(server("one", command="srv", env={"TOKEN": TOKEN}))
    mcp_file.add(server("two", url="https://two.example/mcp", headers={"Authorization": BEARER}))

    removed = mcp_file.remove("one")
    assert removed.deleted_secrets == 1 and removed.left_in_keyring is None
    assert keyring.entries == {(SERVICE, secret_entry("two", "headers", "Authorization")): BEARER}
    assert list(on_disk(mcp_file)["mcpServers"]) == ["two"]
    with pytest.raises(McpNameError, match=r"no MCP server named 'one'.*\(servers: two\)"):
        mcp_file.remove("one")


def test_remove_without_a_keyring_still_removes_and_says_the_secrets_stay(tmp_path, keyring):
    path = tmp_path / "mcp.json"
    McpConfigFile(path, KeyringSecrets(keyring)).add(server("s", command="srv", env={"TOKEN": TOKEN}))
    removed = McpConfigFile(path, KeyringSecrets(fail.Keyring())).remove("s")
    assert removed.left_in_keyring is not None and "stay in the keyring" in removed.left_in_keyring
    assert json.loads(path.read_text())["mcpServers"] == {}


@pytest.mark.parametrize(("text", "words"), [
    ('{"mcpServers": {"a": {"command": "x"},}', "not valid JSON (Expecting property name enclosed in double quotes at line 1"),
    ("[1, 2]", "does not hold a JSON object"),
    ('{"mcpServers": ["a"]}', '"mcpServers" is not an object'),
    (b"\xff\xfe\x00bad", "not UTF-8"),
])
def test_a_damaged_file_is_reported_not_raised_and_not_overwritten(mcp_file, text, words):
    mcp_file.path.parent.mkdir(parents=True)
    raw = text if isinstance(text, bytes) else text.encode()
    mcp_file.path.write_bytes(raw)

    assert mcp_file.load() == []
    assert words in mcp_file.problem and str(mcp_file.path) in mcp_file.problem
    assert "fixed or removed" in mcp_file.problem
    with pytest.raises(McpConfigError, match="Nothing was changed"):
        mcp_file.add(server("new", command="srv"))
    assert mcp_file.path.read_bytes() == raw


def test_bad_entries_are_named_while_the_good_ones_load_and_unknown_keys_survive_a_save(mcp_file):
    mcp_file.path.parent.mkdir(parents=True)
    mcp_file.path.write_text(json.dumps({
        "globalShortcut": "Ctrl+Space",
        "mcpServers": {
            "good": {"command": "srv", "args": ["-v"], "autoApprove": ["read"], "timeout": 30},
            "both": {"command": "srv", "url": "https://x.example"},
            "wrongtype": {"command": 5},
            "notobject": "npx something",
            "bad name": {"command": "srv"},
        },
    }))

    configs = mcp_file.load()
    assert [c.name for c in configs] == ["good"]
    assert set(mcp_file.invalid) == {"both", "wrongtype", "notobject", "bad name"}
    problem = mcp_file.problem
    assert "4 MCP server(s) cannot be used" in problem and "mcp remove NAME" in problem and "the other servers work" in problem
    assert "'both': give either a command (a local server) or a url (a remote server)" in problem
    assert "'wrongtype': command: Input should be a valid string" in problem

    mcp_file.add(server("added", command="new"))
    saved = on_disk(mcp_file)
    assert saved["globalShortcut"] == "Ctrl+Space"
    assert saved["mcpServers"]["good"] == {"command": "srv", "args": ["-v"], "autoApprove": ["read"], "timeout": 30}
    assert saved["mcpServers"]["notobject"] == "npx something" and saved["mcpServers"]["both"]["url"] == "https://x.example"
    assert list(saved["mcpServers"]) == ["good", "both", "wrongtype", "notobject", "bad name", "added"]


def test_set_disabled_and_enable_again(mcp_file):
    mcp_file.add(server("s", command="srv"))
    assert mcp_file.set_disabled("s", True).disabled
    assert on_disk(mcp_file)["mcpServers"]["s"] == {"command": "srv", "disabled": True}
    mcp_file.set_disabled("s", False)
    assert on_disk(mcp_file)["mcpServers"]["s"] == {"command": "srv"}


def test_values_pasted_into_the_file_are_moved_into_the_keyring(mcp_file, keyring):
    mcp_file.path.parent.mkdir(parents=True)
    mcp_file.path.write_text(json.dumps({"mcpServers": {"pasted": {"command": "srv", "env": {"API_KEY": TOKEN}}}}))
    (pasted,) = mcp_file.load()
    assert pasted.env == {"API_KEY": TOKEN}  # usable as it is until moved

    assert mcp_file.protect_plain_values() == ["pasted"]
    assert TOKEN not in folder_text(mcp_file.path.parent)
    assert keyring.entries == {(SERVICE, "mcp/pasted/env/API_KEY"): TOKEN}
    assert mcp_file.protect_plain_values() == []


CLAUDE_DESKTOP_CONFIG = {
    "mcpServers": {
        "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]},
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": TOKEN}},
        "brave-search": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-brave-search"], "env": {"BRAVE_API_KEY": "BSA-brave-key-4242"}},
        "broken": {"args": ["no command"]},
        "existing": {"command": "imported-version"},
    },
    "globalShortcut": "",
}


def test_import_of_a_claude_desktop_config_moves_secrets_and_reports_each_server(mcp_file, keyring, tmp_path):
    mcp_file.add(server("existing", command="mine"))
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps(CLAUDE_DESKTOP_CONFIG, indent=2))

    report = mcp_file.import_file(source)

    assert report.added == ["filesystem", "github", "brave-search"]
    assert report.skipped == ["existing"] and report.replaced == []
    assert report.invalid == [("broken", "give either a command (a local server) or a url (a remote server)")]
    assert keyring.entries == {
        (SERVICE, "mcp/github/env/GITHUB_PERSONAL_ACCESS_TOKEN"): TOKEN,
        (SERVICE, "mcp/brave-search/env/BRAVE_API_KEY"): "BSA-brave-key-4242",
    }
    text = folder_text(mcp_file.path.parent)
    assert TOKEN not in text and "BSA-brave-key-4242" not in text
    assert on_disk(mcp_file)["mcpServers"]["existing"] == {"command": "mine"}

    again = mcp_file.import_file(source, replace=True)
    assert again.replaced == ["filesystem", "github", "brave-search", "existing"] and again.added == []
    assert on_disk(mcp_file)["mcpServers"]["existing"] == {"command": "imported-version"}


def test_import_of_a_vs_code_file_takes_servers_and_refuses_unexpandable_variables(mcp_file, keyring, tmp_path):
    source = tmp_path / "mcp.json"
    source.write_text(json.dumps({
        "inputs": [{"type": "promptString", "id": "token", "password": True}],
        "servers": {
            "remote": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"X-Api-Key": "plain-key-value"}},
            "streamable": {"type": "streamable-http", "url": "https://s.example.com/mcp"},
            "asks": {"type": "http", "url": "https://a.example.com/mcp", "headers": {"Authorization": "Bearer ${input:token}"}},
        },
    }))
    report = mcp_file.import_file(source)
    assert report.added == ["remote", "streamable"]
    ((name, reason),) = report.invalid
    assert name == "asks" and "${input:…}" in reason and "desktop-copilot mcp add asks" in reason
    assert [c.kind for c in mcp_file.configs()] == ["http", "http"]
    assert keyring.entries == {(SERVICE, "mcp/remote/headers/X-Api-Key"): "plain-key-value"}


@pytest.mark.parametrize(("content", "words"), [
    (None, "there is no file"),
    ('{"theme": "dark"}', 'no "mcpServers" (or "servers") object'),
    ('{"servers": {}, // comment\n}', "Comments and trailing commas are not allowed"),
])
def test_import_of_something_else_says_what_is_wrong(mcp_file, tmp_path, content, words):
    source = tmp_path / "other.json"
    if content is not None:
        source.write_text(content)
    with pytest.raises(McpConfigError) as caught:
        mcp_file.import_file(source)
    assert words in str(caught.value)
    assert not mcp_file.path.exists()


def test_import_without_a_keyring_takes_servers_without_secrets_only(tmp_path):
    mcp_file = McpConfigFile(tmp_path / "config" / "mcp.json", KeyringSecrets(fail.Keyring()))
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps(CLAUDE_DESKTOP_CONFIG))
    report = mcp_file.import_file(source)
    assert report.added == ["filesystem", "existing"]
    reasons = dict(report.invalid)
    assert set(reasons) == {"github", "brave-search", "broken"} and reasons["github"].startswith("no keyring")
    assert TOKEN not in folder_text(mcp_file.path.parent)
