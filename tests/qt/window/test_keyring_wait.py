"""The window keeps painting while a send waits on a slow keyring (one waiting on its unlock prompt):
the keys are read on the keyring thread, then the reply arrives; Stop during the wait gives the text back."""

from __future__ import annotations

import threading
import time

from keyring.backend import KeyringBackend
from PySide6.QtCore import Qt, QTimer

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.keys.keyring_store import SERVICE, KeyringKeys, standard_lookup
from desktop_copilot.core.conversation.models import MessageStatus, Role
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from tests.support.loopback import anthropic_text_reply, sse_response
from tests.support.memory_keyring import MemoryKeyring

WAIT_S = 5.0
KEYRING_KEY = "sk-ant-from-the-slow-keyring"


class SlowKeyring(MemoryKeyring):
    """Every get_password waits `delay` seconds (or until `release` is set); remembers where and when it ran."""

    def __init__(self) -> None:
        super().__init__()
        self.delay = 0.0
        self.release = threading.Event()
        self.calls: list[tuple[str, threading.Thread, float]] = []
        """(entry, thread, when it returned)."""

    def get_password(self, service, username):
        self.release.wait(self.delay)
        self.calls.append((username, threading.current_thread(), time.monotonic()))
        return super().get_password(service, username)


KeyringBackend._classes.discard(SlowKeyring)


def _slow_runtime(loopback, monkeypatch) -> tuple[Runtime, SlowKeyring]:
    """A runtime whose Anthropic key is in a keyring that takes WAIT_S for every read (the tools are off, so a
    run reads that one key)."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    backend = SlowKeyring()
    backend.set_password(SERVICE, "anthropic", KEYRING_KEY)
    key_store = KeyringKeys(backend)
    assert key_store.status().usable  # probed now, while reads are still quick
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment(), standard_lookup(key_store))
    runtime.key_store = key_store
    runtime.switched_off_tools = {"tavily_search"}
    backend.calls.clear()
    backend.delay = WAIT_S
    return runtime, backend


def _ticker(window) -> list[float]:
    ticks: list[float] = []
    timer = QTimer(window, interval=20)
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start()
    return ticks


def _send(qtbot, window, text: str) -> float:
    window.composer.edit.insertPlainText(text)
    sent_at = time.monotonic()
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    return sent_at


def test_the_window_keeps_ticking_while_the_keyring_is_slow_and_the_reply_arrives(qtbot, loopback, make_window,
                                                                                   monkeypatch):
    runtime, backend = _slow_runtime(loopback, monkeypatch)
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Unlocked, here I am.")))
    window = make_window(runtime)
    ticks = _ticker(window)

    sent_at = _send(qtbot, window, "Hello through a locked keyring")
    qtbot.waitUntil(lambda: any(m.role is Role.ASSISTANT and m.status is MessageStatus.COMPLETED
                                for m in window.controller.model.messages()), timeout=int(WAIT_S * 1000) + 15000)

    keys_read_at = backend.calls[0][2]
    assert keys_read_at - sent_at >= WAIT_S - 0.1
    during = [sent_at, *(t for t in ticks if sent_at < t < keys_read_at), keys_read_at]
    gaps = [later - earlier for earlier, later in zip(during, during[1:])]
    assert len(during) - 2 >= 100, f"only {len(during) - 2} ticks of 20 ms in {keys_read_at - sent_at:.1f} s"
    assert max(gaps) < 0.2, f"the window stood still for {max(gaps) * 1000:.0f} ms"
    assert [(entry, thread is threading.main_thread()) for entry, thread, _ in backend.calls] == [("anthropic", False)]
    reply = [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT][0]
    assert reply.text == "Unlocked, here I am."
    assert KEYRING_KEY in str(loopback.requests_to("/v1/messages")[0].headers)  # the key came from the keyring
    assert window.banner.isHidden()


def test_stop_while_the_keyring_is_slow_gives_the_text_back(qtbot, loopback, make_window, monkeypatch):
    runtime, backend = _slow_runtime(loopback, monkeypatch)
    window = make_window(runtime)
    try:
        _send(qtbot, window, "Never mind")
        qtbot.waitUntil(lambda: window.composer.busy, timeout=2000)
        qtbot.wait(200)
        assert window.controller.busy and window.controller.model.rowCount() == 0

        qtbot.keyClick(window.composer.edit, Qt.Key.Key_Escape)

        qtbot.waitUntil(lambda: not window.controller.busy, timeout=2000)
        assert window.composer.text() == "Never mind" and not window.composer.busy
        assert window.controller.model.rowCount() == 0 and window.controller.session.conversation.messages == []
        assert window.banner.isHidden()
    finally:
        backend.release.set()  # frees the keyring thread for the tests after this one
    assert loopback.requests == []
