"""The composer's Tools button in the real window: a stdio MCP server ("notes", tests/support/mcp_servers/demo_server.py,
configured in mcp.json) has joined the built-in tools, web_fetch is switched off for this conversation (the button
reads "Tools 8/9"), and the menu is open above the button, listing the built-ins and the server's tools with a check
box each. The server's tools that exist only for the tests are switched off in Settings, so they are not listed. Saves `tools_menu.png`.

    Xvfb :97 & DISPLAY=:97 python bench/demo_tools_menu.py --out docs/screenshots

The menu is a top-level window of its own, so the screen region of the window (and the menu) is captured.
Not part of the test run.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtGui import QGuiApplication  # noqa: E402

from bench._demo_support import demo_options, run_demo, show_at  # noqa: E402
from bench._demo_workspace import configured_window, seed_older, workspace_folder  # noqa: E402
from tests.support.loopback import LoopbackServer  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SERVER = REPO / "tests" / "support" / "mcp_servers" / "demo_server.py"
TEST_ONLY = ["slow", "crash", "image", "structured", "fail", "blob", "boom", "no_hints", "open_world", "env_check", "pid",
             "links", "add_tool"]
"""The demo server's tools that exist for the tests, switched off in Settings (settings.json `disabled_tools`), so the
menu shows what a notes server would offer: read_note and delete_note."""
MCP = {"mcpServers": {"notes": {"command": sys.executable, "args": [str(SERVER), "--transport", "stdio"]}}}


def main() -> int:
    options = demo_options(1100, 760)
    loopback = LoopbackServer().start()  # nothing is sent: the provider only needs somewhere to point
    os.environ["TAVILY_API_KEY"] = "tvly-demo"  # with a key and a workspace folder every tool listed is really offered
    workspace = workspace_folder("dc-tools-workspace-", {"README.md": "# Notes\n"})
    window, loop, store, runtime, _ = configured_window(
        "dc-tools-menu-", loopback, mcp=MCP, seed=seed_older,
        settings={"workspace_folder": str(workspace), "disabled_tools": [f"mcp__notes__{name}" for name in TEST_ONLY]})
    show_at(window, options)
    from desktop_copilot.qt.settings.entry import start_mcp_servers

    async def scenario() -> None:
        await asyncio.sleep(0.5)
        start_mcp_servers(window)  # what the window does when the user starts typing
        await runtime.mcp.wait_ready(30)
        print("MCP servers:", [(status.name, status.state.value) for status in runtime.mcp.statuses()], flush=True)
        await asyncio.sleep(0.3)
        tools = window.tools_menu
        tools.switch("web_fetch", False)
        print("button:", tools.button.text(), flush=True)
        await asyncio.sleep(0.3)  # the wider button is laid out before the menu is placed above it, as for a click
        menu = tools.open()
        await asyncio.sleep(0.6)
        shown = window.frameGeometry().united(menu.geometry())
        path = options.out / "tools_menu.png"
        QGuiApplication.primaryScreen().grabWindow(0, shown.x(), shown.y(), shown.width(), shown.height()).save(str(path))
        print("saved", path, shown, flush=True)
        menu.close()
        window.close()

    task = asyncio.ensure_future(scenario())
    try:
        return run_demo(window, loop, store)
    finally:
        task.cancel()
        if runtime.mcp is not None:
            runtime.mcp.stop()
        loopback.stop()


if __name__ == "__main__":
    sys.exit(main())
