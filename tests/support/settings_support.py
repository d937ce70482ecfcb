"""Helpers for settings tests: a models-list reply, a scan of a folder for key values, driving the dialog."""

from __future__ import annotations

from pathlib import Path

from tests.support.loopback import ScriptedResponse, json_response


def anthropic_models(ids: list[str]) -> ScriptedResponse:
    """A `GET /v1/models` page as the API sends it."""
    data = [
        {"id": i, "type": "model", "display_name": i.replace("-", " ").title(), "created_at": "2025-09-29T00:00:00Z"}
        for i in ids
    ]
    return json_response({"data": data, "has_more": False, "first_id": ids[0] if ids else None,
                          "last_id": ids[-1] if ids else None})


def files_containing(root: Path, value: str) -> list[Path]:
    """Every file under `root` holding `value` in any form secret_scan knows (raw, UTF-16, base64, …); none must."""
    from tests.support.secret_scan import files_under, forms_in

    return [p for p in files_under(root) if forms_in(p.read_bytes(), value)]


def open_dialog(qtbot, window):
    """Opens the settings dialog through its action and waits until the keys were read."""
    from desktop_copilot.qt.settings.entry import open_dialog_of

    action = next(a for a in window.actions() if a.objectName() == "settingsAction")
    action.trigger()
    dialog = open_dialog_of(window)
    assert dialog is not None
    wait_loaded(qtbot, dialog)
    return dialog


def wait_loaded(qtbot, dialog) -> None:
    fields = dialog.keys_page.fields.values()
    qtbot.waitUntil(lambda: all(f.state.text() != "Checking…" for f in fields) and not dialog.keys_page.tasks.busy,
                    timeout=5000)


def wait_idle(qtbot, page) -> None:
    qtbot.waitUntil(lambda: not page.tasks.busy, timeout=10000)


DEAD_URL = "http://127.0.0.1:9"
"""Nothing listens on the discard port: a local server configured there is not running."""
LOCAL_URL_VARIABLES = {"ollama": "OLLAMA_HOST", "lmstudio": "LMSTUDIO_BASE_URL", "llamacpp": "LLAMACPP_BASE_URL",
                       "vllm": "VLLM_BASE_URL"}


def no_local_servers(monkeypatch) -> None:
    """Points every local model server of the table at a dead port, so no server on this machine is asked."""
    for provider_id, variable in LOCAL_URL_VARIABLES.items():
        monkeypatch.setenv(variable, DEAD_URL if provider_id == "ollama" else f"{DEAD_URL}/v1")
