"""The first-start welcome with real widgets, an in-memory keyring and emulated local servers: it appears while no
provider can answer and offers them all (a cloud one with where to get its key, shown before it is opened), and not
with a key or a running server; a cloud choice opens its key field, a ready server becomes the conversation's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QLabel

from desktop_copilot.core.keys.keyring_store import SERVICE
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.qt.settings.dialog import SettingsDialog
from desktop_copilot.qt.settings.entry import open_dialog_of, show_startup_notices
from desktop_copilot.qt.settings.welcome import WelcomeDialog
from tests.qt.conftest import run_async
from tests.support.local_servers import LocalServer
from tests.support.memory_keyring import MemoryKeyring, use_memory_keyring
from tests.support.settings_support import no_local_servers, wait_loaded

CLOUD = [spec for spec in PROVIDERS.values() if not spec.local]
MODELS = ["qwen/qwen3-8b", "google/gemma-3-4b"]


@pytest.fixture
def keyring_backend(monkeypatch) -> MemoryKeyring:
    return use_memory_keyring(monkeypatch)


@pytest.fixture
def app_window(make_window, keyring_backend, monkeypatch):
    from desktop_copilot.core.bootstrap import build_runtime

    no_local_servers(monkeypatch)
    return lambda: make_window(build_runtime(check_keyring=False))


def start(qtbot, window):
    """What the app does once the window is up; returns the dialog it opened, if any."""
    return run_async(qtbot, show_startup_notices(window))


def welcome_of(window) -> WelcomeDialog | None:
    return next((d for d in window.findChildren(WelcomeDialog) if d.isVisible()), None)


def test_without_keys_or_servers_the_welcome_offers_every_provider(qtbot, app_window):
    window = app_window()
    welcome = start(qtbot, window)
    assert isinstance(welcome, WelcomeDialog) and welcome_of(window) is welcome and open_dialog_of(window) is None
    assert list(welcome.add_buttons) == [spec.id for spec in CLOUD]
    shown = {label.text() for label in welcome.findChildren(QLabel)}
    assert {spec.key_url for spec in CLOUD} <= shown and {spec.label for spec in CLOUD} <= shown  # where, before opening
    assert welcome.use_buttons == {}
    assert welcome.servers_note.text() == ("No model server is running here. Start one (Ollama, LM Studio, llama.cpp, vLLM), "
                                           "then press Check again.")
    assert welcome.focusWidget() is welcome.add_buttons["anthropic"]  # the default provider's key first
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in welcome.findChildren(QLabel))
    assert window.banner.isHidden()

    opened = []
    welcome.open_url = opened.append
    welcome.open_buttons["openai"].click()
    assert opened == [QUrl("https://platform.openai.com/api-keys")] and welcome.isVisible()
    assert "https://platform.openai.com/api-keys" in welcome.open_buttons["openai"].toolTip()


def test_choosing_a_cloud_provider_opens_its_key_field_and_the_keyboard_does_it(qtbot, app_window):
    window = app_window()
    welcome = start(qtbot, window)
    button = welcome.add_buttons["deepseek"]
    button.setFocus()
    qtbot.keyClick(button, Qt.Key.Key_Return)
    assert not welcome.isVisible()
    dialog = open_dialog_of(window)
    assert isinstance(dialog, SettingsDialog) and dialog.current_page() == "providers"
    wait_loaded(qtbot, dialog)
    row = dialog.providers_page.rows["deepseek"]
    assert row.body.isVisibleTo(dialog.providers_page)
    qtbot.waitUntil(lambda: row.key_field.edit.hasFocus(), timeout=2000)
    dialog.reject()


def test_escape_closes_the_welcome_and_settings_still_has_it_all(qtbot, app_window):
    window = app_window()
    welcome = start(qtbot, window)
    qtbot.keyClick(welcome, Qt.Key.Key_Escape)
    assert not welcome.isVisible() and open_dialog_of(window) is None


def test_an_openai_key_means_no_welcome_and_no_anthropic_key_page(qtbot, app_window, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-welcome-test-value-5e1b")
    window = app_window()
    assert start(qtbot, window) is None
    assert welcome_of(window) is None and open_dialog_of(window) is None


def test_a_running_local_server_means_no_welcome(qtbot, app_window, monkeypatch):
    with LocalServer("lmstudio", MODELS) as server:
        monkeypatch.setenv("LMSTUDIO_BASE_URL", server.base_url)
        window = app_window()
        assert start(qtbot, window) is None
        assert welcome_of(window) is None and open_dialog_of(window) is None


def test_a_default_local_server_that_runs_asks_for_nothing(qtbot, app_window, monkeypatch):
    monkeypatch.setenv("DESKTOP_COPILOT_PROVIDER", "lmstudio")
    with LocalServer("lmstudio", MODELS) as server:
        monkeypatch.setenv("LMSTUDIO_BASE_URL", server.base_url)
        window = app_window()
        assert start(qtbot, window) is None and open_dialog_of(window) is None


def test_a_chosen_default_without_its_key_opens_its_row_when_another_can_answer(qtbot, app_window, keyring_backend, monkeypatch):
    monkeypatch.setenv("DESKTOP_COPILOT_PROVIDER", "deepseek")
    keyring_backend.set_password(SERVICE, "anthropic", "sk-ant-api03-welcome-test-value-41f7")
    window = app_window()
    dialog = start(qtbot, window)
    assert isinstance(dialog, SettingsDialog) and dialog.current_page() == "providers" and welcome_of(window) is None
    assert dialog.providers_page.rows["deepseek"].body.isVisibleTo(dialog.providers_page)
    wait_loaded(qtbot, dialog)
    dialog.reject()


def test_choosing_a_ready_local_server_makes_it_the_conversations_provider(qtbot, app_window, monkeypatch):
    window = app_window()
    welcome = start(qtbot, window)
    assert welcome.use_buttons == {}
    with LocalServer("lmstudio", MODELS) as server:
        monkeypatch.setenv("LMSTUDIO_BASE_URL", server.base_url)  # LM Studio started after the welcome showed
        welcome.check_button.click()
        qtbot.waitUntil(lambda: "lmstudio" in welcome.use_buttons, timeout=5000)
        use = welcome.use_buttons["lmstudio"]
        assert use.text() == "Use LM Studio" and use.isEnabled() and welcome.focusWidget() is use
        assert "Ready · 2 models" in {label.text() for label in welcome.findChildren(QLabel)}
        assert welcome.servers_note.text() == "Not running: Ollama, llama.cpp, vLLM."
        qtbot.keyClick(use, Qt.Key.Key_Return)
        assert not welcome.isVisible() and open_dialog_of(window) is None

        runtime = window.controller.session.runtime
        conversation = window.controller.session.conversation
        assert (conversation.provider, conversation.model) == ("lmstudio", MODELS[0])
        assert window.model_picker.text() == f"LM Studio · {MODELS[0]}"
        assert window.composer.edit.placeholderText() == "Message LM Studio…"
        assert runtime.config.provider == "lmstudio" and runtime.settings.provider_models["lmstudio"].model_ids == MODELS
        saved = json.loads((Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config" / "settings.json").read_text())
        assert saved["default_provider"] == "lmstudio"

        server.reply(["Hello from ", "LM Studio."])
        assert window.send("hi")
        qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
        assert window.banner.isHidden(), window.banner.text()
        assert server.chat_requests[0].json()["model"] == MODELS[0]
