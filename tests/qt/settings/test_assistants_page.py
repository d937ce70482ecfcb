"""Settings ▸ Assistants with real widgets: built-in assistants are read-only and can be duplicated; a user
assistant is edited (name, prompt, provider and model, thinking, tools) and saved to assistants.json at once."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from desktop_copilot.core.config.assistants import ALL_TOOLS, Assistant, AssistantLibrary
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.settings.assistants_page import TOOL_NAME_ROLE, AssistantsPage


@pytest.fixture
def runtime() -> Runtime:
    return Runtime(AppPaths.resolve().ensure(), AppConfig())


@pytest.fixture
def page(qtbot, runtime) -> AssistantsPage:
    widget = AssistantsPage(runtime)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def _file(runtime: Runtime) -> dict:
    return json.loads((runtime.paths.config_dir / "assistants.json").read_text(encoding="utf-8"))


def _tick(page: AssistantsPage, names: set[str]) -> None:
    for row in range(page.tool_list.count()):
        item = page.tool_list.item(row)
        item.setCheckState(Qt.CheckState.Checked if item.data(TOOL_NAME_ROLE) in names else Qt.CheckState.Unchecked)


def _ticked(page: AssistantsPage) -> set[str]:
    return {page.tool_list.item(row).data(TOOL_NAME_ROLE) for row in range(page.tool_list.count())
            if page.tool_list.item(row).checkState() == Qt.CheckState.Checked}


def test_built_in_assistants_are_listed_and_read_only(page):
    names = [page.list.item(row).text() for row in range(page.list.count())]
    assert names[0].startswith("Default") and any(n.startswith("Translator 中英互译") for n in names)
    assert page.select("translator")
    assert page.system_edit.toPlainText().startswith("You are a translator")
    assert page.system_edit.isReadOnly() and not page.name_edit.isEnabled() and not page.delete_button.isEnabled()
    assert page.duplicate_button.isEnabled() and page.builtin_note.isVisible()
    assert page.thinking_box.currentData() == "off" and page.some_tools_radio.isChecked() and _ticked(page) == set()
    page.name_edit.setText("Changed anyway")  # a disabled field cannot be typed in; even set, it is never saved
    assert not page.save_button.isEnabled() and page.save()


def test_duplicate_edit_and_save_a_user_assistant(qtbot, page, runtime):
    assert page.select("coder")
    qtbot.mouseClick(page.duplicate_button, Qt.MouseButton.LeftButton)
    copy = page.current()
    assert copy is not None and copy.name == "Coder (copy)" and not copy.builtin
    assert page.name_edit.isEnabled() and not page.system_edit.isReadOnly() and page.delete_button.isEnabled()
    assert page.list.currentItem().text() == "Coder (copy)"

    page.name_edit.setText("Reviewer 审阅")
    page.system_edit.setPlainText("Review the code you are given.\nBe specific.")
    page.provider_box.setCurrentIndex(page.provider_box.findData("deepseek"))
    assert page.model_box.isEnabled() and page.model_box.currentText() == ""  # another provider's model is cleared
    assert page.model_box.findText("deepseek-chat") >= 0  # the provider's default is offered
    page.model_box.setEditText("deepseek-reasoner")
    page.thinking_box.setCurrentIndex(page.thinking_box.findData("on"))
    assert page.budget_spin.isEnabled()
    page.budget_spin.setValue(2048)
    page.some_tools_radio.setChecked(True)
    assert page.tool_list.isEnabled()
    _tick(page, {"web_fetch", "read_file"})
    assert page.save_button.isEnabled()
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)

    assert page.status.text() == "Saved." and not page.save_button.isEnabled()
    assert page.list.currentItem().text() == "Reviewer 审阅"
    (entry,) = _file(runtime)["assistants"]
    assert entry["name"] == "Reviewer 审阅" and entry["system"] == "Review the code you are given.\nBe specific."
    assert (entry["provider"], entry["model"], entry["thinking"], entry["thinking_budget"]) == ("deepseek", "deepseek-reasoner", True, 2048)
    assert entry["tools"] == ["read_file", "web_fetch"]
    saved = AssistantLibrary.in_folder(runtime.paths.config_dir).get(copy.id)
    assert saved.new_conversation().tools == ["read_file", "web_fetch"]


def test_an_unsaved_change_is_saved_when_moving_to_another_assistant(page, runtime):
    added = page.add()
    assert added is not None and page.current().id == added.id and page.name_edit.text() == "New assistant"
    page.name_edit.setText("Kept")
    page.all_tools_radio.setChecked(True)
    assert page.select("writer")
    assert [entry["name"] for entry in _file(runtime)["assistants"]] == ["Kept"]
    assert _file(runtime)["assistants"][0]["tools"] == ALL_TOOLS


def test_a_bad_value_is_refused_in_words_and_keeps_the_assistant_selected(page, runtime):
    added = page.add()
    page.name_edit.setText("   ")
    assert not page.save()
    assert page.status.text() == "Not saved: The name cannot be empty."
    assert not page.select("writer") and page.current().id == added.id  # the change is not lost by moving away
    assert [entry["name"] for entry in _file(runtime)["assistants"]] == ["New assistant"]
    page.revert_button.click()
    assert page.name_edit.text() == "New assistant" and not page.is_dirty()


def test_delete_removes_only_a_user_assistant(qtbot, page, runtime):
    mine = page.add()
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    assert _file(runtime)["assistants"] == []
    assert all(page.list.item(row).data(Qt.ItemDataRole.UserRole) != mine.id for row in range(page.list.count()))
    assert "keep its settings" in page.status.text()
    assert page.select("default") and not page.delete()


def test_a_chosen_tool_that_is_not_running_now_is_kept(qtbot, runtime):
    library = AssistantLibrary.in_folder(runtime.paths.config_dir)
    mine = library.add(Assistant(name="MCP user", tools=frozenset({"mcp__files__read", "web_fetch"})))
    page = AssistantsPage(runtime, library)
    qtbot.addWidget(page)
    assert page.select(mine.id)
    texts = [page.tool_list.item(row).text() for row in range(page.tool_list.count())]
    assert "mcp__files__read (not available now)" in texts
    assert _ticked(page) == {"mcp__files__read", "web_fetch"}
    registered = {tool.name for tool in runtime.registry.all()}
    assert registered <= {page.tool_list.item(row).data(TOOL_NAME_ROLE) for row in range(page.tool_list.count())}
    page.system_edit.setPlainText("Read files through the server.")
    assert page.save()
    assert set(AssistantLibrary.in_folder(runtime.paths.config_dir).get(mine.id).tools) == {"mcp__files__read", "web_fetch"}


def test_a_damaged_file_is_said_on_the_page(qtbot, runtime):
    (runtime.paths.config_dir / "assistants.json").write_text("[1, 2", encoding="utf-8")
    page = AssistantsPage(runtime)
    qtbot.addWidget(page)
    assert "was kept as" in page.status.text() and page.list.count() == 4
