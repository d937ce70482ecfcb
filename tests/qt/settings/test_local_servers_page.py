"""Settings ▸ Providers with emulated local model servers: each server on this computer says whether it runs, asked
once when the page opens and again when its URL changes or Test is pressed, quietly (no error styling, no banner,
nothing logged above INFO)."""

from __future__ import annotations

import logging

import pytest

from desktop_copilot.core.bootstrap import apply_settings
from tests.support.faults import FOREVER
from tests.support.local_servers import LocalServer
from tests.support.loopback import LoopbackServer, ScriptedResponse
from tests.support.memory_keyring import use_memory_keyring
from tests.support.settings_support import DEAD_URL, no_local_servers, open_dialog

MODELS = ["qwen/qwen3-8b", "google/gemma-3-4b", "text-embedding-nomic-embed-text-v1.5"]


@pytest.fixture
def app_window(make_window, monkeypatch):
    from desktop_copilot.core.bootstrap import build_runtime

    use_memory_keyring(monkeypatch)
    no_local_servers(monkeypatch)
    return lambda: make_window(build_runtime(check_keyring=False))


def open_providers(qtbot, window):
    dialog = open_dialog(qtbot, window)
    dialog.show_page("providers")
    return dialog, dialog.providers_page


def model_lists(server: LocalServer) -> list:
    return [r for r in server.requests if r.method == "GET" and r.path == "/v1/models"]


def test_a_running_lm_studio_says_so_and_a_dead_port_says_where_nothing_answered(qtbot, app_window, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    with LocalServer("lmstudio", MODELS) as server:
        monkeypatch.setenv("LMSTUDIO_BASE_URL", server.base_url)
        window = app_window()
        _dialog, page = open_providers(qtbot, window)
        lmstudio, vllm = page.rows["lmstudio"], page.rows["vllm"]
        qtbot.waitUntil(lambda: lmstudio.server_state.text() == "Running · 3 models", timeout=5000)
        qtbot.waitUntil(lambda: vllm.server_state.text() == f"Not running at {DEAD_URL}/v1", timeout=5000)
        assert len(model_lists(server)) == 1  # one probe when the page opened
    assert page.rows["ollama"].server_state.text() == f"Not running at {DEAD_URL}"
    assert lmstudio.server_state.property("kind") == "running" and vllm.server_state.property("kind") == "stopped"
    assert lmstudio.server_state.isVisibleTo(page)  # in the header: seen with the details closed
    assert not page.rows["openai"].server_state.isVisibleTo(page)  # a cloud provider has no server to ask
    assert MODELS[0] in lmstudio.server_state.toolTip()
    assert vllm.result.text() == "" and page.notice.isHidden() and window.banner.isHidden()
    assert [r.getMessage() for r in caplog.records if r.levelno > logging.INFO] == []


def test_a_typed_url_is_asked_after_a_pause_and_test_asks_again(qtbot, app_window, monkeypatch):
    monkeypatch.delenv("LMSTUDIO_BASE_URL")  # the field decides
    window = app_window()
    runtime = window.controller.session.runtime
    apply_settings(runtime, runtime.settings.model_copy(update={"base_urls": {"lmstudio": f"{DEAD_URL}/v1"}}))
    _dialog, page = open_providers(qtbot, window)
    row = page.rows["lmstudio"]
    qtbot.waitUntil(lambda: row.server_state.text() == f"Not running at {DEAD_URL}/v1", timeout=5000)
    with LocalServer("lmstudio", MODELS[:2]) as server:
        row.url_edit.setText(server.base_url)
        qtbot.waitUntil(lambda: row.server_state.text() == "Running · 2 models", timeout=5000)
        assert len(model_lists(server)) == 1  # asked once typing paused, not at every keystroke
        row.expand(True)
        row.test_button.click()
        qtbot.waitUntil(lambda: len(model_lists(server)) == 2 and not page.tasks.busy, timeout=5000)
        assert row.result.text().startswith("✓ Works — 2 models") and row.server_state.text() == "Running · 2 models"
    row.test_button.click()  # the server has stopped
    qtbot.waitUntil(lambda: row.result.property("kind") == "error", timeout=10000)
    assert row.server_state.text() == f"Not running at {server.base_url}" and row.server_state.property("kind") == "stopped"
    row.url_edit.setText("localhost:1234")  # not a URL: nothing is asked, the row says why
    qtbot.waitUntil(lambda: row.server_state.text() == "", timeout=5000)
    assert row.url_note.text() == "The base URL must start with http:// or https://."


def test_closing_settings_stops_asking_a_server_that_has_not_answered(qtbot, app_window, monkeypatch, caplog):
    """The row's label is gone once the dialog is: a probe left running would write to it when the server answers."""
    caplog.set_level(logging.DEBUG)
    with LoopbackServer() as server:  # accepts the model list request and says nothing
        server.enqueue("/v1/models", ScriptedResponse(hold=FOREVER))
        monkeypatch.setenv("LMSTUDIO_BASE_URL", f"{server.url}/v1")
        window = app_window()
        dialog, page = open_providers(qtbot, window)
        qtbot.waitUntil(lambda: len(server.requests_to("/v1/models")) == 1
                        and page.rows["lmstudio"].server_state.text() == "Checking…", timeout=5000)
        assert page.servers.tasks.busy
        dialog.reject()
        qtbot.waitUntil(lambda: not page.servers.tasks.busy, timeout=2000)  # cancelled, not waiting for the answer
    qtbot.wait(200)  # the server has let go of the connection
    assert [r.getMessage() for r in caplog.records if r.levelno > logging.INFO] == []
