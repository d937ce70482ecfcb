"""Model facts in settings.json: the user's overrides and the providers' reports round-trip, a bad entry is dropped
(not the file), and a provider's new list replaces its old entries only."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from desktop_copilot.core.config.settings import Settings, SettingsFile
from desktop_copilot.core.profiles.profile import ModelFacts
from desktop_copilot.core.profiles.stored import (
    ModelOverride,
    ReportedFacts,
    facts_key,
    override_for,
    reported_for,
    split_facts_key,
    with_reported,
)

MONDAY = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
TUESDAY = datetime(2026, 11, 3, 9, 30, tzinfo=UTC)


def test_keys_are_provider_slash_model_and_models_may_hold_slashes():
    assert facts_key("openrouter", "anthropic/claude-sonnet-4.5") == "openrouter/anthropic/claude-sonnet-4.5"
    assert split_facts_key("openrouter/anthropic/claude-sonnet-4.5") == ("openrouter", "anthropic/claude-sonnet-4.5")
    assert split_facts_key("ollama/qwen3:8b") == ("ollama", "qwen3:8b")
    assert split_facts_key("no-slash") is None and split_facts_key("/model") is None and split_facts_key("p/") is None


def test_settings_round_trip_overrides_and_reports(tmp_path):
    settings = Settings(
        model_overrides={"ollama/qwen3:8b": ModelOverride(context_window=32_768, tools="text")},
        model_facts={"openrouter/openai/o4-mini": ReportedFacts.of(
            ModelFacts("openai/o4-mini", context_window=200_000, sampling=False, reported_by="OpenRouter"), MONDAY)},
    )
    file = SettingsFile(tmp_path / "settings.json")
    file.save(settings)
    loaded = file.load()
    assert file.problem is None and loaded == settings
    assert override_for(loaded.model_overrides, "ollama", "qwen3:8b") == ModelFacts("qwen3:8b", context_window=32_768,
                                                                                    tools="text")
    assert reported_for(loaded.model_facts, "openrouter") == [
        ModelFacts("openai/o4-mini", context_window=200_000, sampling=False, reported_by="OpenRouter")]
    written = json.loads((tmp_path / "settings.json").read_text(encoding="utf-8"))
    assert written["model_overrides"] == {"ollama/qwen3:8b": {"context_window": 32_768, "tools": "text"}}  # no nulls
    assert written["model_facts"]["openrouter/openai/o4-mini"]["fetched_at"].startswith("2026-11-02T09:30:00")


def test_a_bad_entry_is_dropped_not_the_file(tmp_path, caplog):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({
        "theme": "dark",
        "model_overrides": {
            "ollama/qwen3:8b": {"context_window": 16_384},
            "ollama/negative": {"context_window": -5},
            "ollama/odd-thinking": {"thinking": "loudly"},
            "no-provider": {"context_window": 4096},
            "lmstudio/not-an-object": 4096,
        },
        "model_facts": {
            "vllm/Qwen/Qwen3-8B": {"context_window": 32_768, "reported_by": "vLLM", "fetched_at": "2026-11-02T09:30:00Z"},
            "vllm/no-date": {"context_window": 32_768},
            "vllm/bad-date": {"context_window": 1, "fetched_at": "yesterday"},
        },
    }), encoding="utf-8")
    file = SettingsFile(path)
    with caplog.at_level(logging.WARNING):
        settings = file.load()
    assert file.problem is None and settings.theme == "dark"
    assert list(settings.model_overrides) == ["ollama/qwen3:8b"]
    assert list(settings.model_facts) == ["vllm/Qwen/Qwen3-8B"]
    assert settings.model_facts["vllm/Qwen/Qwen3-8B"].fetched_at == MONDAY
    warned = caplog.text
    for key in ("ollama/negative", "ollama/odd-thinking", "no-provider", "lmstudio/not-an-object", "vllm/no-date"):
        assert key in warned


def test_a_section_that_is_not_an_object_is_emptied(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"model_overrides": ["qwen3"], "model_facts": "none", "sidebar_visible": False}))
    file = SettingsFile(path)
    settings = file.load()
    assert file.problem is None and not settings.sidebar_visible
    assert settings.model_overrides == {} and settings.model_facts == {}


def test_unknown_keys_inside_an_entry_are_ignored():
    settings = Settings.model_validate({"model_overrides": {"a/b": {"context_window": 100, "colour": "red"}}})
    assert settings.model_overrides["a/b"] == ModelOverride(context_window=100)


def test_a_new_list_replaces_that_providers_entries_only():
    cache = with_reported({}, "ollama", [ModelFacts("qwen3:8b", context_window=40_960, reported_by="Ollama"),
                                         ModelFacts("llama3.2", reported_by="Ollama")], MONDAY)
    cache = with_reported(cache, "openrouter", [ModelFacts("openai/gpt-5.5", context_window=1_050_000)], MONDAY)
    cache = with_reported(cache, "ollama", [ModelFacts("gemma3:4b", images=True, reported_by="Ollama")], TUESDAY)
    assert list(cache) == ["openrouter/openai/gpt-5.5", "ollama/gemma3:4b"]  # llama3.2 and qwen3 are gone
    assert cache["ollama/gemma3:4b"].fetched_at == TUESDAY
    assert cache["openrouter/openai/gpt-5.5"].fetched_at == MONDAY
    assert reported_for(cache, "ollama") == [ModelFacts("gemma3:4b", images=True, reported_by="Ollama")]
    assert reported_for(cache, "olla") == []  # a prefix of another provider's id is not that provider


def test_a_provider_listing_nothing_forgets_its_models():
    cache = with_reported({}, "vllm", [ModelFacts("m")], MONDAY)
    assert with_reported(cache, "vllm", [], TUESDAY) == {}


def test_no_override_is_none():
    assert override_for({}, "ollama", "qwen3:8b") is None
    assert override_for({"ollama/qwen3:8b": ModelOverride()}, "lmstudio", "qwen3:8b") is None
