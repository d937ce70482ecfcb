"""Saves a screenshot of Settings ▸ Providers: keys in a real Secret Service, one key from the environment, two
providers switched off, an emulated LM Studio running on this computer (the other local servers at their usual ports,
normally not running) after Test, and an endpoint the user added (a loopback gateway).

    xvfb-run -a -s "-screen 0 1280x1400x24" dbus-run-session -- python bench/demo_settings_providers.py \\
        --out docs/screenshots

Inside `dbus-run-session` it starts its own gnome-keyring with a throw-away HOME (killed at the end), so the
demo keys never reach your keyring; elsewhere it uses an in-memory keyring. Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.local_servers import LocalServer
from tests.support.loopback import LoopbackServer, json_response

KEYS = {"anthropic": "sk-ant-api03-demo-value-000000009f3a", "deepseek": "sk-demo-deepseek-value-00000007c21"}
LM_STUDIO_MODELS = ["qwen2.5-7b-instruct", "llama-3.2-3b-instruct", "text-embedding-nomic-embed-text-v1.5"]
GATEWAY_MODELS = ["team-gpt-4.1", "team-claude-sonnet"]


def start_gnome_keyring(home: str) -> subprocess.Popen | None:
    """An unlocked gnome-keyring on this D-Bus session with `home` as HOME, or None (no session, no daemon)."""
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS") or not shutil.which("gnome-keyring-daemon"):
        return None
    os.makedirs(home, exist_ok=True)
    env = {**os.environ, "HOME": home, "XDG_DATA_HOME": f"{home}/.local/share"}
    daemon = subprocess.Popen(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    daemon.stdin.write(b"demo")
    daemon.stdin.close()
    for _ in range(50):
        probe = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
                                "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                                "string:org.freedesktop.secrets"], capture_output=True, text=True, check=False)
        if "boolean true" in probe.stdout:
            return daemon
        time.sleep(0.1)
    daemon.kill()
    return None


def seed(home: Path, lm_studio_url: str, gateway_url: str) -> None:
    from desktop_copilot.core.config.settings import CustomProvider, Settings, SettingsFile, models_cache_now

    settings = Settings(
        disabled_providers={"groq", "xai"},
        base_urls={"lmstudio": lm_studio_url},
        custom_providers=[CustomProvider(id="gateway", label="Team gateway", base_url=gateway_url,
                                         default_model=GATEWAY_MODELS[0], headers={"X-Title": "Desktop Copilot"})],
        provider_models={"deepseek": models_cache_now(["deepseek-chat", "deepseek-reasoner"])},
    )
    SettingsFile(home / "config" / "settings.json").save(settings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--scrolled", action="store_true", help="scrolled to the end of the page")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="demo-providers-"))
    daemon = start_gnome_keyring(str(home / "keyring-home"))
    os.environ["DESKTOP_COPILOT_HOME"] = str(home)
    os.environ["OPENAI_API_KEY"] = "sk-demo-openai-from-environment-5e1b"
    try:
        with LoopbackServer() as server, LocalServer("lmstudio", LM_STUDIO_MODELS) as lm_studio:
            server.set_handler("/v1/models", lambda _r: json_response({"object": "list", "data": [
                {"id": i, "object": "model", "owned_by": "organization_owner"} for i in GATEWAY_MODELS]}))
            seed(home, lm_studio.base_url, f"{server.url}/v1")
            return shoot(args.out, daemon is not None, args.scrolled)
    finally:
        if daemon is not None:
            daemon.kill()
            daemon.wait()
        shutil.rmtree(home, ignore_errors=True)


def shoot(out: Path, real_keyring: bool, scrolled: bool) -> int:
    from PySide6.QtWidgets import QApplication

    import qasync  # after PySide6, so that qasync binds to it
    from desktop_copilot.core.keys import keyring_store
    from desktop_copilot.core.bootstrap import build_runtime
    from desktop_copilot.qt.settings.dialog import SettingsDialog

    if not real_keyring:
        from tests.support.memory_keyring import MemoryKeyring

        memory = MemoryKeyring()
        keyring_store.default_backend = lambda: memory
    app = QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    runtime = build_runtime(check_keyring=False)
    for name, value in KEYS.items():
        runtime.key_store.set(name, value)

    async def steps() -> None:
        dialog = SettingsDialog(runtime)
        dialog.resize(840, 900 if scrolled else 1400)
        dialog.show()
        await asyncio.sleep(0.3)
        await dialog.providers_page.tasks.wait()
        dialog.show_page("providers")
        page = dialog.providers_page
        page.rows["lmstudio"].expand(True)
        await page.test("lmstudio")
        await page.servers.tasks.wait()
        await asyncio.sleep(0.3)
        if scrolled:
            dialog.stack.currentWidget().ensureWidgetVisible(page.add_button)
            await asyncio.sleep(0.1)
        out.mkdir(parents=True, exist_ok=True)
        dialog.grab().save(str(out / "settings_providers.png"))
        print(f"saved {out / 'settings_providers.png'}")
        dialog.reject()

    with loop:
        loop.run_until_complete(steps())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
