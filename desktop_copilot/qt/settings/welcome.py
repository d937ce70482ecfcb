"""The first-start welcome, shown while no provider can answer (no key for a cloud provider, no model server running on
this computer): the local servers found running, marked Ready, to use at once, and each cloud provider with where to
get its key (the address shown before it is opened) and the way to its key field on Settings ▸ Providers."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QFrame, QGridLayout, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.provider_table import ProviderSpec
from desktop_copilot.core.readiness import local_servers_running
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.bridge.background import BackgroundTasks
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme_switch import current_theme
from desktop_copilot.qt.settings.styles import set_kind, settings_style_sheet


def _card(title: str) -> tuple[QFrame, QVBoxLayout]:
    frame = QFrame(objectName="settingsGroup")
    column = QVBoxLayout(frame)
    column.setContentsMargins(16, 12, 16, 12)
    column.setSpacing(8)
    column.addWidget(PlainLabel(title, objectName="groupTitle"))
    return frame, column


class WelcomeDialog(QDialog):
    """Emits what the user chose and closes; the window opens the key field or switches to the server."""

    sig_add_key = Signal(str)
    """A cloud provider was chosen: its id."""
    sig_use_server = Signal(str, list)
    """A ready local server was chosen: its id and the models it listed."""

    def __init__(self, runtime: Runtime, running: dict[str, list[str]] | None = None, parent: QWidget | None = None, *,
                 default_id: str = "", open_url: Callable[[QUrl], object] = QDesktopServices.openUrl) -> None:
        """`running`: the local servers already found running (None: they are asked when the dialog shows);
        `default_id`: the provider whose key field gets the focus first."""
        super().__init__(parent, objectName="welcomeDialog")
        self.runtime = runtime
        self.open_url = open_url
        self.tasks = BackgroundTasks()
        self.running: dict[str, list[str]] = dict(running or {})
        self._asked = running is not None
        specs = [spec for spec in runtime.providers().values() if not spec.custom]
        self.local = [spec for spec in specs if spec.local]
        self.cloud = [spec for spec in specs if not spec.local]
        self.setWindowTitle(self.tr("Welcome"))
        self.setStyleSheet(settings_style_sheet(current_theme()))
        self.resize(720, 640)
        self.add_buttons: dict[str, QPushButton] = {}
        self.open_buttons: dict[str, QPushButton] = {}
        self.use_buttons: dict[str, QPushButton] = {}
        self.servers = QGridLayout()
        self.servers_note = PlainLabel(objectName="hint", wordWrap=True)
        self.check_button = QPushButton(self.tr("Check again"))
        self.check_button.setToolTip(self.tr("Ask the model servers on this computer again whether they run"))
        self.later_button = QPushButton(self.tr("Later"))
        self.later_button.setToolTip(self.tr("Close; Settings ▸ Providers (Ctrl+,) has all of this"))
        self._layout()
        self.check_button.clicked.connect(self.check_again)
        self.later_button.clicked.connect(self.reject)
        self.show_servers(self.running)
        focus = self.add_buttons.get(default_id) or next(iter(self.add_buttons.values()), self.later_button)
        focus.setFocus(Qt.FocusReason.OtherFocusReason)

    def _layout(self) -> None:
        column = QVBoxLayout(self)
        column.setContentsMargins(24, 20, 24, 16)
        column.setSpacing(12)
        column.addWidget(PlainLabel(self.tr("Welcome to Desktop Copilot"), objectName="pageTitle"))
        column.addWidget(PlainLabel(self.tr(
            "Choose who answers. A service in the cloud needs its API key, which is kept in your system keyring, never "
            "in a file. A model server on this computer needs none."), objectName="pageSubtitle", wordWrap=True))
        local, local_column = _card(self.tr("On this computer"))
        local_column.addLayout(self.servers)
        checking = QHBoxLayout()
        checking.addWidget(self.servers_note, 1)
        checking.addWidget(self.check_button, 0, Qt.AlignmentFlag.AlignTop)
        local_column.addLayout(checking)
        cloud, cloud_column = _card(self.tr("In the cloud: needs an API key"))
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(6)
        grid.setColumnStretch(1, 1)
        for row, spec in enumerate(self.cloud):
            self._add_cloud_row(grid, row, spec)
        cloud_column.addLayout(grid)
        column.addWidget(local)
        column.addWidget(cloud, 1)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.later_button)
        column.addLayout(bottom)

    def _add_cloud_row(self, grid: QGridLayout, row: int, spec: ProviderSpec) -> None:
        address = PlainLabel(spec.key_url, objectName="hint")
        address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        opener = QPushButton(self.tr("Open page"))
        opener.setToolTip(self.tr("Open {url} in your browser").format(url=spec.key_url))
        opener.setAccessibleName(self.tr("Open the page where you get a {provider} key").format(provider=spec.label))
        opener.clicked.connect(lambda _checked=False, url=spec.key_url: self.open_url(QUrl(url)))
        adder = QPushButton(self.tr("Add key…"))
        adder.setAccessibleName(self.tr("Add a {provider} key").format(provider=spec.label))
        adder.setToolTip(self.tr("Settings ▸ Providers, with the cursor in the {provider} key field").format(provider=spec.label))
        adder.clicked.connect(lambda _checked=False, provider_id=spec.id: self.choose_cloud(provider_id))
        for column, widget in enumerate((PlainLabel(spec.label, objectName="providerName"), address, opener, adder)):
            grid.addWidget(widget, row, column)
        self.open_buttons[spec.id], self.add_buttons[spec.id] = opener, adder

    # --- the local servers -----------------------------------------------------------------

    def showEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().showEvent(event)
        if not self._asked:
            self._asked = True
            self.check_again()

    def check_again(self) -> None:
        self.tasks.start(self._check())

    async def _check(self) -> dict[str, list[str]]:
        self.check_button.setEnabled(False)
        self.servers_note.setText(self.tr("Looking for model servers on this computer…"))
        self.servers_note.show()
        try:
            running = await local_servers_running(self.runtime)
        finally:
            self.check_button.setEnabled(True)
        self.show_servers(running)
        return running

    def show_servers(self, running: dict[str, list[str]]) -> None:
        """A row with Use for each server that listed its models; a note naming those to start otherwise."""
        self.running = dict(running)
        while self.servers.count():
            self.servers.takeAt(0).widget().deleteLater()
        self.use_buttons.clear()
        ready = [spec for spec in self.local if spec.id in running]
        for row, spec in enumerate(ready):
            models = running[spec.id]
            state = PlainLabel(self.tr("Ready · %n models", "", len(models)), objectName="serverState")
            set_kind(state, "running" if models else "stopped")
            where = PlainLabel(self.runtime.base_url(spec), objectName="hint")
            use = QPushButton(self.tr("Use {provider}").format(provider=spec.label), objectName="primaryButton")
            use.setEnabled(bool(models))  # a server without a model cannot answer
            use.clicked.connect(lambda _checked=False, provider_id=spec.id: self.choose_server(provider_id))
            for column, widget in enumerate((PlainLabel(spec.label, objectName="providerName"), state, where, use)):
                self.servers.addWidget(widget, row, column)
            self.use_buttons[spec.id] = use
        self.servers.setColumnStretch(2, 1)
        names = ", ".join(spec.label for spec in self.local if spec.id not in running)
        self.servers_note.setText(self.tr("Not running: {names}.").format(names=names) if ready else
                                  self.tr("No model server is running here. Start one ({names}), then press Check again.")
                                  .format(names=names))
        self.servers_note.setVisible(bool(names))
        if ready and self.use_buttons[ready[0].id].isEnabled():
            self.use_buttons[ready[0].id].setFocus(Qt.FocusReason.OtherFocusReason)

    # --- choosing ----------------------------------------------------------------------------

    def choose_cloud(self, provider_id: str) -> None:
        self.accept()
        self.sig_add_key.emit(provider_id)

    def choose_server(self, provider_id: str) -> None:
        self.accept()
        self.sig_use_server.emit(provider_id, list(self.running.get(provider_id, [])))

    def done(self, result: int) -> None:
        self.tasks.cancel_all()
        super().done(result)
