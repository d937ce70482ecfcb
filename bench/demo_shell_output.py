"""The shell tool in the real window: the model (a loopback Anthropic server) runs the workspace's build script, which
a permission rule allows (`allow shell "python3 build.py*"`), and a screenshot is saved while the command still runs,
its card showing the live Output section as the lines come.

    Xvfb :97 & DISPLAY=:97 python bench/demo_shell_output.py --out docs/screenshots

Not part of the test run.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._demo_support import ask_in_new_chat, demo_options, run_scenario, show_at  # noqa: E402
from bench._demo_workspace import allow_rules, configured_window, seed_older, workspace_folder  # noqa: E402
from tests.support.loopback import LoopbackServer, anthropic_text_reply, anthropic_tool_reply, sse_response  # noqa: E402

BUILD = '''"""Builds the notes app (a demo: it only says what it would do)."""
import time

STEPS = ["compiling notes/core.py", "compiling notes/store.py", "compiling notes/ui.py", "bundling icons (24 files)",
         "running unit tests (138 passed)", "checking types", "writing dist/notes-0.3.0.whl", "signing the wheel"]
for number, step in enumerate(STEPS, 1):
    print(f"step {number}/{len(STEPS)}: {step} …", flush=True)
    time.sleep(0.45)
print("build finished: dist/notes-0.3.0.whl", flush=True)
'''
FILES = {"build.py": BUILD, "README.md": "# Notes\n\nA small notes app.\n", "notes/core.py": "", "notes/store.py": "",
         "notes/ui.py": ""}
COMMAND = "python3 build.py --release"
QUESTION = "Build a release of the notes app and tell me if anything fails."
SHOWN_WHEN = "step 6/8"
"""The screenshot is taken once the card shows this line (two steps before the end)."""


def script(loopback: LoopbackServer) -> None:
    loopback.enqueue("/v1/messages",
                     sse_response(anthropic_tool_reply([("toolu_build", "shell", {"command": COMMAND})],
                                                       text="I'll run the build script in your workspace.",
                                                       model="claude-sonnet-4-6"), delay=0.02),
                     sse_response(anthropic_text_reply("The release built cleanly: all 8 steps passed and the wheel is "
                                                       "in `dist/notes-0.3.0.whl`.", pieces=10, model="claude-sonnet-4-6"),
                                  delay=0.03))


def main() -> int:
    options = demo_options(1100, 760)
    loopback = LoopbackServer().start()
    script(loopback)
    workspace = workspace_folder("dc-shell-workspace-", FILES)
    window, loop, store, _runtime, _ = configured_window(
        "dc-shell-", loopback, settings={"workspace_folder": str(workspace), "enabled_tools": ["shell"]},
        permissions=allow_rules(("shell", "python3 build.py*")), seed=seed_older)
    show_at(window, options)

    def shell_call():
        for message in window.controller.model.messages():
            for call in message.tool_calls:
                if call.name == "shell":
                    return call
        return None

    async def scenario() -> None:
        await asyncio.sleep(0.8)
        if not await ask_in_new_chat(window, QUESTION, lambda: (call := shell_call()) is not None and SHOWN_WHEN in (call.output or ""), 20):
            print("the card never showed", repr(SHOWN_WHEN), file=sys.stderr, flush=True)
        await asyncio.sleep(0.15)
        window.view.scrollToBottom()
        window.view.viewport().repaint()
        path = options.out / "shell_output.png"
        window.grab().save(str(path))
        print("saved", path, "while the call is", shell_call().status.value, flush=True)
        for _ in range(200):
            await asyncio.sleep(0.05)
            if not window.controller.busy:
                break
        window.close()

    return run_scenario(window, loop, store, scenario, loopback)


if __name__ == "__main__":
    sys.exit(main())
