"""Starts the real window on a data folder where the database cannot be opened for writing and saves a screenshot after
a conversation with the loopback Anthropic server: the lasting banner says the conversations are kept in memory, that
File ▸ Export saves them, and what to do; the conversations saved there before it became read-only are listed.

    Xvfb :95 -screen 0 1600x1000x24 & DISPLAY=:95 python bench/demo_readonly_folder.py --out docs/screenshots

The data folder is a tmpfs mounted for the demo, where two conversations are saved before it is made read-only (root on
Linux: permissions do not stop root, a read-only file system does); where mounting is not allowed, a regular file stands
where the folder goes instead (nothing saved before, so none is listed).
Saves `readonly_data_folder.png`. Not part of the test run.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._demo_support import demo_options, run_scenario, show_at  # noqa: E402
from tests.support.loopback import LoopbackServer, anthropic_text_reply, sse_response  # noqa: E402

PROMPT = "Is the typhoon signal still up in Hong Kong? Should I go to the office?"
ANSWER = """The Hong Kong Observatory keeps **Signal No. 8** up until at least **noon**; it will then consider a lower one.

- Offices and schools stay closed while Signal 8 is up; stay indoors and away from windows.
- Public transport resumes in stages about two hours after it is lowered.

So: work from home this morning, and check the Observatory again at 11:30."""


def unusable_data_folder(folder: Path) -> bool:
    """Mounts a file system on `folder`, saves two conversations there and makes it read-only (True); else leaves a
    file where it goes (False)."""
    folder.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)],
                             capture_output=True).returncode == 0
    if not mounted:
        folder.rmdir()
        folder.write_text("a file where the data folder goes")
        return False
    from desktop_copilot.core.conversation.models import Conversation, Message
    from desktop_copilot.core.storage.store import Store

    store = Store(folder / "conversations.sqlite3")
    for title, question in (("Dim sum near Central", "Where can I get good dim sum near Central?"),
                            ("Ferry to Lamma", "When is the last ferry to Lamma Island?")):
        conversation = Conversation(title=title, messages=[Message.user(question)])
        store.save_conversation(conversation)
        store.save_message(conversation.id, 0, conversation.messages[0])
    store.close()
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
    return True


def main() -> int:
    options = demo_options(1200, 760)
    loopback = LoopbackServer().start()
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply(ANSWER, pieces=30), delay=0.02))
    home = Path(tempfile.mkdtemp(prefix="dc-readonly-"))
    os.environ.update({"ANTHROPIC_API_KEY": "sk-ant-demo", "ANTHROPIC_BASE_URL": loopback.url,
                       "DESKTOP_COPILOT_HOME": str(home)})
    mounted = unusable_data_folder(home / "data")
    from desktop_copilot.app.gui import create_application
    from desktop_copilot.app.window_setup import create_event_loop, create_main_window
    from desktop_copilot.core.bootstrap import open_store
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.runtime import Runtime

    loop = create_event_loop(create_application([]))
    paths = AppPaths.resolve().ensure()
    store = open_store(paths)
    print("store:", store.unopened, flush=True)
    window = create_main_window(Runtime(paths, AppConfig.from_environment()), store)
    show_at(window, options)

    async def scenario() -> None:
        await asyncio.sleep(0.8)
        window.history.new_conversation()  # the newest saved one opened at start: it stays listed
        window.composer.set_text(PROMPT)
        window.composer.submit()
        for _ in range(200):
            await asyncio.sleep(0.05)
            if not window.controller.busy and len(window.controller.session.conversation.messages) > 1:
                break
        await asyncio.sleep(0.8)
        path = options.out / "readonly_data_folder.png"
        window.grab().save(str(path))
        print("saved", path, flush=True)
        window.close()

    try:
        return run_scenario(window, loop, store, scenario, loopback)
    finally:
        if mounted:
            subprocess.run(["umount", str(home / "data")], check=False)


if __name__ == "__main__":
    sys.exit(main())
