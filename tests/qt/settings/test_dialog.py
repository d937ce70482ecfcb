"""The settings dialog with real widgets, an in-memory keyring and the loopback server: keys are saved to
the keyring and never to disk, tools follow the keys in the next request, Test and Refresh talk to the API."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel, QLineEdit

from desktop_copilot.core.keys import keyring_store
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.core.keys.keyring_store import SERVICE
from desktop_copilot.qt.settings.dialog import SettingsDialog
from desktop_copilot.qt.settings.entry import open_dialog_of, show_startup_notices
from tests.qt.conftest import run_async
from tests.support.loopback import anthropic_error, anthropic_text_reply, json_response, sse_response
from tests.support.memory_keyring import MemoryKeyring, use_memory_keyring
from tests.support.settings_support import anthropic_models, files_containing, open_dialog, wait_idle

ANTHROPIC_KEY = "sk-ant-api03-dialog-test-value-41f7"
TAVILY_KEY = "tvly-dev-dialog-test-value-88c2"


def home() -> Path:
    return Path(os.environ["DESKTOP_COPILOT_HOME"])


@pytest.fixture
def keyring_backend(monkeypatch) -> MemoryKeyring:
    return use_memory_keyring(monkeypatch)


@pytest.fixture
def app_window(make_window, loopback, monkeypatch):
    """The real window as gui.main builds it (bootstrap runtime, settings action), pointed at the loopback."""
    from desktop_copilot.core.bootstrap import build_runtime

    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    monkeypatch.setenv("TAVILY_BASE_URL", loopback.url)
    return lambda: make_window(build_runtime(check_keyring=False))


def send_and_wait(qtbot, window, loopback, text: str) -> dict:
    """Sends `text` through the window; returns the JSON of the request the loopback received."""
    before = len(loopback.requests_to("/v1/messages"))
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("ok", msg_id=f"msg_{before}")))
    assert window.send(text)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert window.banner.isHidden(), window.banner.text()
    return loopback.requests_to("/v1/messages")[-1].json()


def tool_names(request: dict) -> list[str]:
    return [tool["name"] for tool in request.get("tools", [])]


def test_saving_a_key_puts_it_in_the_keyring_and_not_on_disk(qtbot, keyring_backend, app_window):
    window = app_window()
    dialog = open_dialog(qtbot, window)
    dialog.show_page("keys")
    field = dialog.keys_page.fields["tavily"]
    assert field.state.text() == "Not set" and "app.tavily.com" in field.link.text()
    assert field.edit.echoMode() is QLineEdit.EchoMode.Password

    qtbot.keyClicks(field.edit, TAVILY_KEY)
    qtbot.keyClick(field.edit, Qt.Key.Key_Return)  # Enter saves the key and leaves the dialog open
    qtbot.waitUntil(lambda: field.state.text().startswith("Stored in"), timeout=5000)
    assert dialog.isVisible()

    assert keyring_backend.entries == {(SERVICE, "tavily"): TAVILY_KEY}
    assert field.edit.text() == "" and field.edit.echoMode() is QLineEdit.EchoMode.Password
    assert field.state.text().endswith("…88c2") and field.link.text() == ""
    assert "stored in" in field.message.text()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert (home() / "config" / "settings.json").exists()
    assert files_containing(home(), TAVILY_KEY) == []


def test_a_key_shows_only_while_show_is_on_and_a_stored_key_never(qtbot, keyring_backend, app_window):
    keyring_backend.set_password(SERVICE, "anthropic", ANTHROPIC_KEY)
    window = app_window()
    dialog = open_dialog(qtbot, window)
    field = dialog.keys_page.fields["tavily"]
    qtbot.keyClicks(field.edit, TAVILY_KEY)
    assert field.edit.displayText() != TAVILY_KEY
    field.show_button.click()
    assert field.edit.displayText() == TAVILY_KEY and field.show_button.text() == "Hide"
    field.show_button.click()
    assert field.edit.displayText() != TAVILY_KEY
    texts = [w.text() for w in dialog.findChildren(QLabel)] + [w.displayText() for w in dialog.findChildren(QLineEdit)]
    texts += [w.placeholderText() for w in dialog.findChildren(QLineEdit)]
    assert not any(ANTHROPIC_KEY in text for text in texts)
    assert any("…41f7" in text for text in texts)


def test_removing_and_adding_the_tavily_key_changes_the_tools_of_the_next_request(
    qtbot, keyring_backend, app_window, loopback
):
    keyring_backend.set_password(SERVICE, "anthropic", ANTHROPIC_KEY)
    keyring_backend.set_password(SERVICE, "tavily", TAVILY_KEY)
    window = app_window()
    assert tool_names(send_and_wait(qtbot, window, loopback, "first")) == ["tavily_search", "web_fetch"]

    dialog = open_dialog(qtbot, window)
    tavily = dialog.keys_page.fields["tavily"]
    qtbot.mouseClick(tavily.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tavily.state.text() == "Not set", timeout=5000)
    assert (SERVICE, "tavily") not in keyring_backend.entries
    assert dialog.tools_page.rows["tavily_search"].state.text() == "Needs a Tavily key"
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    request = send_and_wait(qtbot, window, loopback, "second")
    assert tool_names(request) == ["web_fetch"]

    dialog = open_dialog(qtbot, window)
    tavily = dialog.keys_page.fields["tavily"]
    tavily.edit.setText(TAVILY_KEY)
    tavily.save_button.click()
    qtbot.waitUntil(lambda: tavily.state.text().startswith("Stored in"), timeout=5000)
    assert dialog.tools_page.rows["tavily_search"].state.text() == "Offered to Claude"
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert tool_names(send_and_wait(qtbot, window, loopback, "third")) == ["tavily_search", "web_fetch"]
    assert loopback.requests_to("/v1/messages")[-1].headers["authorization"] == f"Bearer {ANTHROPIC_KEY}"


def test_switching_a_tool_off_is_saved_and_takes_it_out_of_the_request(qtbot, keyring_backend, app_window, loopback):
    keyring_backend.set_password(SERVICE, "anthropic", ANTHROPIC_KEY)
    keyring_backend.set_password(SERVICE, "tavily", TAVILY_KEY)
    window = app_window()
    dialog = open_dialog(qtbot, window)
    dialog.show_page("tools")
    row = dialog.tools_page.rows["tavily_search"]
    row.switch.click()
    assert row.state.text() == "Switched off"
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert json.loads((home() / "config" / "settings.json").read_text())["disabled_tools"] == ["tavily_search"]
    assert tool_names(send_and_wait(qtbot, window, loopback, "hello")) == ["web_fetch"]


def test_test_reports_a_401_in_words(qtbot, keyring_backend, app_window, loopback):
    loopback.enqueue("/v1/models", anthropic_error(401, "authentication_error", "invalid x-api-key"))
    window = app_window()
    dialog = open_dialog(qtbot, window)
    row = dialog.providers_page.rows["anthropic"]  # ANTHROPIC_BASE_URL points at the loopback
    row.key_field.edit.setText(ANTHROPIC_KEY)
    row.test_button.click()
    qtbot.waitUntil(lambda: "rejected the key" in row.result.text(), timeout=10000)
    assert "401" in row.result.text() and "invalid x-api-key" in row.result.text()
    assert ANTHROPIC_KEY not in row.result.text()
    assert row.result.property("kind") == "error"
    request = loopback.requests_to("/v1/models")[0]
    assert request.method == "GET" and request.headers["authorization"] == f"Bearer {ANTHROPIC_KEY}"
    assert keyring_backend.entries == {}  # testing does not save


def test_test_success_counts_the_models_and_caches_them(qtbot, keyring_backend, app_window, loopback):
    keyring_backend.set_password(SERVICE, "anthropic", ANTHROPIC_KEY)
    loopback.enqueue("/v1/models", anthropic_models(["claude-opus-4-6", "claude-sonnet-4-5-20250929", "claude-haiku-4-5"]))
    window = app_window()
    dialog = open_dialog(qtbot, window)
    row = dialog.providers_page.rows["anthropic"]
    row.test_button.click()  # nothing typed: the stored key is tested
    qtbot.waitUntil(lambda: "Works" in row.result.text(), timeout=10000)
    assert row.result.text().startswith("✓ Works — 3 models")
    cached = json.loads((home() / "config" / "settings.json").read_text())["provider_models"]["anthropic"]["model_ids"]
    assert cached == ["claude-opus-4-6", "claude-sonnet-4-5-20250929", "claude-haiku-4-5"]
    box = dialog.models_page.model_box
    assert [box.itemText(i) for i in range(box.count())] == cached


def test_tavily_test_asks_the_free_usage_endpoint(qtbot, keyring_backend, app_window, loopback):
    loopback.enqueue("/usage", json_response({"key": {"usage": 12, "limit": 1000}, "account": {}}))
    window = app_window()
    dialog = open_dialog(qtbot, window)
    field = dialog.keys_page.fields["tavily"]
    field.edit.setText(TAVILY_KEY)
    field.test_button.click()
    qtbot.waitUntil(lambda: "Key works" in field.message.text(), timeout=10000)
    assert "12 of 1,000 credits used" in field.message.text()
    request = loopback.requests_to("/usage")[0]
    assert request.method == "GET" and request.headers["authorization"] == f"Bearer {TAVILY_KEY}"


def test_models_come_from_the_api_are_cached_and_survive_a_restart(qtbot, keyring_backend, app_window, loopback):
    keyring_backend.set_password(SERVICE, "anthropic", ANTHROPIC_KEY)
    ids = ["claude-opus-4-6", "claude-sonnet-4-5-20250929"]
    loopback.set_handler("/v1/models", lambda request: anthropic_models(ids))
    window = app_window()
    dialog = open_dialog(qtbot, window)
    dialog.show_page("models")  # first shown without a cache: fetched at once
    page = dialog.models_page
    qtbot.waitUntil(lambda: "2 models from the API" in page.list_state.text(), timeout=10000)
    assert [page.model_box.itemText(i) for i in range(page.model_box.count())] == ids
    assert window.controller.session.runtime.settings.provider_models["anthropic"].model_ids == ids
    page.refresh_button.click()
    qtbot.waitUntil(lambda: len(loopback.requests_to("/v1/models")) == 2, timeout=5000)
    wait_idle(qtbot, page)
    dialog.reject()

    reopened = app_window()  # a new runtime reads the cache from settings.json
    page = open_dialog(qtbot, reopened).models_page
    assert [page.model_box.itemText(i) for i in range(page.model_box.count())] == ids


def test_without_a_key_the_built_in_models_are_offered(qtbot, keyring_backend, app_window, loopback):
    window = app_window()
    dialog = open_dialog(qtbot, window)
    dialog.show_page("models")
    page = dialog.models_page
    items = [page.model_box.itemText(i) for i in range(page.model_box.count())]
    assert set(PROVIDERS["anthropic"].fallback_models) <= set(items) and "Built-in list" in page.list_state.text()
    page.refresh_button.click()
    qtbot.waitUntil(lambda: "Add an Anthropic key" in page.list_state.text(), timeout=5000)
    assert loopback.requests_to("/v1/models") == []


def test_ok_saves_model_limit_thinking_and_rounds_and_updates_the_model_label(qtbot, keyring_backend, app_window, loopback):
    keyring_backend.set_password(SERVICE, "anthropic", ANTHROPIC_KEY)
    loopback.set_handler("/v1/models", lambda request: anthropic_models(["claude-haiku-4-5"]))
    window = app_window()
    dialog = open_dialog(qtbot, window)
    page = dialog.models_page
    page.model_box.setCurrentText("claude-haiku-4-5")
    assert page.max_tokens.value() == 32_000 and page.env_max_tokens.isHidden()
    page.max_tokens.setValue(50_000)
    page.thinking_switch.click()
    page.budget.setValue(2048)
    page.rounds.setValue(3)
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert window.model_label.text() == "claude-haiku-4-5"
    saved = json.loads((home() / "config" / "settings.json").read_text())
    assert (saved["default_model"], saved["thinking_enabled"], saved["thinking_budget"], saved["max_tool_rounds"]) == (
        "claude-haiku-4-5", True, 2048, 3)
    assert saved["max_tokens"] == 50_000
    request = send_and_wait(qtbot, window, loopback, "think")
    assert request["model"] == "claude-haiku-4-5" and request["max_tokens"] == 50_000
    assert request["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_the_page_says_when_the_environment_sets_the_output_limit(qtbot, keyring_backend, app_window, monkeypatch):
    monkeypatch.setenv("DESKTOP_COPILOT_MAX_TOKENS", "64000")
    page = open_dialog(qtbot, app_window()).models_page
    assert not page.env_max_tokens.isHidden()
    assert page.env_max_tokens.text() == "DESKTOP_COPILOT_MAX_TOKENS=64000 is set and wins over this field."


def test_a_bad_value_is_refused_and_the_dialog_stays_open(qtbot, keyring_backend, app_window):
    window = app_window()
    dialog = open_dialog(qtbot, window)
    dialog.show_page("prices")
    dialog.providers_page.rows["anthropic"].url_edit.setText("api.example.com")
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: "Not saved" in dialog.status.text(), timeout=5000)
    assert "Anthropic base URL" in dialog.status.text() and "http://" in dialog.status.text()
    assert dialog.isVisible() and dialog.current_page() == "providers"
    assert not (home() / "config" / "settings.json").exists()


def test_ok_also_saves_a_typed_key(qtbot, keyring_backend, app_window):
    window = app_window()
    dialog = open_dialog(qtbot, window)
    dialog.keys_page.fields["tavily"].edit.setText(f"  {TAVILY_KEY}\n")
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert keyring_backend.entries == {(SERVICE, "tavily"): TAVILY_KEY}


def test_a_rejected_value_is_explained_and_nothing_is_stored(qtbot, keyring_backend, app_window):
    window = app_window()
    dialog = open_dialog(qtbot, window)
    field = dialog.providers_page.rows["anthropic"].key_field
    field.edit.setText("sk-ant one two")
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: field.message.property("kind") == "error", timeout=5000)
    assert "spaces" in field.message.text() and "sk-ant one two" not in field.message.text()
    assert dialog.isVisible() and keyring_backend.entries == {}


def test_without_a_keyring_the_page_says_so_and_keys_stay_in_the_session(qtbot, monkeypatch, app_window, loopback):
    monkeypatch.setattr(keyring_store, "default_backend", fail.Keyring)
    window = app_window()
    dialog = open_dialog(qtbot, window)
    notice = dialog.providers_page.keyring_label  # where the providers' keys are typed
    qtbot.waitUntil(lambda: notice.isVisibleTo(dialog), timeout=5000)
    assert notice.property("kind") == "warning"
    assert "No usable keyring" in notice.text() and "for this session only" in notice.text() and "OPENAI_API_KEY" in notice.text()
    tools_notice = dialog.keys_page.notice
    assert tools_notice.property("kind") == "warning" and "TAVILY_API_KEY" in tools_notice.text()
    field = dialog.providers_page.rows["anthropic"].key_field
    field.edit.setText(ANTHROPIC_KEY)
    field.save_button.click()
    qtbot.waitUntil(lambda: field.state.text().startswith("This session only"), timeout=5000)
    assert "session only" in field.message.text() and field.message.property("kind") == "warning"
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert send_and_wait(qtbot, window, loopback, "hi")["messages"]
    assert files_containing(home(), ANTHROPIC_KEY) == []


def test_startup_shows_warnings_in_the_banner_and_no_dialog_with_an_environment_key(
    qtbot, monkeypatch, app_window
):
    monkeypatch.setattr(keyring_store, "default_backend", fail.Keyring)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    (home() / "config").mkdir(parents=True, exist_ok=True)
    (home() / "config" / "settings.json").write_text("{ not json")
    window = app_window()
    run_async(qtbot, show_startup_notices(window))
    assert open_dialog_of(window) is None
    text = window.banner.text()
    assert "No usable keyring" in text and "settings file" in text and ANTHROPIC_KEY not in text


def test_add_key_on_the_tools_page_jumps_to_the_key(qtbot, keyring_backend, app_window):
    window = app_window()
    dialog = open_dialog(qtbot, window)
    dialog.show_page("tools")
    row = dialog.tools_page.rows["tavily_search"]
    assert row.add_key_button.isVisibleTo(dialog)
    row.add_key_button.click()
    assert dialog.current_page() == "keys" and dialog.nav.item(dialog.nav.currentRow()).text() == "Tool keys"
    qtbot.waitUntil(lambda: dialog.keys_page.fields["tavily"].edit.hasFocus(), timeout=2000)


def test_the_settings_action_is_in_the_file_menu_with_ctrl_comma(qtbot, keyring_backend, app_window):
    window = app_window()
    action = next(a for a in window.actions() if a.objectName() == "settingsAction")
    assert QKeySequence("Ctrl+,") in action.shortcuts()
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.menu() and a.menu().objectName() == "fileMenu")
    assert action in file_menu.actions()
    action.trigger()  # an offscreen window is never active, so the key itself cannot be sent here
    assert open_dialog_of(window) is not None
    action.trigger()
    assert len([d for d in window.findChildren(SettingsDialog) if d.isVisible()]) == 1

