"""The record of which keys the keyring holds (core/keys/saved_names.py): kept true by the app's reads and writes of
the keyring and by a listing; a lookup whose every name it knows as not held goes without the keyring; a name it does
not know, a missing or unreadable record, opens the keyring as before."""

from __future__ import annotations

import json

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.keys.keyring_store import SERVICE, KeyringKeys, standard_lookup
from desktop_copilot.core.keys.saved_names import SavedNames
from desktop_copilot.core.runtime import Runtime
from tests.support.memory_keyring import use_memory_keyring


def test_reads_and_writes_of_the_keyring_keep_the_record(tmp_path, monkeypatch):
    backend = use_memory_keyring(monkeypatch)
    backend.set_password(SERVICE, "tavily", "tvly-kept-elsewhere")
    names = SavedNames(tmp_path / "key_names.json")
    store = KeyringKeys(names=names)
    assert names.read() is None and not names.none_held(["anthropic"])
    assert store.get("anthropic") is None
    assert names.none_held(["anthropic"]) and not names.none_held(["anthropic", "tavily"])  # tavily: not known yet
    assert store.get("tavily") is not None
    assert names.read() == ({"tavily"}, {"tavily", "anthropic"}) and not names.none_held(["anthropic", "tavily"])
    store.set("anthropic", "sk-ant-saved-in-the-keyring")
    assert not names.none_held(["anthropic"])
    store.delete("anthropic")
    store.delete("tavily")
    assert names.none_held(["anthropic", "tavily"])
    assert "sk-ant" not in (tmp_path / "key_names.json").read_text() and "tvly" not in (tmp_path / "key_names.json").read_text()


def test_a_listing_learns_only_the_names_it_asked(tmp_path):
    names = SavedNames(tmp_path / "key_names.json")
    names.note("tavily", True)
    names.learn({"anthropic"}, {"anthropic", "openai"})
    assert names.read() == ({"tavily", "anthropic"}, {"tavily", "anthropic", "openai"})
    names.learn(set(), {"anthropic", "openai"})
    assert names.none_held(["openai", "anthropic"]) and not names.none_held(["tavily"])


def test_an_unreadable_record_is_no_record(tmp_path):
    path = tmp_path / "key_names.json"
    path.write_text("{not json")
    assert SavedNames(path).read() is None and not SavedNames(path).none_held([])
    path.write_text(json.dumps({"in_keyring": "tavily"}))
    assert SavedNames(path).read() is None


def test_a_lookup_the_record_answers_goes_without_the_keyring_and_one_it_cannot_opens_it(tmp_path, monkeypatch):
    backend = use_memory_keyring(monkeypatch)
    backend.set_password(SERVICE, "tavily", "tvly-in-the-keyring")
    paths = AppPaths.resolve().ensure()
    names = SavedNames(paths.key_names_file)
    store = KeyringKeys(names=names)
    runtime = Runtime(paths, AppConfig.from_environment(), standard_lookup(store))
    runtime.key_store = store
    names.learn({"tavily"}, {"anthropic", "openai", "tavily"})
    assert store not in runtime.lookup_for(["anthropic", "openai"]).sources
    assert store in runtime.lookup_for(["anthropic", "tavily"]).sources
    assert store in runtime.lookup_for(["anthropic", "gemini"]).sources  # gemini: not known either way
    assert not store.loaded
