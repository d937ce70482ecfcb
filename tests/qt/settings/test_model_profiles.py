"""Settings ▸ Model profiles with real widgets: each model's figures with their sources (the shipped table, a guess,
what a loopback Ollama reported, the user's own), the editor's figures saved on Apply and used by `Runtime.profile`,
Reset, a refresh that fails said in words, the conversation's model chosen, and hundreds of models without a widget each."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktop_copilot.core.config.settings import Settings, SettingsFile, models_cache_now
from desktop_copilot.core.profiles.known_models import TAKEN
from desktop_copilot.core.profiles.profile import Figure
from desktop_copilot.core.profiles.stored import ModelOverride
from desktop_copilot.qt.common.theme import DARK_THEME, DEFAULT_THEME
from desktop_copilot.qt.common.theme_switch import current_theme, install_theme_switch, theme_switch
from desktop_copilot.qt.settings.dialog import SettingsDialog
from desktop_copilot.qt.settings.model_profiles import ModelProfilesPage, profiles_style_sheet
from desktop_copilot.qt.settings.profile_table import COLUMNS, SOURCE_ROLE
from tests.support.loopback import json_response
from tests.support.memory_keyring import use_memory_keyring
from tests.support.ollama_support import ollama_error
from tests.support.settings_support import open_dialog, wait_idle

QWEN_SHOW = {
    "details": {"family": "qwen3", "parameter_size": "8.2B"},
    "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40_960},
    "capabilities": ["completion", "tools", "thinking"],
}
GEMMA_SHOW = {
    "details": {"family": "gemma3", "parameter_size": "4.3B"},
    "model_info": {"general.architecture": "gemma3", "gemma3.context_length": 131_072},
    "capabilities": ["completion", "vision"],
}


def settings_path() -> Path:
    return Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config" / "settings.json"


def seed(**fields) -> None:
    SettingsFile(settings_path()).save(Settings(**fields))


@pytest.fixture
def runtime(monkeypatch):
    """Makes the runtime as the app does, from settings.json as it is then, with an in-memory keyring."""
    from desktop_copilot.core.bootstrap import build_runtime

    use_memory_keyring(monkeypatch)
    return lambda: build_runtime(check_keyring=False)


@pytest.fixture
def make_dialog(qtbot, qasync_loop, runtime):
    """The settings dialog on its Model profiles page, made after settings.json was seeded (no window: no
    conversation model)."""
    made: list[SettingsDialog] = []

    def make() -> SettingsDialog:
        dialog = SettingsDialog(runtime())
        qtbot.addWidget(dialog)
        dialog.resize(840, 900)
        dialog.show()
        dialog.show_page("profiles")
        qtbot.waitExposed(dialog)
        made.append(dialog)
        return dialog

    yield make
    for dialog in made:
        dialog.tasks.cancel_all()


def serve_ollama(loopback) -> None:
    shows = {"qwen3:8b": QWEN_SHOW, "gemma3:4b": GEMMA_SHOW}
    loopback.set_handler("/api/tags", lambda _: json_response({"models": [
        {"name": "qwen3:8b", "model": "qwen3:8b"}, {"name": "gemma3:4b", "model": "gemma3:4b"}]}))

    def show(request):
        name = request.json().get("model") or request.json().get("name")
        return json_response(shows[name]) if name in shows else ollama_error(404, f"model '{name}' not found")

    loopback.set_handler("/api/show", show)


def cells(page: ModelProfilesPage, model: str) -> list[tuple[str, str | None]]:
    """(text, source) of each cell of `model`'s row, as the table's model gives them."""
    table = page.table_model
    row = table.row_of(model)
    assert row >= 0, f"{model} is not listed"
    return [(table.index(row, column).data(), table.index(row, column).data(SOURCE_ROLE)) for column in range(len(COLUMNS))]


def tooltip(page: ModelProfilesPage, model: str, column: str) -> str:
    return page.table_model.index(page.table_model.row_of(model), COLUMNS.index(column)).data(Qt.ItemDataRole.ToolTipRole)


def choose(qtbot, page: ModelProfilesPage, provider_id: str, model: str) -> None:
    page.provider_box.setCurrentIndex(page.provider_box.findData(provider_id))
    page.choose_row(page.table_model.row_of(model))
    assert page.chosen_model() == model and page.editor.title.text() == model


def saved() -> dict:
    return json.loads(settings_path().read_text(encoding="utf-8"))


def apply(qtbot, dialog: SettingsDialog) -> None:
    dialog.status.setText("")
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.status.text() == "Saved.", timeout=5000)


def closed_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def test_a_known_model_shows_the_tables_figures_and_an_unknown_one_guesses(qtbot, make_dialog):
    seed(provider_models={"ollama": models_cache_now(["qwen3:8b", "my-finetune:latest"])})
    page = make_dialog().profiles_page
    page.provider_box.setCurrentIndex(page.provider_box.findData("ollama"))
    assert [page.table_model.profile_at(row).model for row in range(page.table_model.rowCount())] == ["qwen3:8b",
                                                                                                      "my-finetune:latest"]
    assert cells(page, "qwen3:8b") == [("qwen3:8b", None), ("40960", "table"), ("4096", "default"),
                                       ("Reasoning field", "table"), ("Native", "table"), ("No", "table")]
    assert tooltip(page, "qwen3:8b", "context_window").startswith(f"<qt>taken {TAKEN} from Qwen&#x27;s model cards")
    assert cells(page, "my-finetune:latest")[1:] == [("4096", "default"), ("4096", "default"), ("None", "default"),
                                                     ("Native", "default"), ("No", "default")]
    assert tooltip(page, "my-finetune:latest", "tools") == "<qt>a guess</qt>"
    header = [page.table_model.headerData(c, Qt.Orientation.Horizontal) for c in range(len(COLUMNS))]
    assert header == ["Model", "Context", "Output", "Thinking", "Tools", "Images"]
    assert any(label.text().startswith("u set by you · p reported by the provider · t from the shipped table · ? a guess. "
                                       f"The table was taken {TAKEN}") for label in page.findChildren(QLabel))
    # the editor says what Automatic gives
    assert page.chosen_model() == "qwen3:8b"
    assert page.editor.counts["context_window"].placeholderText() == "Automatic: 40960"
    assert page.editor.choices["tools"].itemText(0) == "Automatic (Native tool calls)"
    assert page.editor.choices["thinking"].itemText(0) == "Automatic (A separate reasoning field)"
    # the keyboard: the filter, Enter into the table, Down to the next model, whose figures the editor shows
    page.filter_edit.setFocus()
    qtbot.keyClicks(page.filter_edit, "FINE")
    assert page.proxy.rowCount() == 1
    qtbot.keyClick(page.filter_edit, Qt.Key.Key_Return)
    assert page.window().focusWidget() is page.table
    page.filter_edit.clear()
    page.table.setCurrentIndex(page.proxy.index(0, 0))
    qtbot.keyClick(page.table, Qt.Key.Key_Down)
    assert page.chosen_model() == "my-finetune:latest" and page.editor.title.text() == "my-finetune:latest"
    assert not page.grab().isNull()  # the source marks paint


def test_a_note_with_markup_in_it_is_shown_as_text(qtbot, make_dialog):
    seed(provider_models={"lmstudio": models_cache_now(["qwen3-8b"])})
    page = make_dialog().profiles_page
    page.provider_box.setCurrentIndex(page.provider_box.findData("lmstudio"))
    assert cells(page, "qwen3-8b")[3] == ("<think> tags", "table")
    assert "&lt;think&gt; stays in the text" in tooltip(page, "qwen3-8b", "thinking")


def test_refresh_against_ollama_fills_provider_figures_and_apply_caches_them(qtbot, make_dialog, loopback, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", loopback.url)
    serve_ollama(loopback)
    dialog = make_dialog()
    page = dialog.profiles_page
    page.provider_box.setCurrentIndex(page.provider_box.findData("ollama"))
    assert page.table_model.rowCount() == 1  # nothing cached yet: Ollama's default model
    qtbot.mouseClick(page.refresh_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, page)
    assert page.state.text() == "2 models reported by Ollama."
    assert cells(page, "qwen3:8b") == [("qwen3:8b", None), ("40960", "provider"), ("4096", "default"),
                                       ("Reasoning field", "provider"), ("Native", "provider"), ("No", "provider")]
    assert cells(page, "gemma3:4b")[1] == ("131072", "provider") and cells(page, "gemma3:4b")[5] == ("Yes", "provider")
    assert tooltip(page, "gemma3:4b", "images") == "<qt>reported by Ollama</qt>"
    assert page.table_model.row_of("llama3.2") == -1
    assert not settings_path().exists()  # pending until Apply
    apply(qtbot, dialog)
    facts = saved()["model_facts"]
    assert set(facts) == {"ollama/qwen3:8b", "ollama/gemma3:4b"}
    assert facts["ollama/qwen3:8b"]["context_window"] == 40_960 and facts["ollama/qwen3:8b"]["reported_by"] == "Ollama"
    assert dialog.runtime.profile("ollama", "gemma3:4b").images == Figure(True, "provider", "reported by Ollama")


def test_the_users_figures_are_saved_on_apply_used_by_the_runtime_and_reset(qtbot, make_dialog):
    seed(provider_models={"ollama": models_cache_now(["qwen3:8b"])},
         model_overrides={"openai/gpt-4o": ModelOverride(images=False)})
    dialog = make_dialog()
    runtime, page = dialog.runtime, dialog.profiles_page
    choose(qtbot, page, "ollama", "qwen3:8b")
    editor = page.editor
    tools = editor.choices["tools"]
    tools.setFocus()
    qtbot.keyClick(tools, Qt.Key.Key_End)  # the keyboard picks the last choice: tools described as text
    assert tools.currentData() == "text" and tools.currentText() == "Tools described as text"
    qtbot.keyClicks(editor.counts["context_window"], "32,768")
    assert cells(page, "qwen3:8b")[1] == ("32768", "user") and cells(page, "qwen3:8b")[4] == ("As text", "user")
    assert tooltip(page, "qwen3:8b", "tools") == "<qt>set by you</qt>"
    assert cells(page, "qwen3:8b")[3] == ("Reasoning field", "table")  # the others stay automatic
    assert runtime.profile("ollama", "qwen3:8b").tools.source == "table"  # not before Apply

    apply(qtbot, dialog)
    assert saved()["model_overrides"] == {"openai/gpt-4o": {"images": False},
                                          "ollama/qwen3:8b": {"context_window": 32_768, "tools": "text"}}
    assert runtime.profile("ollama", "qwen3:8b").tools == Figure("text", "user", "set in Settings")
    assert runtime.profile("ollama", "qwen3:8b").context_window.value == 32_768
    assert runtime.profile("ollama", "qwen3:8b").context_window.source == "user"

    choose(qtbot, page, "openai", "gpt-4o")  # another provider's model, then back: the figures set are still there
    assert editor.choices["images"].currentData() is False and editor.counts["context_window"].text() == ""
    choose(qtbot, page, "ollama", "qwen3:8b")
    assert editor.counts["context_window"].text() == "32768" and tools.currentData() == "text"
    qtbot.mouseClick(editor.reset_button, Qt.MouseButton.LeftButton)
    assert editor.counts["context_window"].text() == "" and tools.currentIndex() == 0
    assert cells(page, "qwen3:8b")[1] == ("40960", "table") and cells(page, "qwen3:8b")[4] == ("Native", "table")
    apply(qtbot, dialog)
    assert saved()["model_overrides"] == {"openai/gpt-4o": {"images": False}}  # another model's figures stay
    assert runtime.profile("ollama", "qwen3:8b").tools.source == "table"


def test_a_token_count_that_cannot_be_one_is_said_and_not_kept(qtbot, make_dialog):
    page = make_dialog().profiles_page
    choose(qtbot, page, "ollama", "llama3.2")
    field = page.editor.counts["output_limit"]
    qtbot.keyClicks(field, "0")
    assert page.editor.problem.isVisible() and "whole number" in page.editor.problem.text()
    assert cells(page, "llama3.2")[2][1] != "user" and page.edits(Settings())["model_overrides"] == {}
    qtbot.keyClicks(field, "x8192")  # the letter is refused as typed
    assert field.text() == "08192" and not page.editor.problem.isVisible()
    assert cells(page, "llama3.2")[2] == ("8192", "user")


@pytest.mark.parametrize("serve, words", [
    (None, "Could not reach Ollama at"),
    (ollama_error(500, "the model store is locked"), "the model store is locked"),
])
def test_a_refresh_that_fails_says_why_in_a_quiet_line(qtbot, make_dialog, loopback, monkeypatch, serve, words):
    monkeypatch.setenv("OLLAMA_HOST", closed_url() if serve is None else loopback.url)
    if serve is not None:
        loopback.set_handler("/api/tags", lambda _: serve)
    dialog = make_dialog()
    page = dialog.profiles_page
    page.provider_box.setCurrentIndex(page.provider_box.findData("ollama"))
    qtbot.mouseClick(page.refresh_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, page)
    assert words in page.state.text() and page.state.property("kind") == "error" and page.state.isVisible()
    assert page.refresh_button.isEnabled() and dialog.status.text() == ""
    assert page.table_model.rowCount() == 1  # what was shown stays
    assert page.edits(Settings())["model_facts"] == {}


def test_the_conversations_model_is_chosen_when_the_window_opens_the_dialog(qtbot, make_window, runtime):
    window = make_window(runtime())
    dialog = open_dialog(qtbot, window)
    page = dialog.profiles_page
    provider, model = window.controller.provider_id, window.controller.model_name
    assert page.provider_id() == provider and page.chosen_model() == model
    profile = page.profile(model)
    assert profile is not None and profile.context_window.source == "table" and profile.tools.source == "table"
    dialog.show_page("profiles")
    assert dialog.nav.currentItem().text() == "Model profiles"
    assert dialog.stack.currentWidget().widget().isAncestorOf(page)


def test_hundreds_of_models_need_no_widget_each(qtbot, runtime):
    seed(provider_models={"openrouter": models_cache_now([f"vendor/model-{n}" for n in range(600)])})
    page = ModelProfilesPage(runtime())
    qtbot.addWidget(page)
    widgets_before = len(page.findChildren(QWidget))
    page.provider_box.setCurrentIndex(page.provider_box.findData("openrouter"))
    assert page.table_model.rowCount() == 600
    assert len(page.findChildren(QWidget)) == widgets_before
    page.filter_edit.setText("model-59")
    assert page.proxy.rowCount() == 11


def test_the_dark_theme_reaches_the_table_and_its_marks(qtbot, runtime, qapp):
    page = ModelProfilesPage(runtime())
    qtbot.addWidget(page)
    installed = install_theme_switch(qapp, "dark")
    try:
        assert page.styleSheet() == profiles_style_sheet(DARK_THEME)
        assert page.table.itemDelegate().theme is DARK_THEME
    finally:
        if (switch := theme_switch()) is not None:
            switch.close()
    assert installed is not None and current_theme() is DEFAULT_THEME
    assert page.styleSheet() == profiles_style_sheet(DEFAULT_THEME)
