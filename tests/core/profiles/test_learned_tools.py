"""What a server showed of a model's tools (it refused native ones) outlives the process: kept in settings.json apart
from what the model list reports, so a refresh of the list keeps it; saved over the file as it is now, so another
process's newer settings stay; and the profile says it was learned, not reported."""

from __future__ import annotations

from datetime import UTC, datetime

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import SettingsFile
from desktop_copilot.core.profiles.profile import ModelFacts
from desktop_copilot.core.profiles.stored import with_reported
from desktop_copilot.core.runtime import Runtime

MODEL = "qwen/qwen3-8b"
LISTED = ModelFacts(MODEL, context_window=32_768, reported_by="LM Studio")
MONDAY = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
TUESDAY = datetime(2026, 11, 3, 9, 30, tzinfo=UTC)


def runtime_over(file: SettingsFile) -> Runtime:
    """A runtime as bootstrap builds one: its settings read from `file`, saved there."""
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig())
    runtime.settings_file, runtime.settings = file, file.load()
    return runtime


def listed_again(file: SettingsFile, when: datetime) -> None:
    """LM Studio's model list asked again (the picker, `desktop-copilot models`): what it reports replaces its entries."""
    settings = file.load()
    settings.model_facts = with_reported(settings.model_facts, "lmstudio", [LISTED], when)
    file.save(settings)


def test_a_refresh_of_the_model_list_keeps_what_the_server_showed(tmp_path):
    file = SettingsFile(tmp_path / "settings.json")
    listed_again(file, MONDAY)
    runtime_over(file).remember_tool_protocol("lmstudio", MODEL, "text")
    listed_again(file, TUESDAY)  # the list says nothing of tools
    assert runtime_over(file).profile("lmstudio", MODEL).tools.value == "text"
    assert runtime_over(file).profile("lmstudio", MODEL).context_window.value == 32_768


def test_learning_saves_over_the_file_as_it_is_now(tmp_path):
    file = SettingsFile(tmp_path / "settings.json")
    runtime = runtime_over(file)
    elsewhere = file.load()  # another process (the window's Settings, an `ask`) saves after this one read the file
    elsewhere.keep_turns = 7
    file.save(elsewhere)
    runtime.remember_tool_protocol("lmstudio", MODEL, "text")
    saved = file.load()
    assert saved.keep_turns == 7
    assert runtime_over(file).profile("lmstudio", MODEL).tools.value == "text"
    assert runtime.profile("lmstudio", MODEL).tools.value == "text"  # and this process knows it at once


def test_the_profile_says_the_protocol_was_learned_from_the_server(tmp_path):
    file = SettingsFile(tmp_path / "settings.json")
    listed_again(file, MONDAY)
    runtime = runtime_over(file)
    runtime.remember_tool_protocol("lmstudio", MODEL, "text")
    figure = runtime.profile("lmstudio", MODEL).tools
    assert (figure.value, figure.source, figure.note) == ("text", "provider", "learned: the server refused native tools")
    assert runtime.profile("lmstudio", MODEL).context_window.note == "reported by LM Studio"
