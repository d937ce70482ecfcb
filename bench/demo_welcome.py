"""Saves a screenshot of the first-start welcome: no key anywhere, an emulated LM Studio running on a loopback port
(marked Ready), the other local servers pointed at a port where nothing listens.

    xvfb-run -a -s "-screen 0 1280x1000x24" python bench/demo_welcome.py --out /tmp/shots [--dark] [--no-server]

Keys go to an in-memory keyring; app data to a throw-away folder. Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.local_servers import LocalServer
from tests.support.settings_support import DEAD_URL, LOCAL_URL_VARIABLES

LM_STUDIO_MODELS = ["qwen/qwen3-8b", "google/gemma-3-12b", "text-embedding-nomic-embed-text-v1.5"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp"))
    parser.add_argument("--dark", action="store_true", help="in the dark theme")
    parser.add_argument("--no-server", action="store_true", help="no local server running (what most first starts see)")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="demo-welcome-"))
    os.environ["DESKTOP_COPILOT_HOME"] = str(home)
    for provider_id, variable in LOCAL_URL_VARIABLES.items():
        os.environ[variable] = DEAD_URL if provider_id == "ollama" else f"{DEAD_URL}/v1"
    try:
        with nullcontext() if args.no_server else LocalServer("lmstudio", LM_STUDIO_MODELS) as server:
            if server is not None:
                os.environ["LMSTUDIO_BASE_URL"] = server.base_url
            return shoot(args)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def shoot(args: argparse.Namespace) -> int:
    from PySide6.QtWidgets import QApplication

    import qasync  # after PySide6, so that qasync binds to it
    from desktop_copilot.core.bootstrap import build_runtime
    from desktop_copilot.core.keys import keyring_store
    from desktop_copilot.qt.common.theme_switch import install_theme_switch
    from desktop_copilot.qt.settings.welcome import WelcomeDialog
    from tests.support.memory_keyring import MemoryKeyring

    memory = MemoryKeyring()
    keyring_store.default_backend = lambda: memory
    app = QApplication([])
    install_theme_switch(app, "dark" if args.dark else "light")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    runtime = build_runtime(check_keyring=False)
    name = f"welcome{'_dark' if args.dark else ''}{'_no_server' if args.no_server else ''}.png"

    async def steps() -> None:
        welcome = WelcomeDialog(runtime, None, default_id=runtime.config.provider)
        welcome.move(0, 0)
        welcome.show()
        await asyncio.sleep(0.3)
        await welcome.tasks.wait()
        welcome.adjustSize()
        await asyncio.sleep(0.3)
        args.out.mkdir(parents=True, exist_ok=True)
        welcome.grab().save(str(args.out / name))
        print(f"saved {args.out / name}")
        welcome.reject()
        await runtime.aclose()

    with loop:
        loop.run_until_complete(steps())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
