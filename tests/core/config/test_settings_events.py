"""Settings that say what changed: the runtime's settings replaced as a whole tell each listener of the fields it
follows which of them differ, once the new settings are in effect."""

from __future__ import annotations

import pytest

from desktop_copilot.core.bootstrap import apply_settings
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.config.settings_events import SettingsEvents, changed_fields
from desktop_copilot.core.runtime import Runtime


def test_only_the_fields_that_differ_are_named():
    before = Settings(theme="dark", sidebar_visible=True)
    assert changed_fields(before, before.model_copy(update={"theme": "light", "sidebar_visible": True})) == {"theme"}
    assert changed_fields(before, before.model_copy()) == frozenset()
    assert "theme" in changed_fields(None, before) and "default_provider" in changed_fields(None, before)


def test_listeners_hear_the_fields_they_follow_and_a_failing_one_does_not_stop_the_others(caplog):
    events = SettingsEvents()
    heard: list[tuple[str, frozenset[str]]] = []
    events.connect(lambda change: heard.append(("any", change.fields)))
    events.connect(lambda change: 1 / 0, fields=["theme"])
    stop = events.connect(lambda change: heard.append(("prices", change.fields)), fields=["model_prices", "default_provider"])
    base = Settings()
    events.emit(base, base.model_copy(update={"theme": "dark"}))
    assert heard == [("any", {"theme"})] and "a settings listener failed" in caplog.text
    heard.clear()
    events.emit(base, base.model_copy(update={"default_provider": "gemini"}))
    assert heard == [("any", {"default_provider"}), ("prices", {"default_provider"})]
    heard.clear()
    stop()
    assert events.emit(base, base.model_copy(update={"default_provider": "groq"})).fields == {"default_provider"}
    assert heard == [("any", {"default_provider"})]
    assert events.emit(base, base.model_copy()) is None and len(heard) == 1  # nothing differs: nobody is called


def test_a_field_that_does_not_exist_is_refused_when_connecting():
    with pytest.raises(ValueError, match="no field"):
        SettingsEvents().connect(print, fields=["defualt_provider"])


def test_applied_settings_are_heard_once_they_are_in_effect(tmp_path, monkeypatch):
    monkeypatch.setenv("DESKTOP_COPILOT_HOME", str(tmp_path))
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig())
    runtime.settings = Settings()
    seen = []
    runtime.settings_events.connect(lambda change: seen.append((change.fields, runtime.config.provider, runtime.settings.default_provider)),
                                    fields=["default_provider"])
    apply_settings(runtime, Settings(default_provider="deepseek"))
    assert seen == [({"default_provider"}, "deepseek", "deepseek")]  # the config already follows when the listener runs
    apply_settings(runtime, Settings(default_provider="deepseek", theme="dark"))
    assert len(seen) == 1  # the theme alone: not a field this listener follows
