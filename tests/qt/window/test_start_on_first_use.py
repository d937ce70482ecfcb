"""What the first message needs starts when the user begins one (app/window_setup.py): an idle window spawns no MCP
server; the composer's first change starts them, and so does opening the settings dialog."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from desktop_copilot.app.window_setup import start_on_first_use
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.mcp.manager import ServerState
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.settings.entry import open_settings

DEMO = Path(__file__).resolve().parents[2] / "support" / "mcp_servers" / "demo_server.py"


def runtime_with_a_configured_server() -> Runtime:
    paths = AppPaths.resolve().ensure()
    config = {"mcpServers": {"notes": {"command": sys.executable, "args": [str(DEMO), "--transport", "stdio"]}}}
    (paths.config_dir / "mcp.json").write_text(json.dumps(config))
    return Runtime(paths, AppConfig.from_environment())


def test_the_first_change_in_the_composer_starts_the_mcp_servers(qtbot, make_window):
    runtime = runtime_with_a_configured_server()
    window = make_window(runtime)
    start_on_first_use(window)
    qtbot.wait(300)
    assert runtime.mcp is None  # idle: nothing started, no server process
    window.composer.edit.insertPlainText("H")
    assert runtime.mcp is not None
    try:
        qtbot.waitUntil(lambda: [s.state for s in runtime.mcp.statuses()] == [ServerState.READY], timeout=40000)
        assert any(tool.name.startswith("notes") or "notes" in str(tool.source) for tool in runtime.mcp.tools())
        manager = runtime.mcp
        window.composer.edit.insertPlainText("i")  # later changes start nothing again
        assert runtime.mcp is manager
    finally:
        runtime.stop_mcp()


def test_opening_the_settings_dialog_starts_them_for_its_mcp_page(qtbot, make_window):
    runtime = runtime_with_a_configured_server()
    window = make_window(runtime)
    assert runtime.mcp is None
    dialog = open_settings(window, "mcp")
    try:
        assert runtime.mcp is not None
        assert dialog.mcp_page.manager is runtime.mcp
    finally:
        dialog.close()
        runtime.stop_mcp()
