"""settings.json: round trip, damaged files kept aside and reported, atomic saves, and configuration precedence."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone

import pytest
from pydantic import ValidationError

from desktop_copilot.core.bootstrap import apply_settings, build_runtime, effective_config
from desktop_copilot.core.keys import keyring_store
from desktop_copilot.core.config.app_config import DEFAULT_MAX_TOKENS, DEFAULT_MAX_TOOL_ROUNDS, DEFAULT_MODEL
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import ModelsCache, Settings, SettingsError, SettingsFile, models_cache_now
from tests.core.keys.test_keyring_store import MemoryKeyring

BROKEN_NAME = re.compile(r"^settings\.json\.broken-\d{8}-\d{6}(-\d+)?$")


@pytest.fixture
def settings_path(tmp_path):
    return tmp_path / "config" / "settings.json"


@pytest.fixture
def memory_keyring(monkeypatch):
    backend = MemoryKeyring()
    monkeypatch.setattr(keyring_store, "default_backend", lambda: backend)
    return backend


def full_settings() -> Settings:
    return Settings(
        anthropic_base_url="https://proxy.example/anthropic",
        default_model="claude-opus-4-1",
        thinking_enabled=True,
        thinking_budget=2048,
        max_tool_rounds=3,
        max_tokens=50_000,
        disabled_tools={"web_search", "calculator"},
        window_geometry="AdnQywADAAAAAAAA",
        models_cache=ModelsCache(model_ids=["claude-opus-4-1", "claude-sonnet-4-5"],
                                 fetched_at=datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)),
    )


def test_missing_file_gives_defaults(settings_path):
    file = SettingsFile(settings_path)
    settings = file.load()
    assert settings == Settings() and file.problem is None
    assert settings.default_model is None and not settings.thinking_enabled
    assert settings.max_tool_rounds == DEFAULT_MAX_TOOL_ROUNDS and settings.disabled_tools == set()
    assert settings.max_tokens == DEFAULT_MAX_TOKENS == 32_000


def test_round_trip(settings_path):
    file = SettingsFile(settings_path)
    file.save(full_settings())
    loaded = SettingsFile(settings_path).load()
    assert loaded == full_settings()
    data = json.loads(settings_path.read_text(encoding="utf-8"))
    assert data["disabled_tools"] == ["calculator", "web_search"]
    assert data["max_tokens"] == 50_000
    assert data["provider_models"]["anthropic"]["fetched_at"].startswith("2025-01-02T03:04:05")
    assert data["base_urls"] == {"anthropic": "https://proxy.example/anthropic"}
    assert "models_cache" not in data and "anthropic_base_url" not in data


def test_save_leaves_no_temporary_files(settings_path):
    file = SettingsFile(settings_path)
    file.save(Settings())
    file.save(full_settings())
    assert os.listdir(settings_path.parent) == ["settings.json"]


def test_failed_save_keeps_the_old_file_and_cleans_up(settings_path, monkeypatch):
    file = SettingsFile(settings_path)
    file.save(Settings(default_model="old-model"))

    def no_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_replace)
    with pytest.raises(OSError):
        file.save(Settings(default_model="new-model"))
    monkeypatch.undo()
    assert os.listdir(settings_path.parent) == ["settings.json"]
    assert SettingsFile(settings_path).load().default_model == "old-model"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"default_model": "x",', "not valid JSON"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"[1, 2, 3]", "JSON object"),
        (b'{"thinking_budget": 5}', "thinking_budget"),
        (b'{"anthropic_base_url": "ftp://nope"}', "anthropic_base_url"),
    ],
)
def test_damaged_file_is_kept_aside_and_reported(settings_path, content, reason):
    settings_path.parent.mkdir(parents=True)
    settings_path.write_bytes(content)
    file = SettingsFile(settings_path)
    assert file.load() == Settings()
    assert not settings_path.exists()
    assert file.moved_to is not None and BROKEN_NAME.match(file.moved_to.name)
    assert file.moved_to.read_bytes() == content
    assert reason in file.problem and str(file.moved_to) in file.problem
    file.save(Settings(default_model="fresh"))
    assert file.moved_to.read_bytes() == content
    assert SettingsFile(settings_path).load().default_model == "fresh"


def test_two_damaged_files_in_one_second_are_both_kept(settings_path):
    settings_path.parent.mkdir(parents=True)
    kept = set()
    for content in (b"{", b"}"):
        settings_path.write_bytes(content)
        file = SettingsFile(settings_path)
        file.load()
        kept.add(file.moved_to)
    assert len(kept) == 2 and {p.read_bytes() for p in kept} == {b"{", b"}"}


def test_a_file_that_cannot_be_moved_aside_is_never_overwritten(settings_path, monkeypatch):
    settings_path.parent.mkdir(parents=True)
    settings_path.write_bytes(b"{broken")

    def no_replace(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", no_replace)
    file = SettingsFile(settings_path)
    assert file.load() == Settings()
    assert "could not be moved aside" in file.problem
    monkeypatch.undo()
    with pytest.raises(SettingsError):
        file.save(Settings())
    assert settings_path.read_bytes() == b"{broken"


def test_unknown_keys_are_dropped_so_a_pasted_key_is_not_kept(settings_path):
    settings_path.parent.mkdir(parents=True)
    settings_path.write_text('{"default_model": "m", "api_key": "sk-ant-should-not-stay"}', encoding="utf-8")
    file = SettingsFile(settings_path)
    settings = file.load()
    assert file.problem is None and settings.default_model == "m"
    file.save(settings)
    assert "sk-ant" not in settings_path.read_text(encoding="utf-8")


def test_validation_on_assignment_and_blank_strings():
    settings = Settings(default_model="  ", anthropic_base_url="")
    assert settings.default_model is None and settings.base_urls == {}
    settings.disabled_tools = ["a", "a", "b"]
    assert settings.disabled_tools == {"a", "b"}
    with pytest.raises(ValidationError):
        settings.max_tool_rounds = -1


def test_a_file_from_before_anthropic_was_an_ordinary_provider_is_read_into_the_new_places(settings_path):
    settings_path.parent.mkdir(parents=True)
    settings_path.write_text(json.dumps({
        "anthropic_base_url": "https://proxy.example/anthropic/",
        "models_cache": {"model_ids": ["claude-opus-4-1"], "fetched_at": "2025-01-02T03:04:05Z"},
        "base_urls": {"deepseek": "https://deepseek.example"},
        "provider_models": {"deepseek": {"model_ids": ["deepseek-chat"], "fetched_at": "2025-01-02T03:04:05Z"}},
    }), encoding="utf-8")
    file = SettingsFile(settings_path)
    settings = file.load()
    assert file.problem is None
    assert settings.base_urls == {"anthropic": "https://proxy.example/anthropic", "deepseek": "https://deepseek.example"}
    assert settings.provider_models["anthropic"].model_ids == ["claude-opus-4-1"]
    assert settings.provider_models["deepseek"].model_ids == ["deepseek-chat"]
    assert effective_config(settings, environ={}).anthropic_base_url == "https://proxy.example/anthropic"
    file.save(settings)  # saved in the new places only
    data = json.loads(settings_path.read_text(encoding="utf-8"))
    assert "anthropic_base_url" not in data and "models_cache" not in data
    assert data["provider_models"]["anthropic"]["model_ids"] == ["claude-opus-4-1"]


def test_a_value_already_in_the_new_place_wins_over_the_old_one():
    settings = Settings.model_validate({
        "anthropic_base_url": "https://old.example", "base_urls": {"anthropic": "https://new.example"},
        "models_cache": {"model_ids": ["old"], "fetched_at": "2025-01-02T03:04:05Z"},
        "provider_models": {"anthropic": {"model_ids": ["new"], "fetched_at": "2025-01-02T03:04:05Z"}},
    })
    assert settings.base_urls == {"anthropic": "https://new.example"}
    assert settings.provider_models["anthropic"].model_ids == ["new"]


def test_models_cache_now():
    cache = models_cache_now(["claude-a"])
    assert cache.model_ids == ["claude-a"] and cache.fetched_at.tzinfo is not None


def test_config_overrides_switch_thinking_off():
    assert Settings(thinking_enabled=False, thinking_budget=9000).config_overrides()["thinking_budget"] is None
    assert effective_config(Settings(thinking_enabled=True, thinking_budget=9000), environ={}).thinking_budget == 9000
    assert effective_config(Settings(), environ={}).thinking_budget is None


def test_precedence_defaults_settings_environment_command_line():
    settings = Settings(default_model="from-settings", anthropic_base_url="https://settings.example", max_tool_rounds=4)
    assert effective_config(Settings(), environ={}).model == DEFAULT_MODEL
    config = effective_config(settings, environ={})
    assert (config.model, config.anthropic_base_url, config.max_tool_rounds) == (
        "from-settings", "https://settings.example", 4)
    env = {"DESKTOP_COPILOT_MODEL": "from-env", "ANTHROPIC_BASE_URL": "https://env.example"}
    config = effective_config(settings, environ=env)
    assert (config.model, config.anthropic_base_url) == ("from-env", "https://env.example")
    config = effective_config(settings, environ=env, model="from-cli", max_tool_rounds=None)
    assert (config.model, config.max_tool_rounds) == ("from-cli", 4)


def test_build_runtime_applies_the_settings_file(monkeypatch, memory_keyring):
    paths = AppPaths.resolve().ensure()
    SettingsFile(paths.settings_file).save(full_settings())
    runtime = build_runtime()
    assert runtime.config.model == "claude-opus-4-1"
    assert runtime.config.thinking_budget == 2048 and runtime.config.max_tool_rounds == 3
    assert runtime.switched_off_tools == {"web_search", "calculator"}
    assert runtime.settings == full_settings() and runtime.settings_file.path == paths.settings_file
    assert runtime.warnings == []

    monkeypatch.setenv("DESKTOP_COPILOT_MODEL", "env-model")
    assert build_runtime().config.model == "env-model"
    runtime = build_runtime(model="cli-model", thinking_budget=5000)
    assert (runtime.config.model, runtime.config.thinking_budget) == ("cli-model", 5000)


def test_build_runtime_reports_a_damaged_settings_file(memory_keyring):
    paths = AppPaths.resolve().ensure()
    paths.settings_file.write_text("{not json", encoding="utf-8")
    runtime = build_runtime()
    assert len(runtime.warnings) == 1 and "kept as" in runtime.warnings[0]
    assert runtime.settings == Settings()
    assert any(BROKEN_NAME.match(p.name) for p in paths.config_dir.iterdir())


def test_apply_settings_saves_and_takes_effect(memory_keyring):
    runtime = build_runtime()
    edited = runtime.settings.model_copy(deep=True)
    edited.default_model = "edited-model"
    edited.disabled_tools = {"web_search"}
    apply_settings(runtime, edited)
    assert runtime.config.model == "edited-model" and runtime.switched_off_tools == {"web_search"}
    assert SettingsFile(runtime.paths.settings_file).load().default_model == "edited-model"


def test_output_limit_precedence_settings_environment_command_line():
    settings = Settings(max_tokens=40_000)
    assert effective_config(Settings(), environ={}).max_tokens == 32_000
    assert effective_config(settings, environ={}).max_tokens == 40_000
    env = {"DESKTOP_COPILOT_MAX_TOKENS": " 50000 "}
    assert effective_config(settings, environ=env).max_tokens == 50_000
    assert effective_config(settings, environ=env, max_tokens=60_000).max_tokens == 60_000
    assert effective_config(settings, environ=env, max_tokens=None).max_tokens == 50_000


@pytest.mark.parametrize("raw", ["lots", "0", "-5", "1.5", "32k"])
def test_an_unusable_output_limit_in_the_environment_is_ignored(raw):
    assert effective_config(Settings(max_tokens=40_000), environ={"DESKTOP_COPILOT_MAX_TOKENS": raw}).max_tokens == 40_000


def test_the_output_limit_must_be_positive():
    with pytest.raises(ValidationError):
        Settings(max_tokens=0)
    assert Settings.model_validate({"max_tokens": 64_000}).config_overrides()["max_tokens"] == 64_000
