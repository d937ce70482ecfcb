"""KeyringKeys against in-memory keyring backends: storing, validation, refusals and the session fallback."""

from __future__ import annotations

import logging
import subprocess
import sys
import traceback

import pytest
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail, null
from keyring.errors import KeyringLocked, PasswordDeleteError, PasswordSetError

from desktop_copilot.core.keys import keyring_store
from desktop_copilot.core.keys.key_values import MAX_KEY_BYTES, KeyValueError
from desktop_copilot.core.keys.keyring_store import SERVICE, KeyringKeys, KeyStoreError, standard_lookup
from desktop_copilot.core.keys.secrets import Secret

VALUE = "sk-ant-api03-unit-test-value-9f3a"


class MemoryKeyring(KeyringBackend):
    """A keyring in a dict; for tests only (kept out of keyring's automatic backend discovery)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}
        self.calls: list[str] = []

    def get_password(self, service, username):
        self.calls.append("get")
        return self.entries.get((service, username))

    def set_password(self, service, username, password):
        self.calls.append("set")
        self.entries[(service, username)] = password

    def delete_password(self, service, username):
        self.calls.append("delete")
        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError("No such password!")


class RefusingKeyring(MemoryKeyring):
    """Rejects every write with a message that (badly) repeats the password."""

    def set_password(self, service, username, password):
        raise PasswordSetError(f"cannot store {password!r} for {username}")


class LockedKeyring(MemoryKeyring):
    def get_password(self, service, username):
        raise KeyringLocked("Failed to unlock the collection!")


class PlaintextKeyring(MemoryKeyring):
    """Looks like keyrings.alt's plaintext file backend."""


PlaintextKeyring.__module__ = "keyrings.alt.file"


class WinVaultKeyring(MemoryKeyring):
    """Looks like keyring's Windows Credential Manager backend."""


WinVaultKeyring.__module__ = "keyring.backends.Windows"


class EmptyChainer(chainer.ChainerBackend):
    backends: list = []


class PlaintextThenMemoryChainer(chainer.ChainerBackend):
    backends: list = []


for _cls in (MemoryKeyring, RefusingKeyring, LockedKeyring, PlaintextKeyring, WinVaultKeyring,
             EmptyChainer, PlaintextThenMemoryChainer):
    KeyringBackend._classes.discard(_cls)


def test_store_read_replace_delete():
    backend = MemoryKeyring()
    store = KeyringKeys(backend)
    assert store.get("anthropic") is None

    saved = store.set("anthropic", VALUE)
    assert saved.persisted and saved.where == "keyring"
    assert backend.entries[(SERVICE, "anthropic")] == VALUE
    found = store.get("anthropic")
    assert found.source == "keyring" and found.secret.reveal() == VALUE

    store.set("anthropic", VALUE + "-new")
    assert store.get("anthropic").secret.reveal() == VALUE + "-new"
    assert len(backend.entries) == 1

    assert store.delete("anthropic") is True
    assert store.get("anthropic") is None
    assert store.delete("anthropic") is False


def test_status_names_the_backend_and_probes_once():
    backend = MemoryKeyring()
    store = KeyringKeys(backend)
    status = store.status()
    assert status.usable and status.problem is None
    assert status.backend == MemoryKeyring.name
    store.status()
    store.get("anthropic")
    assert backend.calls.count("get") == 2  # one probe, one read


def test_whitespace_and_newlines_are_stripped():
    backend = MemoryKeyring()
    KeyringKeys(backend).set("tavily", f"  \t{VALUE}\r\n")
    assert backend.entries[(SERVICE, "tavily")] == VALUE


@pytest.mark.parametrize("value", ["", "   \n", "sk-ant one", "sk-ant\nsecond-line", "sk-\x00ant"])
def test_empty_or_broken_values_are_rejected(value):
    backend = MemoryKeyring()
    with pytest.raises(KeyValueError):
        KeyringKeys(backend).set("anthropic", value)
    assert backend.entries == {}


def test_oversize_value_is_rejected_without_showing_it():
    backend = MemoryKeyring()
    store = KeyringKeys(backend)
    store.set("anthropic", "k" * MAX_KEY_BYTES)
    too_long = "k" * (MAX_KEY_BYTES - 5) + "é" * 3  # 2,561 bytes in UTF-8
    assert len(too_long.encode()) == 2561
    with pytest.raises(KeyValueError) as caught:
        store.set("anthropic", too_long)
    assert "2,561 bytes" in str(caught.value) and "2,560" in str(caught.value)
    assert too_long not in str(caught.value)
    assert backend.entries[(SERVICE, "anthropic")] == "k" * MAX_KEY_BYTES


def test_windows_credential_manager_counts_utf16_bytes():
    store = KeyringKeys(WinVaultKeyring())
    assert store.status().backend == "Windows Credential Manager"
    store.set("anthropic", "k" * 1280)
    with pytest.raises(KeyValueError):
        store.set("anthropic", "k" * 1281)


def test_backend_rejection_is_wrapped_without_the_value():
    store = KeyringKeys(RefusingKeyring())
    with pytest.raises(KeyStoreError) as caught:
        store.set("anthropic", VALUE)
    error = caught.value
    assert "did not store the Anthropic API key" in str(error)
    assert "PasswordSetError" in str(error)
    assert error.__cause__ is None and error.__context__ is None
    rendered = "".join(traceback.format_exception(error))
    assert VALUE not in rendered and VALUE not in repr(error) and VALUE not in str(error.args)
    assert store.session.get("anthropic") is None


def test_fail_backend_is_unusable_and_keys_stay_in_the_session():
    store = KeyringKeys(fail.Keyring())
    status = store.status()
    assert not status.usable and "no system keyring" in status.problem
    saved = store.set("anthropic", VALUE)
    assert not saved.persisted and saved.where == "session"
    assert "session only" in saved.message and VALUE not in saved.message
    assert store.get("anthropic") is None
    found = standard_lookup(store, environ={}).get("anthropic")
    assert found.source == "session" and found.secret.reveal() == VALUE
    assert store.delete("anthropic") is True
    assert standard_lookup(store, environ={}).get("anthropic") is None


@pytest.mark.parametrize("backend", [PlaintextKeyring(), null.Keyring(), EmptyChainer()], ids=type)
def test_plaintext_null_and_empty_backends_are_refused(backend):
    store = KeyringKeys(backend)
    assert not store.status().usable
    assert not store.set("anthropic", VALUE).persisted
    assert getattr(backend, "entries", {}) == {}


def test_plaintext_refusal_says_why():
    problem = KeyringKeys(PlaintextKeyring()).status().problem
    assert "keyrings.alt.file.PlaintextKeyring" in problem and "file" in problem


def test_chainer_uses_its_first_acceptable_backend(monkeypatch):
    memory = MemoryKeyring()
    monkeypatch.setattr(PlaintextThenMemoryChainer, "backends", [PlaintextKeyring(), memory])
    store = KeyringKeys(PlaintextThenMemoryChainer())
    assert store.status().usable
    store.set("anthropic", VALUE)
    assert memory.entries == {(SERVICE, "anthropic"): VALUE}


def test_locked_keyring_is_reported_in_words():
    store = KeyringKeys(LockedKeyring())
    status = store.status()
    assert not status.usable and "locked" in status.problem
    assert status.backend == LockedKeyring.name


def test_failure_on_read_marks_the_keyring_unusable():
    backend = MemoryKeyring()
    store = KeyringKeys(backend)
    assert store.status().usable
    backend.get_password = lambda service, username: (_ for _ in ()).throw(OSError("bus gone"))
    assert store.get("anthropic") is None
    status = store.status()
    assert not status.usable and "bus gone" in status.problem
    assert store.set("anthropic", VALUE).where == "session"
    backend.get_password = MemoryKeyring.get_password.__get__(backend)
    assert store.status(refresh=True).usable


def test_loading_errors_are_reported(monkeypatch):
    def broken():
        raise RuntimeError("No module named 'nowhere'")

    monkeypatch.setattr(keyring_store, "default_backend", broken)
    status = KeyringKeys().status()
    assert not status.usable and "could not be loaded" in status.problem


def test_values_never_show_in_repr_or_logs(caplog):
    caplog.set_level(logging.DEBUG)
    store = KeyringKeys(MemoryKeyring())
    saved = store.set("anthropic", VALUE)
    found = store.get("anthropic")
    session_store = KeyringKeys(fail.Keyring())
    session_store.set("anthropic", VALUE)
    texts = [repr(store), str(store), repr(saved), repr(found), str(found.secret), repr(session_store),
             repr(session_store.session), repr(session_store.session.get("anthropic")), caplog.text]
    assert all(VALUE not in text for text in texts)
    assert found.secret.hint == "…9f3a"


def test_secret_values_are_accepted():
    backend = MemoryKeyring()
    KeyringKeys(backend).set("anthropic", Secret(f" {VALUE} "))
    assert backend.entries[(SERVICE, "anthropic")] == VALUE


def test_importing_the_core_does_not_import_keyring():
    code = (
        "import sys\n"
        "from desktop_copilot.core.bootstrap import build_runtime\n"
        "runtime = build_runtime(check_keyring=False)\n"
        "print('keyring' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "False"


def test_build_runtime_warns_when_no_keyring_is_usable(monkeypatch):
    from desktop_copilot.core.bootstrap import build_runtime

    monkeypatch.setattr(keyring_store, "default_backend", fail.Keyring)
    runtime = build_runtime()
    assert any(w.startswith("No usable keyring") and "session only" in w for w in runtime.warnings)
    assert runtime.key_store.set("anthropic", VALUE).where == "session"
    assert runtime.keys.get("anthropic").source == "session"
    assert all(VALUE not in w for w in runtime.warnings)


@pytest.mark.asyncio
async def test_build_runtime_works_with_an_environment_key_and_no_keyring(monkeypatch):
    from desktop_copilot.core.bootstrap import build_runtime

    monkeypatch.setattr(keyring_store, "default_backend", fail.Keyring)
    monkeypatch.setenv("ANTHROPIC_API_KEY", VALUE)
    runtime = build_runtime()
    assert len(runtime.warnings) == 1 and runtime.warnings[0].startswith("No usable keyring")
    assert VALUE not in runtime.warnings[0]
    assert runtime.keys.get("anthropic").source == "environment"
    try:
        assert (await runtime.prepare_run()).provider is not None
    finally:
        await runtime.aclose()


def test_the_keyring_is_asked_before_the_environment(monkeypatch):
    from desktop_copilot.core.bootstrap import build_runtime

    backend = MemoryKeyring()
    monkeypatch.setattr(keyring_store, "default_backend", lambda: backend)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-environment")
    runtime = build_runtime()
    assert runtime.keys.get("anthropic").source == "environment"
    runtime.key_store.set("anthropic", VALUE)
    found = runtime.keys.get("anthropic")
    assert found.source == "keyring" and found.secret.reveal() == VALUE
    assert [f.source for f in runtime.keys.all_found("anthropic")] == ["keyring", "environment"]
