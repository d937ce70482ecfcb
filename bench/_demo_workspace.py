"""Shared by the tool screenshot demos (shell output, undo file changes, the Tools menu): a real window on a fresh app
home whose config folder holds the demo's settings.json, permissions.json and mcp.json, its model answered by a
loopback Anthropic server."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.loopback import LoopbackServer


def workspace_folder(prefix: str, files: dict[str, str]) -> Path:
    """A temporary folder holding `files` (relative path -> text)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def allow_rules(*rules: tuple[str, str]) -> dict:
    """permissions.json allowing each (tool, pattern)."""
    return {"version": 2, "rules": [{"tool": tool, "action": "allow", "pattern": pattern} for tool, pattern in rules],
            "grants": []}


def configured_window(home_prefix: str, loopback: LoopbackServer, *, settings: dict | None = None,
                      permissions: dict | None = None, mcp: dict | None = None,
                      seed: Callable[[Any], Any] | None = None):
    """(window, loop, store, runtime, what `seed(store)` returned), the window not shown yet: a new app home whose
    config folder holds `settings` (settings.json), `permissions` (permissions.json) and `mcp` (mcp.json), read as
    the app reads them; the Anthropic provider points at `loopback`."""
    home = Path(tempfile.mkdtemp(prefix=home_prefix))
    os.environ.update({"DESKTOP_COPILOT_HOME": str(home), "ANTHROPIC_API_KEY": "sk-ant-demo",
                       "ANTHROPIC_BASE_URL": loopback.url})
    from desktop_copilot.app.gui import create_application
    from desktop_copilot.app.window_setup import create_event_loop, create_main_window
    from desktop_copilot.core.approval.grants import GrantStore
    from desktop_copilot.core.bootstrap import PERMISSIONS_FILE
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.config.settings import SettingsFile
    from desktop_copilot.core.mcp.config_file import mcp_json_path
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.storage.store import Store

    loop = create_event_loop(create_application([]))
    paths = AppPaths.resolve().ensure()
    for data, path in ((settings, paths.settings_file), (permissions, paths.config_dir / PERMISSIONS_FILE),
                       (mcp, mcp_json_path(paths))):
        if data is not None:
            path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    store = Store(paths.database)
    seeded = seed(store) if seed is not None else None
    runtime = Runtime(paths, AppConfig.from_environment())  # the environment's keys: no keyring is touched
    runtime.settings_file = SettingsFile(paths.settings_file)
    runtime.settings = runtime.settings_file.load()
    runtime.switched_off_tools = set(runtime.settings.disabled_tools)
    runtime.grants = GrantStore(paths.config_dir / PERMISSIONS_FILE)
    window = create_main_window(runtime, store)
    return window, loop, store, runtime, seeded


def seed_older(store) -> None:
    """Two earlier conversations, so the sidebar is not empty."""
    from tests.support.history_seed import seed_conversation

    answer = "Three things: the changelog, the Windows installer and the fault suite."
    seed_conversation(store, "Release checklist", [("What is left before 0.3?", answer)], age_days=1)
    seed_conversation(store, "Regex for ISO dates", [("A regex for 2024-05-17?", r"`\d{4}-\d{2}-\d{2}`")], age_days=3)
