"""A closed and deleted window lets go of everything: its transcript model (a QObject the widgets' signal handlers are
connected to) dies with the controller, so the window's Python objects, the session and the conversation's messages
are freed, not kept alive by connections on a model nobody owns (found by the soak, tests/soak)."""

from __future__ import annotations

import gc
import weakref

from PySide6.QtCore import QCoreApplication, QEvent

from desktop_copilot.app.window_setup import create_main_window
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store
from tests.qt.conftest import run_async
from tests.support.loopback import anthropic_text_reply, sse_response


def live_messages() -> int:
    return sum(1 for item in gc.get_objects() if type(item) is Message)


def reply_finished(window):
    return lambda: not window.controller.busy


def test_a_deleted_window_frees_its_model_and_messages(qtbot, qasync_loop, loopback_env):
    gc.collect()
    messages_before = live_messages()
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("A reply to let go of.")))
    paths = AppPaths.resolve().ensure()
    store = Store(paths.database)
    window = create_main_window(Runtime(paths, AppConfig.from_environment()), store)
    window.show()
    window.composer.set_text("Hello")
    assert window.composer.submit()
    qtbot.waitUntil(reply_finished(window), timeout=60000)
    conversation = window.controller.session.conversation
    assert [m.text for m in conversation.messages] == ["Hello", "A reply to let go of."]
    gone = {"window": weakref.ref(window), "model": weakref.ref(window.controller.model),
            "reply": weakref.ref(conversation.messages[-1])}
    del conversation

    window.close()
    run_async(qtbot, window.controller.aclose())
    store.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    del window
    gc.collect()

    assert [name for name, ref in gone.items() if ref() is not None] == []
    assert live_messages() == messages_before
