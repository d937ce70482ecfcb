"""Property tests of the settings.json and mcp.json loaders on real files holding any bytes or hostile JSON: loading
never raises; a file that cannot be used is reported and kept (settings.json moved aside with its bytes intact,
mcp.json left as it is and never overwritten) and the defaults are used; what loads saves and loads again the same."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from desktop_copilot.core.mcp.config_file import McpConfigFile
from desktop_copilot.core.mcp.secret_store import KeyringSecrets, McpConfigError
from desktop_copilot.core.config.settings import Settings, SettingsError, SettingsFile
from tests.fuzz.support import fuzz_settings, json_values, mutate, ran, wire_garbage
from tests.support.memory_keyring import MemoryKeyring

DEEP = b"[" * 100_000 + b"]" * 100_000
"""Nesting Python's JSON reader cannot follow (a RecursionError, not a JSONDecodeError)."""

SETTINGS_WORDS = tuple(Settings.model_fields) + ("auto", "light", "dark", "https://a.example", "ftp://x", "", " ")
VALID_SETTINGS = Settings(default_model="m", thinking_enabled=True, disabled_tools={"a"}, window_splitter_sizes=[1, 2],
                          base_urls={"openai": "https://x.example"}, theme="dark").model_dump(mode="json")
MCP_WORDS = ("mcpServers", "servers", "command", "args", "env", "url", "headers", "type", "cwd", "disabled", "oauth",
             "stdio", "http", "sse", "streamable-http", "https://m.example/mcp", "npx", "${keyring:mcp/s/env/K}",
             "${input:x}", "serverUrl", "name")
VALID_MCP = {"mcpServers": {
    "local": {"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "${keyring:mcp/local/env/TOKEN}"}},
    "remote": {"url": "https://m.example/mcp", "headers": {"Authorization": "${keyring:mcp/remote/headers/Authorization}"},
               "type": "http", "extra": [1, 2]},
    "off": {"command": "srv", "disabled": True},
}, "other": {"kept": True}}


def files() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="fuzz-config-")


def hostile_json(valid: dict, words: tuple[str, ...]) -> st.SearchStrategy[bytes]:
    """A valid document with a few things changed, or any JSON, as bytes (some with a BOM or in UTF-16)."""

    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        document = valid
        for _ in range(draw(st.integers(0, 4))):
            document = mutate(draw, document, wire_garbage(*words))
        if draw(st.integers(0, 5)) == 0:
            document = draw(json_values(*words))
        text = json.dumps(document, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2])))
        encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16"]))
        return text.encode(encoding, "surrogatepass")

    return build()


any_bytes = st.binary(max_size=200) | st.sampled_from([b"", b"\xef\xbb\xbf", b"{", b"null", b"[]", b'"x"', b"{}", DEEP,
                                                       b'{"a": NaN}', b'{"theme": "\\ud800"}'])


# --- settings.json ---


def check_settings(raw: bytes) -> None:
    with files() as folder:
        path = Path(folder) / "settings.json"
        path.write_bytes(raw)
        settings_file = SettingsFile(path)
        settings = settings_file.load()
        assert isinstance(settings, Settings)
        if settings_file.problem is None:
            assert path.read_bytes() == raw  # a usable file is left as it is
        else:
            assert str(path) in settings_file.problem
            assert settings == Settings()  # the defaults
            assert settings_file.moved_to is not None and settings_file.moved_to.read_bytes() == raw  # kept aside
            assert not path.exists()
        try:
            settings_file.save(settings)
        except SettingsError:
            return
        again = SettingsFile(path)
        assert again.load() == settings and again.problem is None


@fuzz_settings("settings_loader", 80)
@given(any_bytes)
@example(DEEP)
@example(b'{"default_model": "\\ud800"}')
def test_settings_from_any_bytes(raw):
    ran("settings_loader")
    check_settings(raw)


@fuzz_settings("settings_loader", 60)
@given(hostile_json(VALID_SETTINGS, SETTINGS_WORDS))
def test_settings_from_hostile_json(raw):
    ran("settings_loader")
    check_settings(raw)


# --- mcp.json ---


def check_mcp(raw: bytes) -> None:
    with files() as folder:
        path = Path(folder) / "mcp.json"
        path.write_bytes(raw)
        mcp_file = McpConfigFile(path, KeyringSecrets(MemoryKeyring()))
        configs = mcp_file.load()
        names = [config.name for config in configs]
        assert len(set(names)) == len(names)
        if mcp_file.problem is not None:
            assert str(path) in mcp_file.problem
        assert path.read_bytes() == raw  # loading never changes the file
        try:
            mcp_file.save()
        except McpConfigError as exc:
            assert str(exc) and not configs and path.read_bytes() == raw  # an unusable file is not overwritten
            return
        again = McpConfigFile(path, mcp_file.secrets)
        assert again.load() == configs and again.invalid == mcp_file.invalid


@fuzz_settings("mcp_json_loader", 100)
@given(any_bytes)
@example(DEEP)
def test_mcp_json_from_any_bytes(raw):
    ran("mcp_json_loader")
    check_mcp(raw)


@fuzz_settings("mcp_json_loader", 60)
@given(hostile_json(VALID_MCP, MCP_WORDS))
@example(json.dumps({"mcpServers": {"s": {"command": "x", "env": {"K": "\ud800"}}}}).encode())
def test_mcp_json_from_hostile_json(raw):
    ran("mcp_json_loader")
    check_mcp(raw)


@pytest.mark.parametrize("raw", [DEEP, b"\xff\xfe{", b"[]", b'{"a": "\\ud800"}'])
def test_the_checks_see_an_unusable_file(raw):
    """The properties' "reported and kept" branches are reached (not only the happy path)."""
    with files() as folder:
        settings_file = SettingsFile(Path(folder) / "settings.json")
        settings_file.path.write_bytes(raw)
        settings_file.load()
        assert settings_file.problem and settings_file.moved_to.read_bytes() == raw
        mcp_file = McpConfigFile(Path(folder) / "mcp.json", KeyringSecrets(MemoryKeyring()))
        mcp_file.path.write_bytes(raw)
        assert mcp_file.load() == [] and mcp_file.problem
        with pytest.raises(McpConfigError):
            mcp_file.save()
