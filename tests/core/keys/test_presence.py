"""Which keys are set, learned in a child process (`keys list --json`) so the window does not open the keyring before a
key is first read; used until the keyring opens in this process, and never holding a value."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.keys.keyring_store import KeyringKeys, standard_lookup
from desktop_copilot.core.keys import presence
from desktop_copilot.core.keys.presence import child_command, parse_presence, presence_in_child
from desktop_copilot.core.runtime import Runtime
from tests.support.memory_keyring import MemoryKeyring

VALUE = "sk-ant-presence-test-0123456789abcdef"


@pytest.fixture
def env_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", VALUE)


def machine_runtime() -> tuple[Runtime, KeyringKeys]:
    """A runtime on the machine's own keyring, as the app builds it (its key store not opened yet)."""
    store = KeyringKeys()
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(), standard_lookup(store))
    runtime.key_store = store
    return runtime, store


def test_the_child_says_which_keys_are_set_and_never_a_value(env_key):
    done = subprocess.run(child_command(["anthropic", "my-proxy"]), capture_output=True, text=True, timeout=60,
                          env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert VALUE not in done.stdout + done.stderr and VALUE[-4:] not in done.stdout
    presence = parse_presence(done.stdout)
    assert "anthropic" in presence.present and "my-proxy" in presence.asked and "my-proxy" not in presence.present
    assert presence.status.usable == KeyringKeys().status().usable  # the keyring as this process sees it


def test_an_answer_that_is_not_the_json_asked_for_counts_as_none():
    assert parse_presence("") is None and parse_presence('{"keys": {}}') is None and parse_presence("[1]") is None


@pytest.mark.asyncio
async def test_the_runtime_uses_the_childs_answer_until_the_keyring_opens_here(env_key):
    runtime, store = machine_runtime()
    presence = await runtime.learn_key_presence()
    assert presence is not None and not store.loaded  # nothing of the keyring opened in this process
    assert await runtime.keys_present(["anthropic", "openai"]) == {"anthropic": True, "openai": False}
    assert not store.loaded
    store.session.set("openai", "sk-session-key-0123456789")  # set this session without a keyring: counted
    assert (await runtime.keys_present(["openai"]))["openai"]
    assert (await runtime.keys_present(["not-asked"])) == {"not-asked": False}  # a name the child was not asked: read here
    assert store.loaded
    assert await runtime.learn_key_presence() is None  # open now: read here from now on


@pytest.mark.asyncio
async def test_a_keyring_given_to_the_store_is_never_asked_of_a_child():
    store = KeyringKeys(MemoryKeyring())
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(), standard_lookup(store, {}))
    runtime.key_store = store
    assert await runtime.learn_key_presence() is None
    assert await runtime.keys_present(["anthropic"]) == {"anthropic": False}


def test_presence_in_child_is_none_when_the_child_fails(monkeypatch):
    from desktop_copilot.core.keys import presence

    monkeypatch.setattr(presence, "child_command", lambda names: ["/nonexistent/desktop-copilot"])
    assert presence_in_child(["anthropic"]) is None


@pytest.mark.asyncio
async def test_a_key_found_only_in_the_environment_is_read_without_opening_the_keyring(env_key):
    runtime, store = machine_runtime()
    presence = await runtime.learn_key_presence()
    assert presence is not None and presence.from_environment == {"anthropic"}
    found = await runtime.find_keys(["anthropic"])
    assert found["anthropic"].secret.reveal() == VALUE and found["anthropic"].source == "environment"
    assert not store.loaded  # keyring, secretstorage and cryptography stay out of this process
    store.session.set("anthropic", "sk-ant-session-key-0123456789")  # a key set this session still comes first
    assert (await runtime.find_keys(["anthropic"]))["anthropic"].source == "session"
    assert "openai" not in await runtime.find_keys(["openai", "anthropic"])  # the child found it nowhere: not asked here
    assert not store.loaded
    assert await runtime.find_keys(["not-asked"]) == {}  # a name the child was not asked about: the keyring is read here
    assert store.loaded


def test_the_childs_answer_says_which_keys_come_from_the_environment():
    text = ('{"keyring": {"usable": true, "backend": "Secret Service", "problem": null}, "keys": {'
            '"anthropic": {"set": true, "from": "environment"}, "openai": {"set": true, "from": "keyring"}, '
            '"gemini": {"set": false, "from": null}}}')
    presence = parse_presence(text)
    assert presence.present == {"anthropic", "openai"} and presence.from_environment == {"anthropic"}
    assert presence.in_keyring == {"openai"}


def test_at_exit_a_check_about_to_finish_is_let_finish_and_one_still_waiting_is_killed(monkeypatch):
    """Killed in the middle of a keyring read, the child could bring gnome-keyring down; one waiting on an unlock prompt
    past the grace goes with the app."""
    monkeypatch.setattr(presence, "EXIT_GRACE_S", 0.5)
    finishing = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.1)"])
    waiting = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    monkeypatch.setattr(presence, "_running", {finishing, waiting})
    try:
        presence._stop_children()
        assert finishing.wait(5) == 0
        assert waiting.wait(5) == -9
    finally:
        waiting.kill()
