"""`desktop-copilot keys set|list|delete` with an in-memory keyring: output, exit codes, and no values shown."""

from __future__ import annotations

import io

import pytest
from keyring.backends import fail

from desktop_copilot.app.cli import main
from desktop_copilot.core.keys import keyring_store
from desktop_copilot.core.keys.keyring_store import SERVICE
from tests.core.keys.test_keyring_store import MemoryKeyring, PlaintextKeyring, RefusingKeyring

VALUE = "sk-ant-api03-cli-test-value-7c1d"


class TTYInput(io.StringIO):
    def isatty(self) -> bool:
        return True


def use_backend(monkeypatch, backend):
    monkeypatch.setattr(keyring_store, "default_backend", lambda: backend)
    return backend


@pytest.fixture
def memory(monkeypatch):
    return use_backend(monkeypatch, MemoryKeyring())


def run(capsys, monkeypatch, *argv, stdin: str | io.StringIO = ""):
    monkeypatch.setattr("sys.stdin", stdin if isinstance(stdin, io.StringIO) else io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert VALUE not in out and VALUE not in err
    return code, out, err


def test_set_reads_standard_input(capsys, monkeypatch, memory):
    code, out, err = run(capsys, monkeypatch, "keys", "set", "anthropic", stdin=f"{VALUE}\n")
    assert code == 0, err
    assert "Stored the Anthropic API key (…7c1d)" in out and MemoryKeyring.name in out
    assert memory.entries == {(SERVICE, "anthropic"): VALUE}


def test_set_prompts_hidden_on_a_terminal(capsys, monkeypatch, memory):
    prompts = []

    def fake_getpass(prompt):
        prompts.append(prompt)
        return f" {VALUE} "

    monkeypatch.setattr("getpass.getpass", fake_getpass)
    code, out, _ = run(capsys, monkeypatch, "keys", "set", "tavily", stdin=TTYInput())
    assert code == 0
    assert prompts == ["Tavily API key (input hidden): "]
    assert memory.entries == {(SERVICE, "tavily"): VALUE}


def test_set_notes_an_environment_variable_that_is_also_set(capsys, monkeypatch, memory):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-environment-key")
    code, out, _ = run(capsys, monkeypatch, "keys", "set", "anthropic", stdin=VALUE)
    assert code == 0 and "ANTHROPIC_API_KEY is also set" in out


def test_unknown_name_lists_the_known_ones(capsys, monkeypatch, memory):
    for action in ("set", "delete"):
        code, _, err = run(capsys, monkeypatch, "keys", action, "nosuchprovider", stdin=VALUE)
        assert code == 2 and "anthropic, tavily" in err
    assert memory.entries == {}


@pytest.mark.parametrize(("stdin", "words"), [("", "empty"), ("  \n", "empty"), ("k" * 2561, "2,560 bytes")])
def test_bad_values_are_usage_errors(capsys, monkeypatch, memory, stdin, words):
    code, _, err = run(capsys, monkeypatch, "keys", "set", "anthropic", stdin=stdin)
    assert code == 2 and words in err and "Nothing was stored" in err
    assert "k" * 100 not in err
    assert memory.entries == {}


def test_backend_failure_exits_1_without_the_value(capsys, monkeypatch):
    use_backend(monkeypatch, RefusingKeyring())
    code, _, err = run(capsys, monkeypatch, "keys", "set", "anthropic", stdin=VALUE)
    assert code == 1 and "did not store" in err


@pytest.mark.parametrize("backend", [fail.Keyring(), PlaintextKeyring()], ids=type)
def test_set_without_a_usable_keyring_stores_nothing_and_explains(capsys, monkeypatch, backend):
    use_backend(monkeypatch, backend)
    code, out, err = run(capsys, monkeypatch, "keys", "set", "anthropic", stdin=VALUE)
    assert code == 2 and out == ""
    assert "no usable keyring" in err and "Nothing was stored" in err and "ANTHROPIC_API_KEY" in err
    assert getattr(backend, "entries", {}) == {}
    code, _, err = run(capsys, monkeypatch, "keys", "delete", "anthropic")
    assert code == 2 and "Nothing was deleted" in err


def test_list_shows_sources_and_hints_only(capsys, monkeypatch, memory):
    run(capsys, monkeypatch, "keys", "set", "anthropic", stdin=VALUE)
    code, out, _ = run(capsys, monkeypatch, "keys", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"Keyring: {MemoryKeyring.name}"
    assert lines[1].split() == ["anthropic", "set", "from", "keyring", "…7c1d"]
    assert lines[2].startswith("tavily") and "not set" in lines[2] and "TAVILY_API_KEY" in lines[2]

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-environment-key-abcd")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-environment-key-wxyz")
    _, out, _ = run(capsys, monkeypatch, "keys", "list")
    assert "from keyring …7c1d  (also in environment, not used)" in out
    assert "from environment …wxyz" in out
    assert "sk-ant-environment-key-abcd" not in out and "tvly-environment-key-wxyz" not in out


def test_list_reports_an_unusable_keyring(capsys, monkeypatch):
    use_backend(monkeypatch, fail.Keyring())
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-environment-key-wxyz")
    code, out, _ = run(capsys, monkeypatch, "keys", "list")
    assert code == 0
    assert out.startswith("Keyring: not usable: no system keyring was found")
    assert "from environment …wxyz" in out


def test_delete(capsys, monkeypatch, memory):
    run(capsys, monkeypatch, "keys", "set", "anthropic", stdin=VALUE)
    code, out, _ = run(capsys, monkeypatch, "keys", "delete", "anthropic")
    assert code == 0 and "Deleted the Anthropic API key" in out
    assert memory.entries == {}
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-environment-key")
    code, _, err = run(capsys, monkeypatch, "keys", "delete", "anthropic")
    assert code == 1 and "no Anthropic API key" in err and "ANTHROPIC_API_KEY is still set" in err


def test_keys_without_an_action_shows_help(capsys, monkeypatch, memory):
    code, _, err = run(capsys, monkeypatch, "keys")
    assert code == 2 and "set" in err and "list" in err and "delete" in err


def test_a_key_for_an_endpoint_added_in_settings(capsys, monkeypatch, memory):
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.config.settings import CustomProvider, Settings, SettingsFile

    settings = Settings(custom_providers=[CustomProvider(id="lmstudio", label="LM Studio", base_url="http://127.0.0.1:1234/v1",
                                                         needs_key=True)])
    SettingsFile(AppPaths.resolve().ensure().settings_file).save(settings)
    code, _, _ = run(capsys, monkeypatch, "keys", "set", "lmstudio", stdin=VALUE)
    assert code == 0
    assert list(memory.entries.values()) == [VALUE]
