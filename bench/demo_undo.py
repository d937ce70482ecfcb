"""Undo file changes in the real window: a reply from the loopback Anthropic server creates notes/todo.md with
`write_file` and changes README.md with `edit_file` (both allowed by permission rules), then its context menu's
"Undo file changes…" is chosen and the question listing the files is captured (`undo_file_changes.png`); then
README.md is changed on disk and Undo chosen again, which shows the diff of what changed since and puts nothing back
(`undo_changed_since.png`).

    Xvfb :97 & DISPLAY=:97 python bench/demo_undo.py --out docs/screenshots

The question and the diff are top-level windows of their own, so the screen region of the window is captured.
Not part of the test run.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QPoint, QTimer  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox  # noqa: E402

from bench._demo_support import ask_in_new_chat, demo_options, run_scenario, show_at  # noqa: E402
from bench._demo_workspace import allow_rules, configured_window, seed_older, workspace_folder  # noqa: E402
from tests.support.loopback import LoopbackServer, anthropic_text_reply, anthropic_tool_reply, sse_response  # noqa: E402

README = """# Notes

A small notes app written with PySide6.

## Status

Work in progress: nothing is released yet.
"""
TODO = "# To do\n\n- [ ] changelog for 0.3\n- [ ] Windows installer\n- [ ] run the fault suite\n"
QUESTION = "Start a to-do list in notes/ and say in the README that 0.3 is in beta."
UNDO = "Undo file changes…"


def script(loopback: LoopbackServer) -> None:
    calls = [("toolu_todo", "write_file", {"path": "notes/todo.md", "content": TODO}),
             ("toolu_readme", "edit_file", {"path": "README.md", "old_text": "Work in progress: nothing is released yet.",
                                            "new_text": "Version 0.3 is in beta: try it and report what breaks."})]
    loopback.enqueue("/v1/messages",
                     sse_response(anthropic_tool_reply(calls, text="I'll add the list and update the README.",
                                                       model="claude-sonnet-4-6")),
                     sse_response(anthropic_text_reply("Done: `notes/todo.md` lists the three open items, and the "
                                                       "README's status now says 0.3 is in beta.", pieces=8,
                                                       model="claude-sonnet-4-6"), delay=0.02))


def main() -> int:
    options = demo_options(1180, 900)
    loopback = LoopbackServer().start()
    script(loopback)
    workspace = workspace_folder("dc-undo-workspace-", {"README.md": README, "notes/ideas.md": "- tags\n- search\n"})
    window, loop, store, _runtime, _ = configured_window(
        "dc-undo-", loopback, settings={"workspace_folder": str(workspace)},
        permissions=allow_rules(("write_file", "*"), ("edit_file", "*")), seed=seed_older)
    show_at(window, options)

    def shot(name: str) -> None:
        path = options.out / name
        geometry = window.frameGeometry()
        QGuiApplication.primaryScreen().grabWindow(0, geometry.x(), geometry.y(), geometry.width(), geometry.height()).save(str(path))
        print("saved", path, flush=True)

    def reply_menu() -> tuple[QMenu, object]:
        """The transcript's context menu of the reply's last row, as the view builds it, open over that row."""
        view, model = window.view, window.controller.model
        row = model.rowCount() - 1
        index = model.index(row, 0)
        menu = QMenu(view)
        view.fill_context_menu(menu, index)
        rect = view.visualRect(index)
        menu.popup(view.viewport().mapToGlobal(QPoint(rect.left() + 260, rect.top() + 10)))
        undo = next(action for action in menu.actions() if action.text() == UNDO)
        menu.setActiveAction(undo)
        return menu, undo

    def place_below_reply(widget) -> None:
        """Centred on the transcript, below the reply, so its cards show above the dialog (a window manager would
        centre it on the window)."""
        view, model = window.view, window.controller.model
        rect = view.visualRect(model.index(model.rowCount() - 1, 0))
        bottom = view.viewport().mapToGlobal(rect.bottomLeft()).y()
        centre = view.viewport().mapToGlobal(view.viewport().rect().center()).x()
        top = min(bottom + 24, window.frameGeometry().bottom() - widget.height() - 8)
        widget.move(centre - widget.width() // 2, top)

    def when_open(find, then, tries: int = 100) -> None:
        """Calls then(widget) once find() returns one (the question runs its own event loop meanwhile)."""
        widget = find()
        if widget is None and tries:
            QTimer.singleShot(50, lambda: when_open(find, then, tries - 1))
        elif widget is not None:
            then(widget)

    async def choose_undo(name: str, find, close) -> None:
        menu, undo = reply_menu()
        await asyncio.sleep(0.6)
        done = asyncio.get_running_loop().create_future()

        def capture(widget) -> None:
            place_below_reply(widget)
            QTimer.singleShot(500, lambda: (shot(name), close(widget), done.done() or done.set_result(None)))

        def choose() -> None:
            menu.close()
            when_open(find, capture)
            undo.trigger()  # the question is modal: its own event loop runs until it is answered

        QTimer.singleShot(0, choose)  # outside this task, as the menu's own click would
        await asyncio.wait_for(done, 15)

    def question():
        box = QApplication.activeModalWidget()
        return box if isinstance(box, QMessageBox) else None

    def changed_since():
        dialog = window.file_undo.dialog
        return dialog if dialog is not None and dialog.isVisible() else None

    def cancel(box: QMessageBox) -> None:
        box.button(QMessageBox.StandardButton.Cancel).click()

    async def scenario() -> None:
        await asyncio.sleep(0.8)
        await ask_in_new_chat(window, QUESTION, lambda: not window.controller.busy and (workspace / "notes" / "todo.md").exists(), 15)
        await asyncio.sleep(0.5)
        window.view.scrollToBottom()
        await choose_undo("undo_file_changes.png", question, cancel)
        await asyncio.sleep(0.3)
        readme = workspace / "README.md"
        readme.write_text(readme.read_text(encoding="utf-8") + "\nDownloads: see the releases page.\n", encoding="utf-8")
        await choose_undo("undo_changed_since.png", changed_since, lambda dialog: dialog.reject())
        await asyncio.sleep(0.3)
        window.close()

    return run_scenario(window, loop, store, scenario, loopback)


if __name__ == "__main__":
    sys.exit(main())
