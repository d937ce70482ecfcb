"""Runs several conversations at once in the real window (a loopback Anthropic server answers each by its first
message) and saves a screenshot of the sidebar's states: replying, waiting for approval with the count, failed,
interrupted and a new reply not yet seen, with the status bar's waiting-approvals indicator.

    Xvfb :97 & DISPLAY=:97 python bench/demo_background_runs.py --out docs/screenshots

Not part of the test run.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from bench._demo_support import demo_options, run_scenario, show_at  # noqa: E402
from tests.support.conversation_replies import ByConversation, DeleteNote  # noqa: E402
from tests.support.loopback import (  # noqa: E402
    LoopbackServer,
    anthropic_error,
    anthropic_text_reply,
    anthropic_tool_reply,
    sse_response,
)

STORY = " ".join(["The lighthouse keeper counted the ships as the fog came in."] * 40)
REPLIES = {
    "Clean up my notes folder": [sse_response(anthropic_tool_reply([("toolu_a", "delete_note", {"name": "old ideas"}),
                                                                    ("toolu_b", "delete_note", {"name": "scratch"})],
                                                                   text="I'll delete the two stale notes."))],
    "Summarise the design review": [sse_response(anthropic_text_reply(
        "**Decisions:** keep SQLite, ship the tray icon, drop the plugin API for now.", pieces=20), delay=0.05)],
    "Translate the menu into French": [anthropic_error(400, "invalid_request_error", "max_tokens: 200000 > 64000, the "
                                                       "maximum allowed for this model")],
    "Write a short story about a lighthouse": [sse_response(anthropic_text_reply(STORY, pieces=200), delay=0.05)],
}


def main() -> int:
    options = demo_options(1200, 760)
    loopback = LoopbackServer().start()
    replies = ByConversation()
    for first, responses in REPLIES.items():
        replies.add(first, *responses)
    loopback.set_handler("/v1/messages", replies)
    import tempfile

    os.environ.update({"ANTHROPIC_API_KEY": "sk-ant-demo", "ANTHROPIC_BASE_URL": loopback.url,
                       "DESKTOP_COPILOT_HOME": tempfile.mkdtemp(prefix="dc-background-")})
    from desktop_copilot.app.gui import create_application
    from desktop_copilot.app.window_setup import create_event_loop, create_main_window
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.conversation.models import MessageStatus
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.storage.store import Store
    from tests.support.history_seed import seed_conversation

    loop = create_event_loop(create_application([]))
    paths = AppPaths.resolve().ensure()
    store = Store(paths.database)
    seed_conversation(store, "Quarterly report outline", [("Outline the Q3 report.", "1. Revenue 2. Hiring 3. Risks")], age_days=2)
    trip = seed_conversation(store, "Trip to Lisbon", [("Plan three days in Lisbon.", "Day 1: Alfama and the castle, then")])
    trip.messages[-1].status = MessageStatus.INTERRUPTED
    trip.messages[-1].error = "The connection was lost."
    store.save_message(trip.id, 1, trip.messages[-1])
    runtime = Runtime(paths, AppConfig.from_environment())
    runtime.registry.register(DeleteNote())
    window = create_main_window(runtime, store)
    show_at(window, options)

    async def scenario() -> None:
        await asyncio.sleep(0.8)
        for text in REPLIES:
            window.history.new_conversation()
            window.composer.set_text(text)
            window.composer.submit()
            for _ in range(100):
                await asyncio.sleep(0.05)
                if window.controller.session.conversation.messages:
                    break
        await asyncio.sleep(2.0)
        window.history.open(window.controller.session.conversation.id)
        await asyncio.sleep(0.6)
        path = options.out / "sidebar_states.png"
        window.grab().save(str(path))
        print("saved", path, flush=True)
        window.controller.stop_all()
        await window.controller.wait_all()
        window.close()

    return run_scenario(window, loop, store, scenario, loopback)


if __name__ == "__main__":
    sys.exit(main())
