"""Settings ▸ Tools and the shell: its row is there with its switch off and says it asks every time; switching it on
(with a workspace folder) is saved as `enabled_tools` and offers it; switching it off again takes it out."""

from __future__ import annotations

from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.tools.builtin import builtin_registry
from desktop_copilot.qt.settings.tools_page import ToolsPage
from tests.qt.settings.test_tools_page import app_window, press_ok, saved  # noqa: F401 - app_window is a fixture
from tests.support.settings_support import open_dialog


def test_the_shell_row_is_off_and_asks_every_time(qtbot, qasync_loop):
    page = ToolsPage(builtin_registry().all(), set(), Settings())
    qtbot.addWidget(page)
    row = page.rows["shell"]
    assert not row.switch.isChecked() and row.risk.text() == "Asks every time"
    assert "asks before every call" in row.risk.toolTip()
    assert all(other.switch.isChecked() for name, other in page.rows.items() if name != "shell")
    assert page.switched_off() == set() and page.edits()["enabled_tools"] == set()  # off by default is not "switched off"

    kept = ToolsPage(builtin_registry().all(), set(), Settings(enabled_tools={"shell", "gone_tool"}))
    qtbot.addWidget(kept)
    assert kept.rows["shell"].switch.isChecked()
    kept.rows["shell"].switch.click()
    assert kept.edits()["enabled_tools"] == {"gone_tool"}  # a tool not registered now keeps its choice


def test_switching_the_shell_on_and_off_is_saved_and_used(qtbot, app_window, tmp_path):  # noqa: F811 - the fixture
    window, runtime = app_window()
    assert "shell" in runtime.switched_off()
    dialog = open_dialog(qtbot, window)
    dialog.show_page("tools")
    page = dialog.tools_page
    row = page.rows["shell"]
    assert not row.switch.isChecked() and row.state.text() == "Needs a workspace folder"
    page.workspace.set_folder(str(tmp_path))
    assert row.state.text() == "Switched off"
    row.switch.click()
    assert row.state.text() == "Offered to Claude"
    press_ok(qtbot, dialog)
    assert saved()["enabled_tools"] == ["shell"] and "shell" not in saved()["disabled_tools"]
    assert runtime.settings.enabled_tools == {"shell"} and "shell" not in runtime.switched_off()

    dialog = open_dialog(qtbot, window)
    row = dialog.tools_page.rows["shell"]
    assert row.switch.isChecked()
    row.switch.click()
    press_ok(qtbot, dialog)
    assert saved()["enabled_tools"] == [] and "shell" not in saved()["disabled_tools"]
    assert "shell" in runtime.switched_off()
