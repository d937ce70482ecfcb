"""How the settings dialog is reached: the File ▸ Settings… action (Ctrl+,), and at start-up the banner for start-up
warnings and, while no provider can answer, the welcome (welcome.py) that leads to a key or a local server; the MCP
servers started on first use (the window's first message, or the dialog's MCP page)."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

from desktop_copilot.core.bootstrap import apply_settings, keyring_status_warning, keyring_warning, make_editable, start_mcp
from desktop_copilot.core.config.app_config import PROVIDER_ENV
from desktop_copilot.core.config.settings import Settings, SettingsError, models_cache_now
from desktop_copilot.core.readiness import provider_readiness
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.bridge.background import BackgroundTasks, off_gui_thread

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # the dialog and its pages are imported when it first opens, not before the first frame
    from desktop_copilot.qt.settings.dialog import SettingsDialog
    from desktop_copilot.qt.settings.welcome import WelcomeDialog


def _runtime(window: QMainWindow) -> Runtime:
    return window.controller.session.runtime


def open_settings(window: QMainWindow, page: str = "providers") -> SettingsDialog:
    """Shows the (one) settings dialog, window-modal, on `page`."""
    from desktop_copilot.qt.settings.dialog import SettingsDialog

    dialog = open_dialog_of(window)
    if dialog is None:
        start_mcp_servers(window)  # its MCP page shows the servers' live states
        for closed in window.findChildren(SettingsDialog):
            closed.deleteLater()
        dialog = SettingsDialog(make_editable(_runtime(window)), window)
        dialog.sig_applied.connect(window.refresh_header)
        dialog.show_page(page)  # before it shows: no other page opens (the Providers page asks the local servers)
        dialog.open()
    dialog.show_page(page)
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


async def show_startup_notices(window: QMainWindow) -> WelcomeDialog | SettingsDialog | None:
    """Start-up warnings (damaged settings, no keyring) in the banner. While no provider can answer (no key for a cloud
    provider, no local server running), the welcome; when a default provider chosen in the settings or the environment
    has no key while another can answer, its row on Settings ▸ Providers. Returns the dialog it opened."""
    runtime = make_editable(_runtime(window))
    problems = list(runtime.warnings)
    presence = await runtime.learn_key_presence()  # the keyring's libraries load when a key is first read, not now
    problem = (keyring_status_warning(presence.status) if presence is not None
               else await off_gui_thread(keyring_warning, runtime.key_store))
    if problem and problem not in problems:
        problems.append(problem)
    if problems:
        window.banner.show_error("\n\n".join(problems))
    default = runtime.spec(runtime.config.provider)
    if (default.custom and not default.needs_key) or (default.needs_key and (await runtime.keys_present([default.key_name]))[default.key_name]):
        return None
    readiness = await provider_readiness(runtime)
    if not readiness.usable:
        return open_welcome(window, readiness.running)
    if default.needs_key and _default_was_chosen(runtime):
        dialog = open_settings(window, "providers")
        dialog.show_provider(default.id)
        return dialog
    return None


def _default_was_chosen(runtime: Runtime) -> bool:
    """Whether someone named the default provider (Settings ▸ Providers or DESKTOP_COPILOT_PROVIDER), rather than the
    app falling back to its own: only then is a missing key of it worth opening the settings for."""
    return bool((runtime.settings is not None and runtime.settings.default_provider) or os.environ.get(PROVIDER_ENV, "").strip())


def open_welcome(window: QMainWindow, running: dict[str, list[str]] | None = None) -> WelcomeDialog:
    """The welcome, window-modal: a cloud provider chosen opens its key field, a ready local server is used at once."""
    from PySide6.QtCore import Qt

    from desktop_copilot.qt.settings.welcome import WelcomeDialog

    runtime = _runtime(window)
    welcome = WelcomeDialog(runtime, running, window, default_id=runtime.config.provider)
    welcome.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    welcome.sig_add_key.connect(lambda provider_id: open_settings(window, "providers").show_provider(provider_id))
    welcome.sig_use_server.connect(lambda provider_id, models: use_local_server(window, provider_id, models))
    welcome.open()
    return welcome


def use_local_server(window: QMainWindow, provider_id: str, models: list[str]) -> bool:
    """A ready local server chosen in the welcome: the default provider from now on (its models kept for the picker)
    and the open conversation's, with the first model it listed. False when the settings could not be saved."""
    runtime = _runtime(window)
    settings = runtime.settings or Settings()
    listed = {**settings.provider_models, provider_id: models_cache_now(models)} if models else settings.provider_models
    try:
        apply_settings(runtime, settings.model_copy(update={"default_provider": provider_id, "provider_models": listed}))
    except (SettingsError, OSError) as exc:
        window.banner.show_error(QCoreApplication.translate("SettingsEntry", "The choice was not saved: {problem}").format(problem=exc))
        return False
    if models:
        window.controller.choose_model(provider_id, models[0])
    window.refresh_header()
    return True


_startup = BackgroundTasks()


def start_startup_notices(window: QMainWindow) -> None:
    """Schedules `show_startup_notices` on the running (or about to run) qasync loop."""
    _startup.start(show_startup_notices(window))
