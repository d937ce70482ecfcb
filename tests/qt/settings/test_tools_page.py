"""Settings ▸ Tools: each tool's risk and source on its row, the workspace folder (Choose… / Clear) and the tool
result limit, saved to settings.json on OK like the other settings and used by the runtime."""

from __future__ import annotations

import json
import os
from pathlib import Path

import mcp_types as types
import pytest

from desktop_copilot.core.config.app_config import DEFAULT_TOOL_RESULT_LIMIT
from desktop_copilot.core.mcp.tools import McpTool
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.tools.tavily import TavilySearch
from desktop_copilot.core.tools.workspace import ReadFile, WriteFile
from desktop_copilot.qt.settings.tools_page import NO_WORKSPACE, ToolsPage
from tests.support.memory_keyring import use_memory_keyring
from tests.support.settings_support import open_dialog


async def _never_called(name, arguments, timeout):
    raise AssertionError("the settings page must not run a tool")


def mcp_tool(name: str, annotations: types.ToolAnnotations | None) -> McpTool:
    tool = types.Tool(name=name, description=f"{name} from the notes server", input_schema={"type": "object"},
                      annotations=annotations)
    return McpTool("notes", "mcp:0123456789abcdef", tool, _never_called)


def home() -> Path:
    return Path(os.environ["DESKTOP_COPILOT_HOME"])


def saved() -> dict:
    return json.loads((home() / "config" / "settings.json").read_text())


@pytest.fixture
def app_window(make_window, monkeypatch):
    from desktop_copilot.core.bootstrap import build_runtime

    use_memory_keyring(monkeypatch)

    def make():
        runtime = build_runtime(check_keyring=False)
        return make_window(runtime), runtime

    return make


def press_ok(qtbot, dialog) -> None:
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)


def choose_in_dialog(qtbot, page, folder: Path) -> None:
    """Picks `folder` in the real folder dialog that Choose… opens, as a user would, and accepts it."""
    page.workspace.choose_button.click()
    chooser = page.workspace.folder_dialog
    qtbot.waitUntil(chooser.isVisible)
    chooser.setDirectory(str(folder.parent))
    chooser.selectFile(str(folder))
    chooser.accept()
    qtbot.waitUntil(lambda: not chooser.isVisible())


def test_rows_show_each_tools_risk_and_where_it_comes_from(qtbot, qasync_loop):
    tools = [TavilySearch(), ReadFile(), WriteFile(), mcp_tool("read_note", types.ToolAnnotations(read_only_hint=True)),
             mcp_tool("delete_note", types.ToolAnnotations(destructive_hint=True))]
    page = ToolsPage(tools, set(), Settings())
    qtbot.addWidget(page)
    rows = page.rows
    assert [(r.name.text(), r.risk.text(), r.source.text()) for r in rows.values()] == [
        ("tavily_search", "Read-only", ""), ("read_file", "Read-only", ""), ("write_file", "Asks first", ""),
        ("read_note", "Read-only", "from notes"), ("delete_note", "Asks first", "from notes"),
    ]
    assert rows["mcp__notes__delete_note"].risk.toolTip().startswith("Destructive")
    assert rows["write_file"].risk.toolTip().startswith("Changes files")
    assert rows["write_file"].state.text() == rows["read_file"].state.text() == "Needs a workspace folder"
    assert rows["mcp__notes__read_note"].state.text() == "Offered to Claude"
    page.workspace.set_folder(str(Path.cwd()))
    assert rows["write_file"].state.text() == "Offered to Claude" and rows["write_file"].note.isHidden()


def test_choosing_a_workspace_folder_is_saved_on_ok_and_clear_removes_it(qtbot, app_window, tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    window, runtime = app_window()
    dialog = open_dialog(qtbot, window)
    dialog.show_page("tools")
    page = dialog.tools_page
    assert page.workspace.folder_label.text() == NO_WORKSPACE and not page.workspace.clear_button.isEnabled()
    assert page.rows["list_files"].state.text() == "Needs a workspace folder"

    choose_in_dialog(qtbot, page, folder)
    assert page.workspace.folder_label.text() == str(folder.resolve())
    assert page.rows["list_files"].state.text() == "Offered to Claude"
    assert not (home() / "config" / "settings.json").exists() or saved().get("workspace_folder") is None  # not before OK
    press_ok(qtbot, dialog)
    assert saved()["workspace_folder"] == str(folder.resolve())
    assert runtime.workspace() == folder.resolve()

    dialog = open_dialog(qtbot, window)
    page = dialog.tools_page
    assert page.workspace.folder_label.text() == str(folder.resolve())
    page.workspace.clear_button.click()
    assert page.workspace.folder_label.text() == NO_WORKSPACE
    press_ok(qtbot, dialog)
    assert saved()["workspace_folder"] is None and runtime.workspace() is None


def test_cancel_keeps_the_saved_folder(qtbot, app_window, tmp_path):
    window, runtime = app_window()
    dialog = open_dialog(qtbot, window)
    choose_in_dialog(qtbot, dialog.tools_page, tmp_path)
    dialog.cancel_button.click()
    assert (runtime.settings or Settings()).workspace_folder is None
    assert runtime.workspace() is None


def test_a_folder_that_is_gone_says_so(qtbot, qasync_loop, tmp_path):
    page = ToolsPage([WriteFile()], set(), Settings(workspace_folder=str(tmp_path / "gone")))
    qtbot.addWidget(page)
    assert "does not exist" in page.workspace.folder_note.text()
    assert page.rows["write_file"].state.text() == "Needs a workspace folder"


def test_the_tool_result_limit_is_saved_on_ok(qtbot, app_window):
    window, runtime = app_window()
    dialog = open_dialog(qtbot, window)
    limit = dialog.tools_page.workspace.result_limit
    assert limit.value() == DEFAULT_TOOL_RESULT_LIMIT == 100_000
    limit.setValue(25_000)
    press_ok(qtbot, dialog)
    assert saved()["tool_result_limit"] == 25_000 and runtime.settings.tool_result_limit == 25_000
