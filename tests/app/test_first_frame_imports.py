"""Guard: nothing heavy is imported before the window's first frame is painted (issue 13). The real entry point runs
in a fresh process offscreen; at the first Paint of the main window an event filter lists the modules loaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

FORBIDDEN_BEFORE_FIRST_FRAME = (
    # provider SDKs and their HTTP clients
    "anthropic", "openai", "google.genai", "ollama", "httpx", "httpx2",
    # Markdown, code highlighting, formulas
    "markdown_it", "pygments", "ziamath",
    # the MCP SDK
    "mcp", "mcp_types",
    # what the working window loads right after the frame
    "pydantic", "keyring", "sqlite3", "qasync",
    "desktop_copilot.core.conversation.models", "desktop_copilot.core.storage", "desktop_copilot.core.runtime",
    "desktop_copilot.qt.transcript", "desktop_copilot.qt.history",
)

PROBE = textwrap.dedent(
    """
    import json, os, sys
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(["desktop-copilot"])

    class FirstFrame(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint and isinstance(watched, QMainWindow):
                print(json.dumps({"window": type(watched).__name__, "modules": sorted(sys.modules)}), flush=True)
                os._exit(0)
            return False

    probe = FirstFrame()
    app.installEventFilter(probe)
    for name in os.environ.get("PRELOAD", "").split():  # the test that the guard can fail
        __import__(name)
    from desktop_copilot.app.cli import main
    main(sys.argv[1:])
    print(json.dumps({"error": "the window closed without painting"}))
    """
)


def first_frame_modules(tmp_path: Path, *args: str, settings: dict | None = None, preload: str = "") -> dict:
    home = tmp_path / "home"
    if settings is not None:
        (home / "config").mkdir(parents=True)
        (home / "config" / "settings.json").write_text(json.dumps(settings))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_COPILOT_HOME": str(home), "ANTHROPIC_API_KEY": "sk-ant-test",
           "PRELOAD": preload}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).parents[2])
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stderr[-3000:]
    return json.loads(lines[-1])


def loaded(modules: list[str], name: str) -> bool:
    return name in modules or any(module.startswith(name + ".") for module in modules)


def test_nothing_heavy_is_imported_before_the_first_frame(tmp_path):
    seen = first_frame_modules(tmp_path)
    assert seen.get("window") == "MainWindow", seen
    early = [name for name in FORBIDDEN_BEFORE_FIRST_FRAME if loaded(seen["modules"], name)]
    assert early == [], f"imported before the first frame: {early}"


def test_the_guard_sees_a_module_loaded_before_the_first_frame(tmp_path):
    """The probe is not blind: a module imported before the entry point is reported, beside the frame's own modules
    (with a dark theme, Chinese and --debug, which take other paths to the first frame)."""
    modules = first_frame_modules(tmp_path, "--debug", settings={"theme": "dark", "language": "zh_CN"}, preload="pygments")["modules"]
    assert loaded(modules, "desktop_copilot.qt.window.startup_frame")
    assert [name for name in FORBIDDEN_BEFORE_FIRST_FRAME if loaded(modules, name)] == ["pygments"]
