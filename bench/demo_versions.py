"""Seeds a conversation with an edited question and a regenerated reply and saves a screenshot of the
version switchers and the transcript's context menu (Regenerate reply, Versions ▸).

    Xvfb :97 & DISPLAY=:97 python bench/demo_versions.py --out docs/screenshots

The menu is a separate top-level window, so the whole screen is captured with ImageMagick's
`import -window root`. Not part of the test run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QPoint, QTimer  # noqa: E402
from PySide6.QtWidgets import QMenu  # noqa: E402

from desktop_copilot.core.conversation.models import Message, Role, TextBlock  # noqa: E402
from desktop_copilot.core.storage.versions import TailArchive  # noqa: E402
from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from tests.support.history_seed import seed_conversation  # noqa: E402

TURNS = [
    ("Write a haiku about autumn in Kyoto.", "Maple leaves drifting —  \nthe temple bell, unhurried,  \ncounts the cooling dusk."),
    ("Now one about the sea, please.", "Salt wind on the pier;  \neach wave folds the afternoon  \nback into the blue."),
]
OLD_REPLY = "Red leaves on stone steps,  \nKyoto's quiet lanterns glow,  \nautumn breathes slowly."
OLD_QUESTION = "Now one about the ocean."


def seed(store) -> str:
    conversation = seed_conversation(store, "Haiku practice", TURNS)
    archive = TailArchive(store)
    model = conversation.model
    old_reply = Message(role=Role.ASSISTANT, model=model, blocks=[TextBlock(text=OLD_REPLY)],
                        created_at=conversation.messages[1].created_at - 30)
    old_tail = [Message.user(OLD_QUESTION), Message(role=Role.ASSISTANT, model=model, blocks=[TextBlock(text="Waves…")])]
    for message in old_tail:
        message.created_at = conversation.messages[2].created_at - 20
    # archive() deletes the archived ids from the active messages: these ids are not stored, so nothing is lost
    archive.archive(conversation.id, 1, [old_reply])
    archive.archive(conversation.id, 2, old_tail)
    return conversation.id


def main() -> int:
    options = demo_options(1100, 720)
    out = options.out
    window, loop, store, _ = seeded_window("dc-versions-", seed)
    show_at(window, options)
    menus = []

    def open_menu() -> None:
        view, model = window.view, window.controller.model
        reply = model.message_id_at(2)  # the edited question: Edit and resend…, Versions ▸
        index = model.index(model.row_of(reply), 0)
        menu = QMenu(view)
        menu.addAction("Copy message text")
        for extend in view.menu_extenders:  # what the view's own context menu adds: Edit and resend…, Versions ▸
            extend(menu, index)
        rect = view.visualRect(index)
        menu.popup(view.viewport().mapToGlobal(QPoint(rect.center().x(), rect.top() + 40)))
        versions = next(a for a in menu.actions() if a.menu())
        menu.setActiveAction(versions)
        versions.menu().popup(menu.mapToGlobal(menu.actionGeometry(versions).topRight()))
        menus.append(menu)

    def shot() -> None:
        path = out / "versions.png"
        subprocess.run(["import", "-window", "root", "-crop", "1100x720+0+0", str(path)], check=True)
        print("saved", path, flush=True)

    for delay, step in ((600, open_menu), (1200, shot), (1400, window.close)):
        QTimer.singleShot(delay, step)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
