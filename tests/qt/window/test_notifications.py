"""Desktop notifications for conversations not on screen, against a notification service on the tests' private D-Bus
session bus: a fake org.freedesktop.Notifications (a jeepney connection on a thread of its own) that takes the name,
answers Notify with an id and records it, and emits ActionInvoked as a click on a notification would. A reply
finishing in the background, or calls waiting there for approval, send a Notify naming the conversation; a click opens
that conversation in the window; with Settings' desktop notifications off, nothing is sent."""

from __future__ import annotations

import os
import queue
import threading
from dataclasses import dataclass

import pytest

from desktop_copilot.core.bootstrap import build_runtime
from desktop_copilot.qt.window.notifications import APP_NAME, OBJECT_PATH, OPEN_ACTION, SERVICE
from tests.qt.conftest import run_async
from tests.qt.window.test_background_runs import (  # noqa: F401 - fixtures are used by name
    new_chat,
    notes,
    open_window,
    quick,
    row_state,
    script,
    shown_id,
    shown_replies,
    slow,
    start,
    stored_messages,
)
from tests.support.loopback import anthropic_tool_reply, sse_response
from tests.support.settings_support import open_dialog

pytestmark = pytest.mark.skipif(not os.environ.get("DBUS_SESSION_BUS_ADDRESS"), reason="needs a D-Bus session bus (tests/run.sh)")


@dataclass
class Notified:
    id: int
    app_name: str
    summary: str
    body: str
    actions: list[str]
    sender: str
    """The unique bus name of the connection that sent it."""


class FakeNotificationService:
    """org.freedesktop.Notifications on the session bus, served from a thread with a blocking jeepney connection."""

    def __init__(self) -> None:
        self.notified: list[Notified] = []
        self.calls: list[str] = []
        """The member of every method call received, in order."""
        self._signals: queue.Queue = queue.Queue()
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, name="fake-notifications", daemon=True)

    def start(self) -> FakeNotificationService:
        self._thread.start()
        assert self._ready.wait(5), f"the fake notification service did not start: {self._failed!r}"
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(5)

    def click(self, notification_id: int, action: str = OPEN_ACTION) -> None:
        """Emit ActionInvoked(id, action), as the desktop does when the notification is clicked."""
        from jeepney import DBusAddress, new_signal

        self._signals.put(new_signal(DBusAddress(OBJECT_PATH, interface=SERVICE), "ActionInvoked", "us", (notification_id, action)))

    def _serve(self) -> None:
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection

        try:
            connection = open_dbus_connection(bus="SESSION")
        except BaseException as exc:  # noqa: BLE001 - reported by start()
            self._failed = exc
            return
        try:
            reply = connection.send_and_get_reply(message_bus.RequestName(SERVICE, 4), timeout=5)  # DO_NOT_QUEUE
            if reply.body != (1,):  # not the primary owner
                self._failed = RuntimeError(f"RequestName answered {reply.body}")
                return
            self._ready.set()
            while not self._stopping.is_set():
                while not self._signals.empty():
                    connection.send(self._signals.get())
                try:
                    message = connection.receive(timeout=0.02)
                except TimeoutError:
                    continue
                if message.header.message_type.name == "method_call":
                    connection.send(self._answer(message))
        finally:
            connection.close()

    def _answer(self, message):
        from jeepney import HeaderFields, new_error, new_method_return

        member = message.header.fields.get(HeaderFields.member)
        self.calls.append(member)
        if member == "Notify":
            app_name, _replaces, _icon, summary, body, actions, _hints, _timeout = message.body
            notification_id = len(self.notified) + 1
            self.notified.append(Notified(notification_id, app_name, summary, body, list(actions),
                                          message.header.fields.get(HeaderFields.sender)))
            return new_method_return(message, "u", (notification_id,))
        if member == "GetCapabilities":
            return new_method_return(message, "as", (["actions", "body"],))
        if member == "GetServerInformation":
            return new_method_return(message, "ssss", ("fake", "tests", "1", "1.2"))
        if member == "CloseNotification":
            return new_method_return(message)
        return new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "s", (f"no method {member}",))


def notified(qtbot, window, service: FakeNotificationService, count: int) -> None:
    """Until the service has `count` notifications and the window has their ids back (a click needs them)."""
    qtbot.waitUntil(lambda: len(service.notified) == count and len(window.background.notifier.sent) == count, timeout=8000)


@pytest.fixture
def notifications():
    service = FakeNotificationService().start()
    yield service
    service.stop()


def test_a_finished_background_reply_is_notified_and_a_click_opens_its_conversation(qtbot, notifications, open_window, script):  # noqa: F811
    window = open_window()
    reply = "Once upon a time a fox learned to write Python."
    script.add("Tell me a short story", slow(reply, pieces=20, delay=0.02))
    a = start(qtbot, window, "Tell me a short story")
    new_chat(qtbot, window)
    b = shown_id(window)

    notified(qtbot, window, notifications, 1)
    [sent] = notifications.notified
    title = window.controller.session.store.load_conversation_header(a).title
    assert title and "short story" in title.lower()
    assert (sent.app_name, sent.summary, sent.body) == (APP_NAME, title, reply)
    assert OPEN_ACTION in sent.actions
    assert window.background.notifier.sent == [(a, title, reply)]
    assert shown_id(window) == b and row_state(window, a).kind == "unseen"

    notifications.click(sent.id)
    qtbot.waitUntil(lambda: shown_id(window) == a, timeout=5000)
    assert [m.text for m in shown_replies(window)] == [reply]
    assert row_state(window, a) is None  # seen now
    assert window.history.sidebar.list_view.currentIndex().data(window.history.conversations.ConversationIdRole) == a

    new_chat(qtbot, window)
    notifications.click(sent.id)  # the same notification again: it was handled already and opens nothing
    qtbot.wait(300)
    assert shown_id(window) != a


def test_calls_waiting_in_the_background_are_notified_and_the_click_opens_them(qtbot, notifications, open_window, script, notes):  # noqa: F811
    window = open_window()
    script.add("Tidy my notes", sse_response(anthropic_tool_reply([("toolu_n1", "delete_note", {"name": "todo"})]), hold=0.3),
               quick("Deleted your todo note."))
    a = start(qtbot, window, "Tidy my notes")
    new_chat(qtbot, window)

    notified(qtbot, window, notifications, 1)
    [asked] = notifications.notified
    title = window.controller.session.store.load_conversation_header(a).title
    assert asked.summary == f"Approval needed: {title}" and "1 tool call" in asked.body
    notifications.click(asked.id)
    qtbot.waitUntil(lambda: shown_id(window) == a, timeout=5000)
    assert window.controller.waiting_calls == ["toolu_n1"]
    assert window.controller.decide("toolu_n1", "allow_once")
    qtbot.waitUntil(lambda: not window.controller.running(a), timeout=5000)
    assert notes.deleted == ["todo"] and shown_replies(window)[-1].text == "Deleted your todo note."


def test_replies_of_several_conversations_are_notified_over_one_connection(qtbot, notifications, open_window, script):  # noqa: F811
    window = open_window()
    replies = {f"Question {n}": f"Answer number {n}." for n in (1, 2, 3)}
    ids = {}
    for prompt, answer in replies.items():
        if ids:
            new_chat(qtbot, window)
        script.add(prompt, slow(answer, pieces=10, delay=0.05))
        ids[prompt] = start(qtbot, window, prompt)
    new_chat(qtbot, window)

    notified(qtbot, window, notifications, 3)
    assert sorted(n.body for n in notifications.notified) == sorted(replies.values())
    assert len({n.sender for n in notifications.notified}) == 1  # one connection to the bus, however many at once
    by_body = {n.body: n for n in notifications.notified}
    notifications.click(by_body["Answer number 2."].id)
    qtbot.waitUntil(lambda: shown_id(window) == ids["Question 2"], timeout=5000)


def toggle_notifications(qtbot, window, on: bool) -> None:
    """Settings ▸ Models ▸ Notifications, then OK."""
    dialog = open_dialog(qtbot, window)
    switch = dialog.models_page.notifications_switch
    assert switch.objectName() == "notificationsSwitch" and switch.isChecked() != on
    switch.click()
    assert switch.isChecked() == on
    assert run_async(qtbot, dialog.apply(close=True))


def test_nothing_is_notified_with_desktop_notifications_turned_off(qtbot, notifications, open_window, script):  # noqa: F811
    runtime = build_runtime(check_keyring=False)
    window = open_window(runtime)
    assert runtime.settings.desktop_notifications
    toggle_notifications(qtbot, window, on=False)
    assert not runtime.settings.desktop_notifications

    script.add("Tell me a short story", slow("A short story.", pieces=10, delay=0.02))
    quiet = start(qtbot, window, "Tell me a short story")
    new_chat(qtbot, window)
    qtbot.waitUntil(lambda: not window.controller.running(quiet), timeout=5000)
    assert stored_messages(window, quiet)[-1].text == "A short story."
    assert row_state(window, quiet).kind == "unseen"  # the sidebar still says so
    qtbot.wait(300)
    assert notifications.notified == [] and window.background.notifier.sent == []

    toggle_notifications(qtbot, window, on=True)  # and back on, the same finish is notified
    script.add("Tell me another", slow("Another story.", pieces=10, delay=0.02))
    loud = start(qtbot, window, "Tell me another")
    new_chat(qtbot, window)
    notified(qtbot, window, notifications, 1)
    assert notifications.notified[0].body == "Another story."
    assert window.background.notifier.sent[0][0] == loud
