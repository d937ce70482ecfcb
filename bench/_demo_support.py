"""Shared by the screenshot demos: a real window on a fresh app home whose store a seed function filled."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def demo_options(width: int, height: int, extra: Callable[[argparse.ArgumentParser], Any] | None = None) -> argparse.Namespace:
    """--out (the folder, created), --width and --height of the window: what every screenshot demo takes; `extra` adds
    a demo's own options."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--width", type=int, default=width)
    parser.add_argument("--height", type=int, default=height)
    if extra is not None:
        extra(parser)
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    return options


def show_at(window, options: argparse.Namespace) -> None:
    """Show the window at the top left of the screen, at the size the options ask for."""
    window.resize(options.width, options.height)
    window.move(0, 0)
    window.show()


def seeded_window(home_prefix: str, seed: Callable[[Any], Any]):
    """(window, loop, store, what `seed(store)` returned), the window not shown yet."""
    os.environ["DESKTOP_COPILOT_HOME"] = tempfile.mkdtemp(prefix=home_prefix)
    from desktop_copilot.app.gui import create_application
    from desktop_copilot.app.window_setup import create_event_loop, create_main_window
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.storage.store import Store

    loop = create_event_loop(create_application([]))
    paths = AppPaths.resolve().ensure()
    store = Store(paths.database)
    seeded = seed(store)
    window = create_main_window(Runtime(paths, AppConfig.from_environment()), store)
    return window, loop, store, seeded


def run_demo(window, loop, store) -> int:
    """Run until the demo's steps close the window, then release the store and the loop."""
    from desktop_copilot.app.window_setup import run_until_closed

    try:
        run_until_closed(window, loop)
    finally:
        store.close()
        loop.close()
    return 0


def run_scenario(window, loop, store, scenario, loopback) -> int:
    """`run_demo` while the coroutine `scenario()` drives the window; the scenario's task and the loopback server are
    stopped afterwards."""
    import asyncio

    task = asyncio.ensure_future(scenario())
    try:
        return run_demo(window, loop, store)
    finally:
        task.cancel()
        loopback.stop()


async def ask_in_new_chat(window, question: str, until: Callable[[], Any], timeout_s: float) -> bool:
    """Open a new chat, send `question` as the user would (the composer), then wait until `until()` holds; False when
    it did not within `timeout_s`."""
    import asyncio

    window.history.new_conversation()
    window.composer.set_text(question)
    window.composer.submit()
    for _ in range(int(timeout_s / 0.05)):
        await asyncio.sleep(0.05)
        if until():
            return True
    return False

