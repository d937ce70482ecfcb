"""Desktop notifications for replies in conversations not on screen: the freedesktop notification service on the
session bus (Linux; jeepney, which keyring's Secret Service already brings), else the system tray's message
(Windows, macOS); clicking one opens its conversation. Nothing is sent when the user turned them off."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from desktop_copilot.qt.bridge.background import BackgroundTasks

log = logging.getLogger(__name__)

SERVICE = "org.freedesktop.Notifications"
OBJECT_PATH = "/org/freedesktop/Notifications"
APP_NAME = "Desktop Copilot"
OPEN_ACTION = "default"
"""The action a click on the notification's body invokes (the freedesktop specification's name for it)."""


class DesktopNotifier(QObject):
    sig_clicked = Signal(str)
    """A notification was clicked: the id of its conversation."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.enabled = True
        self.sent: list[tuple[str, str, str]] = []
        """(conversation id, summary, body) of every notification handed to the desktop, newest last."""
        self._tasks = BackgroundTasks()
        self._bus: _FreedesktopBus | None = _FreedesktopBus(self.sig_clicked.emit) if sys.platform.startswith("linux") else None
        self._tray: QSystemTrayIcon | None = None
        self._tray_conversation = ""

    def notify(self, conversation_id: str, summary: str, body: str) -> None:
        """Show a notification (unless turned off); a click on it emits sig_clicked(conversation_id)."""
        if not self.enabled:
            return
        self._tasks.start(self._send(conversation_id, summary, body))

    async def _send(self, conversation_id: str, summary: str, body: str) -> None:
        if self._bus is not None and await self._bus.notify(conversation_id, summary, body):
            self.sent.append((conversation_id, summary, body))
            return
        if self._show_in_tray(conversation_id, summary, body):
            self.sent.append((conversation_id, summary, body))

    def _show_in_tray(self, conversation_id: str, summary: str, body: str) -> bool:
        if not QSystemTrayIcon.isSystemTrayAvailable() or not QSystemTrayIcon.supportsMessages():
            return False
        if self._tray is None:
            self._tray = QSystemTrayIcon(QApplication.windowIcon(), self)
            self._tray.setToolTip(APP_NAME)
            self._tray.messageClicked.connect(lambda: self._tray_conversation and self.sig_clicked.emit(self._tray_conversation))
            self._tray.show()
        self._tray_conversation = conversation_id
        self._tray.showMessage(summary, body, QApplication.windowIcon())
        return True

    async def aclose(self) -> None:
        self._tasks.cancel_all()
        await self._tasks.wait()
        if self._bus is not None:
            await self._bus.aclose()
        if self._tray is not None:
            self._tray.hide()


class _FreedesktopBus:
    """org.freedesktop.Notifications over the session bus: Notify with an "open" action, and its ActionInvoked
    signals read in a task of their own. Unavailable (notify returns False) without a bus or a notification service."""

    def __init__(self, clicked) -> None:
        self._clicked = clicked
        self._router = None
        self._router_context = None
        self._listener: asyncio.Task | None = None
        self._conversations: dict[int, str] = {}
        """Notification id -> its conversation, until it is clicked or closed."""
        self._unavailable = False
        self._connecting = asyncio.Lock()
        """Held while the router is opened: notifications sent at once share one connection (and one listener)."""

    async def notify(self, conversation_id: str, summary: str, body: str) -> bool:
        router = await self._connected()
        if router is None:
            return False
        from jeepney import DBusAddress, new_method_call

        address = DBusAddress(OBJECT_PATH, bus_name=SERVICE, interface=SERVICE)
        message = new_method_call(address, "Notify", "susssasa{sv}i",
                                  (APP_NAME, 0, "", summary, body, [OPEN_ACTION, "Open"], {}, -1))
        try:
            reply = await asyncio.wait_for(router.send_and_get_reply(message), 5)
        except (OSError, EOFError, TimeoutError) as exc:
            log.info("the notification service did not answer: %s", exc)
            return False
        if reply.header.message_type.name != "method_return":
            log.info("the notification service refused the notification: %s", reply.body)
            return False
        self._conversations[int(reply.body[0])] = conversation_id
        return True

    async def _connected(self):
        """The router on the session bus once a notification service owns its name; None when there is none."""
        async with self._connecting:
            if self._router is not None or self._unavailable:
                return self._router
            return await self._connect()

    async def _connect(self):
        context = None
        try:
            from jeepney import MatchRule
            from jeepney.bus_messages import message_bus
            from jeepney.io.asyncio import Proxy, open_dbus_router

            context = open_dbus_router(bus="SESSION")
            router = await asyncio.wait_for(context.__aenter__(), 5)
            bus = Proxy(message_bus, router)
            (owned,) = await asyncio.wait_for(bus.NameHasOwner(SERVICE), 5)
            if not owned:
                await context.__aexit__(None, None, None)
                return None  # asked again next time: a notification daemon may start later
            rule = MatchRule(type="signal", interface=SERVICE, path=OBJECT_PATH)
            await asyncio.wait_for(bus.AddMatch(rule), 5)
        except (ImportError, OSError, EOFError, KeyError, TimeoutError, ValueError) as exc:
            log.info("no session bus for notifications: %s", exc)
            self._unavailable = True
            if context is not None:  # opened, then a call on the bus failed: not left open
                with contextlib.suppress(Exception):
                    await context.__aexit__(None, None, None)
            return None
        self._router, self._router_context = router, context
        self._listener = asyncio.get_running_loop().create_task(self._listen(rule))
        return router

    async def _listen(self, rule) -> None:
        from jeepney.low_level import HeaderFields

        with self._router.filter(rule, bufsize=64) as signals:
            while True:
                signal = await signals.get()
                member, body = signal.header.fields.get(HeaderFields.member), signal.body
                if member == "ActionInvoked" and len(body) == 2:
                    conversation_id = self._conversations.pop(int(body[0]), None)
                    if conversation_id is not None and body[1] == OPEN_ACTION:
                        self._clicked(conversation_id)
                elif member == "NotificationClosed" and body:
                    self._conversations.pop(int(body[0]), None)

    async def aclose(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        if self._router_context is not None:
            with contextlib.suppress(Exception):
                await self._router_context.__aexit__(None, None, None)
        self._router = self._router_context = None

