"""Settings ▸ Permissions with a real GrantStore on a temporary permissions.json: every grant is listed, Revoke and
Revoke all take it out of the file, and a grant given while the page is open (from another thread) shows up."""

from __future__ import annotations

import json
import threading
from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from desktop_copilot.core.approval.grants import ALWAYS, CONVERSATION, Grant, GrantStore
from desktop_copilot.qt.settings.permissions_page import EMPTY, PermissionsPage
from tests.support.memory_keyring import use_memory_keyring
from tests.support.settings_support import open_dialog

WRITE = Grant(tool="workspace_write", identity="builtin", scope=ALWAYS, shown_name="workspace_write",
              source_label="Built-in", created_at=1_767_225_600.0)
DELETE = Grant(tool="mcp__notes__delete_note", identity="mcp:0123456789abcdef", scope=CONVERSATION, conversation_id="c-1",
               shown_name="delete_note", source_label="notes", conversation_title="Tidy my notes", created_at=1_767_312_000.0)


def stored_tools(path: Path) -> list[str]:
    return [g["tool"] for g in json.loads(path.read_text())["grants"]]


@pytest.fixture
def store(tmp_path) -> GrantStore:
    grants = GrantStore(tmp_path / "permissions.json")
    grants.add(WRITE)
    grants.add(DELETE)
    return grants


@pytest.fixture
def page(qtbot, qasync_loop, store) -> PermissionsPage:
    widget = PermissionsPage(store)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def shown(page: PermissionsPage) -> list[tuple[str, str, str]]:
    return [(row.name.text(), row.source.text(), row.scope.text()) for row in page.rows]


def test_every_grant_is_listed_newest_first_with_its_source_and_scope(page):
    assert shown(page) == [("delete_note", "from notes", "In: Tidy my notes"), ("workspace_write", "from Built-in", "Always")]
    assert page.rows[0].date.text() == f"Given {datetime.fromtimestamp(DELETE.created_at):%Y-%m-%d %H:%M}"
    assert page.empty.isHidden() and page.revoke_all_button.isEnabled()


def test_revoke_takes_one_grant_out_of_the_file(qtbot, page, store):
    page.rows[0].revoke_button.click()
    qtbot.waitUntil(lambda: len(page.rows) == 1)
    assert shown(page) == [("workspace_write", "from Built-in", "Always")]
    assert stored_tools(store.path) == ["workspace_write"]
    assert GrantStore(store.path).covering("mcp__notes__delete_note", "mcp:0123456789abcdef", "c-1") is None


def test_revoke_all_asks_first_and_then_empties_the_file(qtbot, page, store):
    box = page.ask_revoke_all()
    assert "2 standing permissions" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.wait(50)
    assert len(page.rows) == 2 and len(stored_tools(store.path)) == 2

    page.revoke_all_button.click()
    box = page.confirm_box
    next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole).click()
    qtbot.waitUntil(lambda: not page.rows)
    assert stored_tools(store.path) == []
    assert page.empty.isVisible() and page.empty.text() == EMPTY
    assert not page.revoke_all_button.isEnabled()


def test_a_grant_given_on_another_thread_appears_while_the_page_is_open(qtbot, page, store):
    added = Grant(tool="web_fetch", identity="builtin", shown_name="web_fetch", source_label="Built-in")
    worker = threading.Thread(target=store.add, args=(added,))  # as the approval hook does, on the asyncio loop's thread
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: len(page.rows) == 3)
    assert shown(page)[0] == ("web_fetch", "from Built-in", "Always")


def test_an_empty_store_says_tools_that_change_things_ask(qtbot, qasync_loop, tmp_path):
    page = PermissionsPage(GrantStore(tmp_path / "none.json"))
    qtbot.addWidget(page)
    assert page.rows == [] and page.empty.text() == EMPTY and not page.empty.isHidden()


def test_a_closed_page_ignores_later_grants(qtbot, qasync_loop, store):
    page = PermissionsPage(store)
    page.deleteLater()
    qtbot.waitUntil(lambda: not _alive(page))
    store.add(Grant(tool="web_fetch", identity="builtin"))  # the store still calls the old listener: nothing breaks
    assert "web_fetch" in stored_tools(store.path)


def _alive(widget) -> bool:
    import shiboken6

    return shiboken6.isValid(widget)


def test_the_dialog_lists_the_new_pages_and_the_grants_of_permissions_json(qtbot, monkeypatch, make_window):
    from desktop_copilot.core.bootstrap import build_runtime

    use_memory_keyring(monkeypatch)
    runtime = build_runtime(check_keyring=False)
    runtime.grants.add(WRITE)
    dialog = open_dialog(qtbot, make_window(runtime))
    titles = [dialog.nav.item(i).text() for i in range(dialog.nav.count())]
    assert titles[4:6] == ["MCP servers", "Permissions"]
    dialog.show_page("permissions")
    assert dialog.stack.currentWidget().widget().isAncestorOf(dialog.permissions_page)
    assert shown(dialog.permissions_page) == [("workspace_write", "from Built-in", "Always")]
    dialog.permissions_page.rows[0].revoke_button.click()
    qtbot.waitUntil(lambda: not dialog.permissions_page.rows)
    assert stored_tools(runtime.paths.config_dir / "permissions.json") == []
