"""Settings ▸ Permissions with a real GrantStore on a temporary permissions.json: every rule and grant is listed,
numbered most specific first as `desktop-copilot permissions list` numbers them; Add rule… checks the rule before adding
it, Edit… replaces it, Remove and Remove all take them out of the file, and a change made while the page is open (from
another thread) shows up."""

from __future__ import annotations

import json
import threading
from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from desktop_copilot.app import permissions_cli
from desktop_copilot.core.approval.grants import ALWAYS, CONVERSATION, Grant, GrantStore
from desktop_copilot.core.approval.rules import Action, make_rule
from desktop_copilot.qt.settings.permissions_page import EMPTY, PermissionsPage
from desktop_copilot.qt.settings.rule_dialog import RuleForm
from tests.support.memory_keyring import use_memory_keyring
from tests.support.settings_support import open_dialog

WRITE = Grant(tool="workspace_write", identity="builtin", scope=ALWAYS, shown_name="workspace_write",
              source_label="Built-in", created_at=1_767_225_600.0)
DELETE = Grant(tool="mcp__notes__delete_note", identity="mcp:0123456789abcdef", scope=CONVERSATION, conversation_id="c-1",
               shown_name="delete_note", source_label="notes", conversation_title="Tidy my notes", created_at=1_767_312_000.0)


def stored_tools(path: Path) -> list[str]:
    return [g["tool"] for g in json.loads(path.read_text())["grants"]]


def stored_rules(path: Path) -> list[tuple[str, str, str]]:
    return [(r["action"], r["tool"], r.get("pattern", "")) for r in json.loads(path.read_text())["rules"]]


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
    """(tool, source, scope) of the grants' rows."""
    return [(row.name.text(), row.source.text(), row.scope.text()) for row in page.rows if isinstance(row.entry, Grant)]


def lines(page: PermissionsPage) -> list[str]:
    """Each row as read: "N. action tool [pattern]"."""
    return [" ".join(filter(None, (row.number.text(), row.action.text(), row.name.text(), row.pattern.text())))
            for row in page.rows]


def submit(form: RuleForm, action: str | None, tool: str, pattern: str = "") -> None:
    if action is None:
        form.action_combo.setCurrentIndex(-1)
    else:
        form.action_combo.setCurrentIndex(form.action_combo.findData(action))
    form.tool_edit.setText(tool)
    form.pattern_edit.setText(pattern)
    form.save_button.click()


def test_every_grant_is_listed_with_its_source_and_scope(page):
    assert shown(page) == [("delete_note", "from notes", "In: Tidy my notes"), ("workspace_write", "from Built-in", "Always")]
    assert lines(page) == ["1. allow delete_note", "2. allow workspace_write"]  # in one conversation: more specific
    assert page.rows[0].date.text() == f"Given {datetime.fromtimestamp(DELETE.created_at):%Y-%m-%d %H:%M}"
    assert page.rows[0].edit_button is None and page.rows[0].action.property("kind") == "allow"
    assert page.empty.isHidden() and page.remove_all_button.isEnabled()


def test_rules_added_as_the_cli_adds_them_show_in_its_order(qtbot, page, store, monkeypatch, capsys):
    store.add_rule(make_rule("allow", "shell", "git status*"))
    store.add_rule(make_rule("deny", "shell", "rm *"))
    store.add_rule(make_rule("ask", "mcp:notes/*"))
    qtbot.waitUntil(lambda: len(page.rows) == 5)
    assert lines(page) == ["1. allow shell git status*", "2. deny shell rm *", "3. allow delete_note",
                           "4. allow workspace_write", "5. ask mcp:notes/*"]
    assert [row.action.property("kind") for row in page.rows] == ["allow", "deny", "allow", "allow", "ask"]
    assert page.rows[1].scope.isHidden() and page.rows[1].edit_button is not None
    assert page.rows[1].date.text().startswith("Rule added ")

    monkeypatch.setattr(permissions_cli, "_store", lambda: GrantStore(store.path))  # the CLI's numbers are the page's
    assert permissions_cli.run_list(permissions_cli.argparse.Namespace(json=True)) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(r["number"], r["action"], r["tool"], r["pattern"]) for r in listed][:2] == [
        (1, "allow", "shell", "git status*"), (2, "deny", "shell", "rm *")]
    assert [r["number"] for r in listed if r["kind"] == "grant"] == [3, 4]


def test_add_rule_checks_it_and_adds_it(qtbot, page, store):
    page.add_button.click()
    form = page.form
    assert form.isVisible() and form.windowTitle() == "Add rule"
    submit(form, None, "shell", "git log*")
    assert form.isVisible() and "is not an action" in form.problem.text() and form.problem.isVisible()
    submit(form, "deny", "   ")
    assert form.isVisible() and form.problem.text().startswith("A rule needs a tool")
    assert stored_rules(store.path) == []

    form.tool_edit.setText("web_fetch")
    assert "host" in form.pattern_hint.text() and form.pattern_edit.placeholderText() == "*.python.org"
    form.tool_edit.setText("write_file")
    assert "workspace" in form.pattern_hint.text()
    submit(form, "deny", " shell ", "rm -rf*")
    assert not form.isVisible()
    qtbot.waitUntil(lambda: len(page.rows) == 3)
    assert stored_rules(store.path) == [("deny", "shell", "rm -rf*")]
    assert lines(page)[0] == "1. deny shell rm -rf*"


def test_edit_replaces_the_rule(qtbot, page, store):
    store.add_rule(make_rule("allow", "shell", "git status*"))
    qtbot.waitUntil(lambda: len(page.rows) == 3)
    page.rows[0].edit_button.click()
    form = page.form
    assert form.windowTitle() == "Edit rule" and form.save_button.text() == "Save"
    assert (form.action_combo.currentData(), form.tool_edit.text(), form.pattern_edit.text()) == ("allow", "shell", "git status*")
    submit(form, "ask", "shell", "git *")
    qtbot.waitUntil(lambda: lines(page)[0] == "1. ask shell git *")
    assert stored_rules(store.path) == [("ask", "shell", "git *")]
    assert [rule.action for rule in GrantStore(store.path).rules()] == [Action.ASK]

    page.rows[0].edit_button.click()
    page.form.cancel_button.click()  # cancelled: nothing changes
    qtbot.wait(50)
    assert stored_rules(store.path) == [("ask", "shell", "git *")]


def test_remove_takes_one_rule_or_grant_out_of_the_file(qtbot, page, store):
    store.add_rule(make_rule("deny", "web_fetch", "*.example.com"))
    qtbot.waitUntil(lambda: len(page.rows) == 3)
    page.rows[0].remove_button.click()
    qtbot.waitUntil(lambda: len(page.rows) == 2)
    assert stored_rules(store.path) == [] and len(stored_tools(store.path)) == 2

    page.rows[0].remove_button.click()  # the grant in one conversation
    qtbot.waitUntil(lambda: len(page.rows) == 1)
    assert shown(page) == [("workspace_write", "from Built-in", "Always")]
    assert stored_tools(store.path) == ["workspace_write"]
    assert GrantStore(store.path).covering("mcp__notes__delete_note", "mcp:0123456789abcdef", "c-1") is None


def test_remove_all_asks_first_and_then_empties_the_file(qtbot, page, store):
    store.add_rule(make_rule("allow", "shell", "ls*"))
    qtbot.waitUntil(lambda: len(page.rows) == 3)
    box = page.ask_remove_all()
    assert "3 rules and standing permissions" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.wait(50)
    assert len(page.rows) == 3 and len(stored_tools(store.path)) == 2 and len(stored_rules(store.path)) == 1

    page.remove_all_button.click()
    box = page.confirm_box
    next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole).click()
    qtbot.waitUntil(lambda: not page.rows)
    assert stored_tools(store.path) == [] and stored_rules(store.path) == []
    assert page.empty.isVisible() and page.empty.text() == EMPTY
    assert not page.remove_all_button.isEnabled()


def test_a_grant_given_on_another_thread_appears_while_the_page_is_open(qtbot, page, store):
    added = Grant(tool="web_fetch", identity="builtin", shown_name="web_fetch", source_label="Built-in")
    worker = threading.Thread(target=store.add, args=(added,))  # as the approval hook does, on the asyncio loop's thread
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: len(page.rows) == 3)
    assert ("web_fetch", "from Built-in", "Always") in shown(page)


def test_an_empty_store_says_what_happens_without_rules(qtbot, qasync_loop, tmp_path):
    page = PermissionsPage(GrantStore(tmp_path / "none.json"))
    qtbot.addWidget(page)
    assert page.rows == [] and page.empty.text() == EMPTY and not page.empty.isHidden()
    assert "Rules decide first" in page.findChild(type(page.empty), "hint").text()


def test_a_closed_page_ignores_later_grants(qtbot, qasync_loop, store):
    page = PermissionsPage(store)
    page.deleteLater()
    qtbot.waitUntil(lambda: not _alive(page))
    store.add(Grant(tool="web_fetch", identity="builtin"))  # the store still calls the old listener: nothing breaks
    store.add_rule(make_rule("deny", "shell"))
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
    dialog.permissions_page.rows[0].remove_button.click()
    qtbot.waitUntil(lambda: not dialog.permissions_page.rows)
    assert stored_tools(runtime.paths.config_dir / "permissions.json") == []
