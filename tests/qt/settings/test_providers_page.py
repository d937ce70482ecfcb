"""Settings ▸ Providers with real widgets, an in-memory keyring and the loopback server: switches, base URLs and
the default provider are saved on OK and used by the next request, Test lists models (or says why not), Anthropic's
row works as every other's, and endpoints the user adds keep their key in the keyring, never in settings.json.
The local servers' rows say whether each runs (tests/qt/settings/test_local_servers_page.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop_copilot.core.keys.keyring_store import SERVICE
from tests.support.chat_completions_support import CHAT, MODELS, chat_reply, chat_response, openai_error
from tests.support.loopback import json_response
from tests.support.memory_keyring import MemoryKeyring, use_memory_keyring
from tests.support.settings_support import files_containing, open_dialog

DEEPSEEK_KEY = "sk-deepseek-providers-test-value-5b2e"
TYPED_KEY = "sk-deepseek-typed-not-saved-value-0d41"
ENDPOINT_KEY = "lmstudio-secret-providers-test-77aa"
ANTHROPIC_KEY = "sk-ant-api03-providers-test-value-41f7"


def home() -> Path:
    return Path(os.environ["DESKTOP_COPILOT_HOME"])


def saved() -> dict:
    return json.loads((home() / "config" / "settings.json").read_text())


@pytest.fixture
def keyring_backend(monkeypatch) -> MemoryKeyring:
    return use_memory_keyring(monkeypatch)


@pytest.fixture
def app_window(make_window, keyring_backend):
    from desktop_copilot.core.bootstrap import build_runtime

    return lambda: make_window(build_runtime(check_keyring=False))


def open_providers(qtbot, window):
    """The dialog on its Providers page, every key state read."""
    dialog = open_dialog(qtbot, window)
    dialog.show_page("providers")
    page = dialog.providers_page
    qtbot.waitUntil(lambda: not page.tasks.busy and all(r.key_state.text() != "Checking…" for r in page.rows.values()),
                    timeout=5000)
    return dialog, page


def press_ok(qtbot, dialog) -> None:
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)


def models_body(*ids: str):
    return json_response({"object": "list", "data": [{"id": i, "object": "model", "owned_by": "x"} for i in ids]})


def test_the_page_is_listed_first_and_shows_every_provider_in_its_group(qtbot, app_window):
    dialog, page = open_providers(qtbot, app_window())
    assert dialog.current_page() == "providers" and dialog.nav.item(0).text() == "Providers"
    assert dialog.stack.currentWidget().widget().isAncestorOf(page)
    assert list(page.rows)[:3] == ["anthropic", "openai", "deepseek"] and "ollama" in page.rows
    assert set(dialog.keys_page.fields) == {"tavily"}  # every provider's key lives on this page
    assert dialog.nav.item(3).text() == "Tool keys"
    assert page.rows["anthropic"].key_state.text() == "No key — add one"
    assert page.rows["anthropic"].key_field.edit.placeholderText() == "sk-ant-…"
    assert page.rows["deepseek"].key_state.text() == "No key — add one"
    ollama = page.rows["ollama"]
    assert ollama.key_state.text() == "No key needed" and ollama.key_field.edit.placeholderText().startswith("Optional")
    headings = {name: heading for name, (heading, _rows) in page.sections.items()}
    assert [headings[n].text() for n in ("cloud", "local")] == ["Cloud", "On this computer"]
    assert headings["cloud"].isVisibleTo(page) and headings["local"].isVisibleTo(page) and not headings["custom"].isVisibleTo(page)
    assert {r.spec.id for r in page.rows.values() if page.sections["local"][1].indexOf(r) >= 0} == {
        "ollama", "lmstudio", "llamacpp", "vllm"}
    assert page.sections["cloud"][1].indexOf(page.rows["anthropic"]) >= 0
    assert page.rows["anthropic"].default_tag.isVisibleTo(page) and not page.rows["openai"].default_tag.isVisibleTo(page)
    assert page.rows["deepseek"].url_edit.placeholderText() == "https://api.deepseek.com"
    dialog.show_page("tools")
    dialog.show_key("deepseek")  # a provider's key is found on this page, its details open
    assert dialog.current_page() == "providers" and page.rows["deepseek"].body.isVisibleTo(page)


def test_switching_a_provider_off_is_saved_on_ok_but_the_default_stays_on(qtbot, app_window):
    window = app_window()
    dialog, page = open_providers(qtbot, window)
    page.rows["groq"].switch.click()
    assert page.default_box.findData("groq") == -1  # only providers switched on can be the default
    page.rows["anthropic"].switch.click()
    assert page.rows["anthropic"].switch.isChecked()
    assert "stays on" in page.rows["anthropic"].message.text()
    press_ok(qtbot, dialog)
    assert saved()["disabled_providers"] == ["groq"]
    assert window.controller.session.runtime.settings.disabled_providers == {"groq"}


def test_a_base_url_set_on_the_page_is_used_by_the_next_request(qtbot, app_window, loopback, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", DEEPSEEK_KEY)
    window = app_window()
    dialog, page = open_providers(qtbot, window)
    assert page.rows["deepseek"].key_state.text() == "Key from DEEPSEEK_API_KEY · …5b2e"
    page.default_box.setCurrentIndex(page.default_box.findData("deepseek"))
    assert page.rows["deepseek"].default_tag.isVisibleTo(page)
    page.rows["deepseek"].url_edit.setText(f"{loopback.url}/v1/")
    press_ok(qtbot, dialog)
    assert saved()["base_urls"] == {"deepseek": f"{loopback.url}/v1"} and saved()["default_provider"] == "deepseek"

    loopback.enqueue(CHAT, chat_response(chat_reply("Hello from the page's endpoint")))
    assert window.send("hi")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert window.banner.isHidden(), window.banner.text()
    request = loopback.requests_to(CHAT)[0]
    assert request.headers["authorization"] == f"Bearer {DEEPSEEK_KEY}" and request.json()["model"] == "deepseek-chat"


def test_a_bad_base_url_is_refused_and_the_environment_override_is_named(qtbot, app_window, monkeypatch):
    monkeypatch.setenv("GROQ_BASE_URL", "http://127.0.0.1:9/openai/v1")
    dialog, page = open_providers(qtbot, app_window())
    assert page.rows["groq"].url_note.text() == "GROQ_BASE_URL=http://127.0.0.1:9/openai/v1 is set and wins over this field."
    row = page.rows["deepseek"]
    row.url_edit.setText("api.deepseek.com")
    assert row.url_note.text() == "The base URL must start with http:// or https://."
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: "Not saved" in dialog.status.text(), timeout=5000)
    assert dialog.status.text() == "Not saved: DeepSeek base URL must start with http:// or https://."
    assert dialog.isVisible() and dialog.current_page() == "providers" and row.body.isVisibleTo(page)
    assert not (home() / "config" / "settings.json").exists()


def test_test_lists_the_models_with_the_url_as_typed_and_caches_them(qtbot, app_window, loopback, keyring_backend):
    keyring_backend.set_password(SERVICE, "deepseek", DEEPSEEK_KEY)
    loopback.enqueue(MODELS, models_body("deepseek-chat", "deepseek-reasoner"))
    window = app_window()
    _dialog, page = open_providers(qtbot, window)
    row = page.rows["deepseek"]
    assert row.key_state.text().startswith("Key stored in") and row.key_state.text().endswith("…5b2e")
    row.url_edit.setText(f"{loopback.url}/v1")  # not applied yet: Test uses it all the same
    row.test_button.click()
    qtbot.waitUntil(lambda: "Works" in row.result.text(), timeout=10000)
    assert row.result.text().startswith("✓ Works — 2 models") and row.result.property("kind") == "ok"
    request = loopback.requests_to(MODELS)[0]
    assert request.method == "GET" and request.headers["authorization"] == f"Bearer {DEEPSEEK_KEY}"
    assert saved()["provider_models"]["deepseek"]["model_ids"] == ["deepseek-chat", "deepseek-reasoner"]
    assert saved()["base_urls"] == {}  # only the list is kept at once; the URL waits for OK
    assert window.controller.session.runtime.settings.provider_models["deepseek"].model_ids == ["deepseek-chat",
                                                                                                 "deepseek-reasoner"]


def test_a_401_is_reported_in_words_without_the_key(qtbot, app_window, loopback, keyring_backend):
    loopback.enqueue(MODELS, openai_error(401, "Authentication Fails, Your api key is invalid", "authentication_error"))
    _dialog, page = open_providers(qtbot, app_window())
    row = page.rows["deepseek"]
    row.url_edit.setText(f"{loopback.url}/v1")
    row.key_field.edit.setText(TYPED_KEY)  # Test takes the key as typed
    row.test_button.click()
    qtbot.waitUntil(lambda: row.result.property("kind") == "error", timeout=10000)
    text = row.result.text()
    assert "rejected the key" in text and "401" in text and "api key is invalid" in text and TYPED_KEY not in text
    assert loopback.requests_to(MODELS)[0].headers["authorization"] == f"Bearer {TYPED_KEY}"
    assert keyring_backend.entries == {}  # testing does not save


def test_test_without_a_key_says_so_and_asks_nothing(qtbot, app_window, loopback):
    _dialog, page = open_providers(qtbot, app_window())
    row = page.rows["openai"]
    row.url_edit.setText(f"{loopback.url}/v1")
    row.test_button.click()
    qtbot.waitUntil(lambda: row.result.property("kind") == "error", timeout=5000)
    assert row.result.text().startswith("No key") and loopback.requests_to(MODELS) == []


def test_a_key_saved_on_the_page_goes_to_the_keyring_and_shows_on_both_pages(qtbot, app_window, keyring_backend):
    dialog, page = open_providers(qtbot, app_window())
    field = page.rows["deepseek"].key_field
    field.edit.setText(DEEPSEEK_KEY)
    field.save_button.click()
    qtbot.waitUntil(lambda: page.rows["deepseek"].key_state.text().startswith("Key stored in"), timeout=5000)
    assert keyring_backend.entries == {(SERVICE, "deepseek"): DEEPSEEK_KEY} and field.edit.text() == ""

    anthropic = page.rows["anthropic"]  # Anthropic's key is kept like any other's
    anthropic.key_field.edit.setText(ANTHROPIC_KEY)
    anthropic.key_field.save_button.click()
    qtbot.waitUntil(lambda: anthropic.key_state.text().endswith("…41f7"), timeout=5000)
    assert keyring_backend.entries[(SERVICE, "anthropic")] == ANTHROPIC_KEY
    anthropic.key_field.remove_button.click()
    qtbot.waitUntil(lambda: anthropic.key_state.text() == "No key — add one", timeout=5000)
    assert (SERVICE, "anthropic") not in keyring_backend.entries


def test_an_endpoint_is_added_with_its_key_in_the_keyring_and_removed_with_it(qtbot, app_window, loopback, keyring_backend):
    window = app_window()
    runtime = window.controller.session.runtime
    dialog, page = open_providers(qtbot, window)
    form = page.open_form()
    form.name_edit.setText("LM Studio")
    assert "lm-studio" in form.id_hint.text()
    form.url_edit.setText(f"{loopback.url}/v1")
    form.key_edit.setText(ENDPOINT_KEY)
    form.headers_edit.setPlainText("X-Title: Desktop Copilot\nAuthorization: Bearer abc123")
    form.add_button.click()
    assert form.isVisible() and "Authorization" in form.problem.text() and "API key field" in form.problem.text()
    form.headers_edit.setPlainText("X-Title: Desktop Copilot")
    form.add_button.click()
    assert not form.isVisible() and "lm-studio" in page.rows
    qtbot.waitUntil(lambda: page.rows["lm-studio"].key_state.text() == "No key — add one", timeout=5000)  # typed only
    assert page.rows["lm-studio"].key_field.typed() == ENDPOINT_KEY and page.notice.isHidden()

    loopback.enqueue(MODELS, models_body("qwen2.5-7b-instruct"))
    row = page.rows["lm-studio"]
    row.test_button.click()  # before OK: the endpoint and its typed key are tested as they stand
    qtbot.waitUntil(lambda: "Works — 1 models" in row.result.text(), timeout=10000)
    request = loopback.requests_to(MODELS)[0]
    assert request.headers["authorization"] == f"Bearer {ENDPOINT_KEY}" and request.headers["x-title"] == "Desktop Copilot"
    press_ok(qtbot, dialog)

    assert keyring_backend.entries == {(SERVICE, "lm-studio"): ENDPOINT_KEY}
    assert files_containing(home(), ENDPOINT_KEY) == []
    endpoint = saved()["custom_providers"][0]
    assert (endpoint["id"], endpoint["label"], endpoint["needs_key"], endpoint["headers"]) == (
        "lm-studio", "LM Studio", True, {"X-Title": "Desktop Copilot"})
    spec = runtime.providers()["lm-studio"]
    assert spec.custom and spec.key_name == "lm-studio" and spec.base_url == f"{loopback.url}/v1"

    dialog, page = open_providers(qtbot, window)
    assert page.rows["lm-studio"].key_state.text().startswith("Key stored in")
    page.rows["lm-studio"].remove_button.click()
    assert "lm-studio" not in page.rows
    press_ok(qtbot, dialog)
    assert keyring_backend.entries == {}
    assert "lm-studio" not in runtime.providers() and saved()["custom_providers"] == []


def test_a_removed_endpoint_stays_when_the_dialog_is_cancelled(qtbot, app_window, keyring_backend):
    from desktop_copilot.core.bootstrap import apply_settings
    from desktop_copilot.core.config.settings import CustomProvider

    window = app_window()
    runtime = window.controller.session.runtime
    dialog, page = open_providers(qtbot, window)
    apply_settings(runtime, runtime.settings.model_copy(update={"custom_providers": [
        CustomProvider(id="vllm", label="vLLM", base_url="http://127.0.0.1:8000/v1", needs_key=True)]}))
    keyring_backend.set_password(SERVICE, "vllm", ENDPOINT_KEY)
    dialog.reject()
    dialog, page = open_providers(qtbot, window)
    page.rows["vllm"].remove_button.click()
    dialog.reject()
    assert "vllm" in runtime.providers() and keyring_backend.entries == {(SERVICE, "vllm"): ENDPOINT_KEY}


def test_anthropics_row_tests_its_key_lists_its_models_and_keeps_its_base_url(qtbot, app_window, loopback, keyring_backend):
    from tests.support.settings_support import anthropic_models

    keyring_backend.set_password(SERVICE, "anthropic", ANTHROPIC_KEY)
    loopback.enqueue("/v1/models", anthropic_models(["claude-opus-4-6", "claude-haiku-4-5"]))
    window = app_window()
    dialog, page = open_providers(qtbot, window)
    row = page.rows["anthropic"]
    row.url_edit.setText(loopback.url)  # not applied yet: Test uses it all the same
    row.test_button.click()
    qtbot.waitUntil(lambda: "Works — 2 models" in row.result.text(), timeout=10000)
    request = loopback.requests_to("/v1/models")[0]
    assert request.method == "GET" and request.headers["authorization"] == f"Bearer {ANTHROPIC_KEY}"
    assert saved()["provider_models"]["anthropic"]["model_ids"] == ["claude-opus-4-6", "claude-haiku-4-5"]
    assert "models_cache" not in saved() and "anthropic_base_url" not in saved()
    box = dialog.models_page.model_box  # the Models page offers the list at once
    assert [box.itemText(i) for i in range(box.count())] == ["claude-opus-4-6", "claude-haiku-4-5"]
    press_ok(qtbot, dialog)
    assert saved()["base_urls"] == {"anthropic": loopback.url}
    runtime = window.controller.session.runtime
    assert runtime.base_url(runtime.spec("anthropic")) == loopback.url == runtime.config.anthropic_base_url


def test_anthropics_row_says_a_401_in_words_without_the_key(qtbot, app_window, loopback, keyring_backend):
    from tests.support.loopback import anthropic_error

    loopback.enqueue("/v1/models", anthropic_error(401, "authentication_error", "invalid x-api-key"))
    _dialog, page = open_providers(qtbot, app_window())
    row = page.rows["anthropic"]
    row.url_edit.setText(loopback.url)
    row.key_field.edit.setText(ANTHROPIC_KEY)
    row.test_button.click()
    qtbot.waitUntil(lambda: row.result.property("kind") == "error", timeout=10000)
    text = row.result.text()
    assert "rejected the key" in text and "401" in text and "invalid x-api-key" in text and ANTHROPIC_KEY not in text
    assert loopback.requests_to("/v1/models")[0].headers["authorization"] == f"Bearer {ANTHROPIC_KEY}"
    assert keyring_backend.entries == {}  # testing does not save


def test_a_bad_anthropic_base_url_is_refused_like_any_other(qtbot, app_window):
    dialog, page = open_providers(qtbot, app_window())
    page.rows["anthropic"].url_edit.setText("api.example.com")
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: "Not saved" in dialog.status.text(), timeout=5000)
    assert dialog.status.text() == "Not saved: Anthropic base URL must start with http:// or https://."
    assert dialog.isVisible() and dialog.current_page() == "providers"
    assert not (home() / "config" / "settings.json").exists()


def test_deleting_the_dialog_while_keys_are_read_cancels_the_pages_work(qtbot, qasync_loop, keyring_backend):
    import asyncio

    from desktop_copilot.core.bootstrap import build_runtime
    from desktop_copilot.qt.settings.dialog import SettingsDialog

    before = asyncio.all_tasks(qasync_loop)
    dialog = SettingsDialog(build_runtime(check_keyring=False))
    loading = asyncio.all_tasks(qasync_loop) - before
    assert len(loading) == 2  # the Keys and the Providers page read where each key comes from
    dialog.deleteLater()  # not closed first: nothing called done()
    qtbot.waitUntil(lambda: all(task.done() for task in loading), timeout=5000)
    assert all(task.cancelled() for task in loading)  # none resumed to touch a deleted label
