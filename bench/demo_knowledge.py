"""Knowledge in the real window: the model (a loopback Anthropic server) searches the user's notes with
search_knowledge and answers citing two passages, numbered under the reply, while a second, larger source indexes in
the background (the status bar's progress); then a cited passage is clicked and shown in the passage viewer.

    Xvfb :97 & DISPLAY=:97 python bench/demo_knowledge.py --out docs/screenshots

Not part of the test run.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._demo_support import ask_in_new_chat, demo_options, run_scenario, show_at  # noqa: E402
from bench._demo_workspace import configured_window, seed_older  # noqa: E402
from tests.support.loopback import LoopbackServer, anthropic_text_reply, anthropic_tool_reply, sse_response  # noqa: E402

NOTES = {
    "router/troubleshooting.md": "# Troubleshooting the Lumen router\n\n## The status light blinks amber\n\n"
                                 "The router lost its uplink. Check the cable in the WAN port, then restart the modem "
                                 "first and the router a minute later.\n\n## Factory reset\n\nHold the recessed reset "
                                 "button for 12 seconds until the light flashes white three times. All settings, "
                                 "including the Wi-Fi password, go back to the values printed on the label.\n",
    "router/setup.md": "# Setting up\n\nConnect the WAN port to the modem. The admin page is at http://192.168.8.1; the "
                       "first login asks you to choose an admin password.\n\nAfter a factory reset you must run the "
                       "setup again, including the firmware check.\n",
    "家里/网络.md": "# 家里的网络\n\n路由器放在书房。重置后记得把访客网络重新打开，密码写在冰箱上的便签里。\n",
    "recipes/bread.md": "# Sourdough\n\nFeed the starter the night before and bake at 230 degrees.\n",
}
QUESTION = "How do I factory-reset my Lumen router, and what do I have to do afterwards?"
ANSWER = ("Hold the recessed **reset** button for 12 seconds, until the light flashes white three times [1]. Everything, "
          "the Wi-Fi password included, goes back to what the label says.\n\nAfterwards run the setup again at "
          "http://192.168.8.1, with the firmware check [2].")


def folders() -> tuple[Path, Path]:
    root = Path(tempfile.mkdtemp(prefix="dc-knowledge-demo-"))
    notes = root / "notes"
    for path, text in NOTES.items():
        (notes / path).parent.mkdir(parents=True, exist_ok=True)
        (notes / path).write_text(text, encoding="utf-8")
    papers = root / "papers"
    rng = random.Random(7)
    words = [f"{rng.choice('bcdfghklmnprstvz')}{rng.choice('aeiou')}{rng.choice('lmnrst')}{rng.choice('aeiou')}" for _ in range(3000)]
    for n in range(6000):
        folder = papers / f"volume-{n // 200:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        paragraphs = ["# Paper " + str(n)] + [" ".join(rng.choices(words, k=120)) for _ in range(12)]
        (folder / f"paper-{n:04d}.md").write_text("\n\n".join(paragraphs), encoding="utf-8")
    return notes, papers


def main() -> int:
    options = demo_options(1100, 760)
    loopback = LoopbackServer().start()
    loopback.enqueue("/v1/messages",
                     sse_response(anthropic_tool_reply([("toolu_kb", "search_knowledge", {"query": "factory reset button light"})],
                                                       text="Let me look in your notes.", model="claude-sonnet-4-6"), delay=0.02),
                     sse_response(anthropic_text_reply(ANSWER, pieces=12, model="claude-sonnet-4-6"), delay=0.03))
    notes, papers = folders()
    window, loop, store, runtime, _ = configured_window("dc-knowledge-", loopback, seed=seed_older)
    from desktop_copilot.core.knowledge.indexer import index_source

    library = runtime.knowledge_library()
    index_source(library, library.add_source(notes, "notes"))
    library.add_source(papers, "papers")  # indexed by the window, in the background
    runtime.has_knowledge(fresh=True)
    show_at(window, options)
    from PySide6.QtCore import QTimer

    QTimer.singleShot(3000, window.knowledge.start)  # as at a start with sources already there (made after attach here)

    async def scenario() -> None:
        await asyncio.sleep(0.8)
        def indexing_shown() -> bool:
            status = window.knowledge.status
            return status is not None and status.isVisible() and "Indexing" in status.label.text()

        await ask_in_new_chat(window, QUESTION, lambda: not window.controller.busy and indexing_shown(), 20)
        await asyncio.sleep(0.3)
        window.view.scrollToBottom()
        window.view.viewport().repaint()
        path = options.out / "knowledge_sources.png"
        window.grab().save(str(path))
        print("saved", path, flush=True)
        answer = window.controller.model.messages()[-1]
        viewer = window.knowledge.open_passage(answer.id, 1)
        if viewer is not None:
            viewer.resize(760, 520)
            await asyncio.sleep(0.4)
            path = options.out / "knowledge_viewer.png"
            viewer.grab().save(str(path))
            print("saved", path, flush=True)
            viewer.close()
        window.close()

    return run_scenario(window, loop, store, scenario, loopback)


if __name__ == "__main__":
    sys.exit(main())
