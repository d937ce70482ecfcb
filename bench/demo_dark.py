"""Seeds a reply with a thinking block, a finished tool call, an approval card with its risk pill, a table, a quote and
a highlighted code block, switches the window to the dark theme as Settings ▸ Models ▸ Appearance ▸ Dark does, and
saves `dark_mode.png`.

    Xvfb :98 -screen 0 1100x1300x24 & DISPLAY=:98 python bench/demo_dark.py --out docs/screenshots

Not part of the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.conversation import events as ev  # noqa: E402
from desktop_copilot.core.conversation.accumulate import accumulate  # noqa: E402
from desktop_copilot.core.conversation.models import (  # noqa: E402
    Conversation,
    Message,
    MessageStatus,
    TextBlock,
    ThinkingBlock,
    ToolApproval,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.qt.common.theme_switch import install_theme_switch  # noqa: E402
from tests.support.history_seed import seed_conversation  # noqa: E402

MODEL = "claude-sonnet-4-6"
QUESTION = "Why is my retry helper slow after a failure? Here's the release page too."
FIRST = """The release notes say the client now **backs off exponentially**, but your helper sleeps a fixed second
and never gives up:

| attempt | your helper | suggested |
|---|---|---|
| 1 | 1 s | 0.5 s |
| 6 | 1 s | gives up |

> Retries without a cap turn a short outage into a long one.

```python
import asyncio, random

async def retry(call, attempts: int = 5, base: float = 0.5):
    \"\"\"Run `call`, retrying with jittered exponential back-off.\"\"\"
    for attempt in range(attempts):
        try:
            return await call()
        except ConnectionError:  # only errors worth retrying
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(base * 2 ** attempt * random.uniform(0.8, 1.2))
```

`retry` re-raises the last error, so callers still see what failed."""
SECOND = "I can write it into `net/retry.py` for you:"
DIFF = """--- a/net/retry.py
+++ b/net/retry.py
@@ -3,4 +3,4 @@
-        time.sleep(1)
+        await asyncio.sleep(base * 2 ** attempt)"""


def seed(store) -> str:
    seed_conversation(store, "Launch checklist", [("What's left before the launch?", "The release notes.")], age_days=1)
    seed_conversation(store, "读书笔记：三体", [("总结第一章", "第一章讲述了……")], age_days=3)
    conversation = Conversation(title="Retry with back-off", model=MODEL, provider="anthropic")
    reply = Message.assistant(MODEL, "anthropic")
    reply.blocks = [
        ThinkingBlock(thinking="The helper sleeps a constant second; check the release notes for the client's own back-off.",
                      started_at=1.0, ended_at=4.0),
        ToolCallBlock(id="t1", name="web_fetch", arguments={"url": "https://example.com/client/releases/2.1"}),
        TextBlock(text=FIRST),
        TextBlock(text=SECOND),
        ToolCallBlock(id="t2", name="edit_file", arguments={"path": "net/retry.py", "old_text": "time.sleep(1)",
                                                            "new_text": "await asyncio.sleep(base * 2 ** attempt)"}),
    ]
    reply.status = MessageStatus.COMPLETED
    accumulate(reply, ev.ToolApprovalChanged(tool_call_id="t1", approval=ToolApproval(risk="open_world", decision="granted")))
    accumulate(reply, ev.ToolStatus(tool_call_id="t1", status=ToolCallStatus.RUNNING))
    accumulate(reply, ev.ToolStatus(tool_call_id="t1", status=ToolCallStatus.DONE, result="Release 2.1\n\nExponential back-off …"))
    accumulate(reply, ev.ToolApprovalChanged(tool_call_id="t2", approval=ToolApproval(risk="writes", asked=True, preview=DIFF)))
    accumulate(reply, ev.ToolStatus(tool_call_id="t2", status=ToolCallStatus.AWAITING_APPROVAL))
    conversation.messages = [Message.user(QUESTION), reply]
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)
    return reply.id


def main() -> int:
    options = demo_options(1100, 1240)
    window, loop, store, reply_id = seeded_window("dc-dark-", seed)
    install_theme_switch(QApplication.instance(), "dark")  # as gui.main does with Settings.theme = "dark"
    show_at(window, options)

    def shoot() -> None:
        window.controller.model.set_expanded(reply_id, 0, True)  # the thinking block, open
        window.view.scrollToTop()
        window.view.viewport().repaint()
        window.grab().save(str(options.out / "dark_mode.png"))
        window.close()

    QTimer.singleShot(1200, shoot)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
