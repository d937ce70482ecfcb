"""Seeds a reply whose tool calls wait for the user (an MCP server's destructive call, a workspace edit with its
diff) after two that ran (a read-only MCP call, web_fetch allowed by a grant), and saves `approval_card.png`.

    Xvfb :96 -screen 0 1100x1400x24 & DISPLAY=:96 python bench/demo_approval.py --out docs/screenshots --height 1350

With `--focus N`, Tab from the message box and N presses of Right first: the keyboard's focus ring on the waiting
cards' N+1th button, saved as `approval_card_focus.png`.

Not part of the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.conversation import events as ev  # noqa: E402
from desktop_copilot.core.conversation.accumulate import accumulate  # noqa: E402
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, TextBlock, ToolApproval, ToolCallBlock, ToolCallStatus  # noqa: E402

DIFF = """--- a/notes/plan.md
+++ b/notes/plan.md
@@ -1,4 +1,4 @@
 # Launch plan
-- ship on Friday
+- ship on Monday, after the fault suite passes
 - write the release notes
 - tell the beta users"""


def seed(store) -> str:
    conversation = Conversation(title="Tidy the launch notes", model="claude-sonnet-4-6", provider="anthropic")
    reply = Message.assistant("claude-sonnet-4-6", "anthropic")
    reply.blocks = [
        TextBlock(text="I'll look at your notes first, then check the release page."),
        ToolCallBlock(id="t1", name="mcp__notes__read_note", arguments={"name": "launch"}),
        ToolCallBlock(id="t2", name="web_fetch", arguments={"url": "https://example.com/releases/0.2"}),
        TextBlock(text="The plan still says Friday. I'll move it to Monday and delete the stale draft."),
        ToolCallBlock(id="t3", name="mcp__notes__delete_note", arguments={"name": "launch-draft-old", "reason": "superseded by plan.md"}),
        ToolCallBlock(id="t4", name="edit_file", arguments={"path": "notes/plan.md", "old_text": "- ship on Friday",
                                                            "new_text": "- ship on Monday, after the fault suite passes"}),
    ]
    reply.status = MessageStatus.COMPLETED
    ran = [("t1", "notes", "read_only", "read_only", "# Launch plan\n- ship on Friday\n- write the release notes"),
           ("t2", "", "open_world", "granted", "URL: https://example.com/releases/0.2\nTitle: Release 0.2\n\nWhat's new …")]
    for call_id, source, risk, decision, result in ran:
        accumulate(reply, ev.ToolApprovalChanged(tool_call_id=call_id, approval=ToolApproval(risk=risk, decision=decision)))
        accumulate(reply, ev.ToolStatus(tool_call_id=call_id, status=ToolCallStatus.RUNNING, source=source))
        accumulate(reply, ev.ToolStatus(tool_call_id=call_id, status=ToolCallStatus.DONE, result=result, source=source))
    for call_id, source, risk, preview in [("t3", "notes", "destructive", ""), ("t4", "", "writes", DIFF)]:
        accumulate(reply, ev.ToolApprovalChanged(tool_call_id=call_id, approval=ToolApproval(risk=risk, asked=True, preview=preview)))
        accumulate(reply, ev.ToolStatus(tool_call_id=call_id, status=ToolCallStatus.AWAITING_APPROVAL, source=source))
    conversation.messages = [Message.user("Move the launch to Monday in my notes and clean up old drafts."), reply]
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)
    return conversation.id


def main() -> int:
    options = demo_options(1100, 900, lambda parser: parser.add_argument(
        "--focus", type=int, default=-1, help="put the keyboard's focus ring on this button of the waiting cards (0: the first)"))
    window, loop, store, _ = seeded_window("dc-approval-", seed)
    show_at(window, options)

    def shoot() -> None:
        window.view.scrollToBottom()
        name = "approval_card.png"
        if options.focus >= 0:  # as the user does: Tab from the message box, then Right
            window.activateWindow()
            window.composer.edit.setFocus()
            QTest.qWait(300)  # the window becomes active: the focus moves within it from now on
            QTest.keyClick(window.composer.edit, Qt.Key.Key_Tab)
            for _ in range(options.focus):
                QTest.keyClick(window.view, Qt.Key.Key_Right)
            name = "approval_card_focus.png"
        window.view.viewport().repaint()
        window.grab().save(str(options.out / name))
        window.close()

    QTimer.singleShot(1200, shoot)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
