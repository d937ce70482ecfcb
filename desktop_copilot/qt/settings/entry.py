"""How the settings dialog is reached: the File ▸ Settings… action (Ctrl+,), and at start-up the banner
for start-up warnings and, without an Anthropic key, the dialog on its Keys page; the MCP servers started on first
use (the window's first message, or the dialog's MCP page)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

from desktop_copilot.core.bootstrap import keyring_warning, make_editable, start_mcp
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.keys.secrets import KNOWN_KEYS
from desktop_copilot.qt.bridge.background import BackgroundTasks, off_gui_thread

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # the dialog and its pages are imported when it first opens, not before the first frame
    from desktop_copilot.qt.settings.dialog import SettingsDialog

def first_run_intro() -> str:
    """Rich text above the keys when there is no Anthropic key at start-up."""
    return QCoreApplication.translate(
        "SettingsEntry", "<b>Welcome to Desktop Copilot.</b> To talk to Claude it needs an Anthropic API key: create one at "
        "<a href=\"{url}\">console.anthropic.com</a> (Settings ▸ API keys), paste it below "
        "and press Save. It is kept in your system keyring, never in a file.").format(url=KNOWN_KEYS["anthropic"].url)


def _runtime(window: QMainWindow) -> Runtime:
    return window.controller.session.runtime


def open_settings(window: QMainWindow, page: str = "keys", intro: str = "") -> SettingsDialog:
    """Shows the (one) settings dialog, window-modal, on `page`; `intro` is shown above the keys."""
    from desktop_copilot.qt.settings.dialog import SettingsDialog

    dialog = open_dialog_of(window)
    if dialog is None:
        start_mcp_servers(window)  # its MCP page shows the servers' live states
        for closed in window.findChildren(SettingsDialog):
            closed.deleteLater()
        dialog = SettingsDialog(make_editable(_runtime(window)), window)
        dialog.sig_applied.connect(window.refresh_header)
        dialog.open()
    dialog.show_page(page)
    dialog.keys_page.set_intro(intro)
    if intro:
        dialog.keys_page.focus_key("anthropic")
    dialog.raise_()
    dialog.activateWindow()
    return dialog


def open_dialog_of(window: QMainWindow) -> SettingsDialog | None:
    """The settings dialog the window shows, if any."""
    from desktop_copilot.qt.settings.dialog import SettingsDialog

    return next((d for d in window.findChildren(SettingsDialog) if d.isVisible()), None)


def install_settings_action(window: QMainWindow) -> QAction:
    """File ▸ Settings… with the platform's Preferences shortcut and Ctrl+, (the same on Linux)."""
    action = QAction(QCoreApplication.translate("SettingsEntry", "Settings…"), window, objectName="settingsAction")
    shortcuts = [QKeySequence(QKeySequence.StandardKey.Preferences), QKeySequence("Ctrl+,")]
    action.setShortcuts(list({s.toString(): s for s in shortcuts if not s.isEmpty()}.values()))
    action.setMenuRole(QAction.MenuRole.PreferencesRole)
    action.triggered.connect(lambda: open_settings(window))
    menu = next((a.menu() for a in window.menuBar().actions() if a.menu() and a.menu().objectName() == "fileMenu"),
                None)
    if menu is None:
        menu = window.menuBar().addMenu(QCoreApplication.translate("WindowMenus", "&File"))
        menu.setObjectName("fileMenu")
    menu.addAction(action)
    window.addAction(action)
    return action


def start_mcp_servers(window: QMainWindow) -> None:
    """Starts the MCP servers of mcp.json on their own thread (once; later calls do nothing); a problem goes to the
    window's banner. The window calls it when the user first needs them (app/window_setup.py), and so does the dialog."""
    runtime = _runtime(window)
    if runtime.mcp is not None:
        return
    try:
        start_mcp(runtime)
    except Exception as exc:  # the window works without them
        log.exception("the MCP servers could not be started")
        window.banner.show_error(QCoreApplication.translate("App", "The MCP servers could not be started: {problem}").format(problem=exc))
        return
    if runtime.mcp_config is not None and runtime.mcp_config.problem:
        window.banner.show_error(runtime.mcp_config.problem)


async def show_startup_notices(window: QMainWindow) -> None:
    """Start-up warnings (damaged settings, no keyring) in the banner; without a key for the default provider,
    the dialog where it goes (Anthropic's with where to get one; another provider's row on Providers)."""
    runtime = make_editable(_runtime(window))
    problems = list(runtime.warnings)
    if (problem := await off_gui_thread(keyring_warning, runtime.key_store)) and problem not in problems:
        problems.append(problem)
    if problems:
        window.banner.show_error("\n\n".join(problems))
    default = runtime.spec(runtime.config.provider)
    if not default.needs_key or await off_gui_thread(runtime.keys.has, default.key_name):
        return
    if default.id == "anthropic":
        open_settings(window, "keys", first_run_intro())
    else:
        open_settings(window, "providers").show_provider(default.id)


_startup = BackgroundTasks()


def start_startup_notices(window: QMainWindow) -> None:
    """Schedules `show_startup_notices` on the running (or about to run) qasync loop."""
    _startup.start(show_startup_notices(window))
