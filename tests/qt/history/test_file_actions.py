"""The File menu's history actions: export the open conversation as Markdown and JSON, export all, import
an export into the sidebar, and bad files explained in the error banner."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QFileDialog

from desktop_copilot.core.storage.export import to_json
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.history.file_actions import file_menu, safe_file_name
from tests.support.history_seed import seed_app_store, seed_conversation


def _seed(store: Store) -> dict[str, str]:
    return {
        "old": seed_conversation(store, "Rust lifetimes", [("Explain lifetimes", "A lifetime names how long a borrow lives.")], age_days=3).id,
        "new": seed_conversation(store, "今天香港天气", [("今天香港天气怎么样", "多云，24–28 °C。")]).id,
    }


@pytest.fixture
def window_with_history(make_window):
    ids = seed_app_store(_seed)
    return make_window(), ids


def _choose_save(monkeypatch, path) -> list[str]:
    offered = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda parent, title, default, filters: (offered.append(default) or str(path), filters))
    return offered


def _choose_open(monkeypatch, path) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda parent, title, folder, filters: (str(path), filters))


def test_file_menu_holds_the_history_actions(window_with_history):
    window, _ids = window_with_history
    texts = [a.text() for a in file_menu(window).actions() if not a.isSeparator()]
    assert texts[:5] == ["New conversation", "Export conversation as Markdown…", "Export conversation as JSON…",
                         "Export all conversations…", "Import conversations…"]
    assert window.history.file_actions.new_action.shortcut().toString() == "Ctrl+N"


def test_export_markdown_writes_the_open_conversation(window_with_history, monkeypatch, tmp_path):
    window, _ids = window_with_history
    offered = _choose_save(monkeypatch, tmp_path / "weather")
    window.history.file_actions.export_markdown_action.trigger()
    text = (tmp_path / "weather.md").read_text(encoding="utf-8")
    assert offered[0].endswith("今天香港天气.md")
    assert text.startswith("# 今天香港天气") and "## You" in text and "多云，24–28 °C。" in text
    assert "weather.md" in window.statusBar().currentMessage()


def test_export_json_and_export_all(window_with_history, monkeypatch, tmp_path):
    window, ids = window_with_history
    _choose_save(monkeypatch, tmp_path / "one.json")
    window.history.file_actions.export_json_action.trigger()
    one = json.loads((tmp_path / "one.json").read_text(encoding="utf-8"))
    assert one["format"] == "desktop-copilot/conversations" and [c["id"] for c in one["conversations"]] == [ids["new"]]
    _choose_save(monkeypatch, tmp_path / "all.json")
    window.history.file_actions.export_all_action.trigger()
    everything = json.loads((tmp_path / "all.json").read_text(encoding="utf-8"))
    assert {c["id"] for c in everything["conversations"]} == set(ids.values())


def test_export_to_an_unwritable_place_is_explained(window_with_history, monkeypatch, tmp_path):
    window, _ids = window_with_history
    _choose_save(monkeypatch, tmp_path / "missing-folder" / "x.md")
    window.history.file_actions.export_markdown_action.trigger()
    assert "Could not save" in window.banner.text() and "No such file" in window.banner.text()


def test_export_is_disabled_for_an_empty_new_conversation(window_with_history):
    window, _ids = window_with_history
    actions = window.history.file_actions
    assert actions.export_markdown_action.isEnabled()
    window.history.new_conversation()
    assert not actions.export_markdown_action.isEnabled() and not actions.export_json_action.isEnabled()
    assert actions.export_all_action.isEnabled() and actions.import_action.isEnabled()


def test_import_restores_a_conversation_into_the_sidebar(qtbot, window_with_history, monkeypatch, tmp_path):
    window, ids = window_with_history
    other = Store(tmp_path / "other.sqlite3")
    moved = seed_conversation(other, "Moved from my laptop", [("Where is the export?", "In your Documents folder.")], age_days=1)
    existing = window.controller.session.store.load_conversation(ids["old"])
    (tmp_path / "export.json").write_text(to_json([other.load_conversation(moved.id), existing]), encoding="utf-8")
    other.close()
    _choose_open(monkeypatch, tmp_path / "export.json")
    assert window.history.file_actions.import_file() == (1, 1)
    model = window.history.conversations
    titles = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert titles == ["今天香港天气", "Moved from my laptop", "Rust lifetimes"]
    assert "Imported 1 conversation" in window.statusBar().currentMessage()
    assert window.history.open(moved.id)
    assert [m.text for m in window.controller.model.messages()] == ["Where is the export?", "In your Documents folder."]


@pytest.mark.parametrize(("content", "expected"), [
    (b"{not json", "The file is not JSON"),
    (b'{"format": "something-else"}', "not a Desktop Copilot export"),
    (b"\xff\xfe\x00binary", "not a text file"),
    (b'{"format": "desktop-copilot/conversations", "version": 99}', "newer Desktop Copilot"),
])
def test_a_bad_import_file_is_explained_and_changes_nothing(window_with_history, monkeypatch, tmp_path, content, expected):
    window, _ids = window_with_history
    (tmp_path / "bad.json").write_bytes(content)
    _choose_open(monkeypatch, tmp_path / "bad.json")
    assert window.history.file_actions.import_file() is None
    assert window.banner.text().startswith("Could not import bad.json:") and expected in window.banner.text()
    assert window.history.conversations.rowCount() == 2


def test_safe_file_name():
    assert safe_file_name('a/b:c*?"<>|d.', ".md") == "a b c d.md"
    assert safe_file_name("  ", ".json") == "conversation.json"
    assert safe_file_name("今天香港天气", ".md") == "今天香港天气.md"
