"""The main window: header with the model picker, the transcript, the error banner, the composer, a status
bar with token usage and the Help menu. All behaviour lives in the controller; this wires signals and lays out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QHBoxLayout, QMainWindow, QSizePolicy, QVBoxLayout, QWidget

from desktop_copilot.core.models import Usage
from desktop_copilot.qt.window.composer import Composer
from desktop_copilot.qt.bridge.controller import ChatController, conversation_usage
from desktop_copilot.qt.window.error_banner import ErrorBanner
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.window.styles import window_style_sheet
from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.transcript.view import TranscriptView
from desktop_copilot.qt.window.history_pane import install_history_pane
from desktop_copilot.qt.window.model_picker import ModelPicker
from desktop_copilot.qt.window.model_popup import key_page
from desktop_copilot.qt.window.recovery import RecoveryBar
from desktop_copilot.qt.window.reply_actions import ReplyActions
from desktop_copilot.qt.window.version_switcher import VersionSwitcher

EARLY_END_OUTCOMES = ("failed", "interrupted", "round_limit", "loop")


class ElidedLabel(PlainLabel):
    """A one-line label that elides instead of forcing the window wider (long conversation titles)."""

    def __init__(self, parent: QWidget | None = None, objectName: str = "") -> None:  # noqa: N803 - Qt name
        super().__init__(parent, objectName=objectName)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, self.contentsRect().width())
        painter.drawText(self.contentsRect(), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)


def show_in_file_manager(folder: Path) -> bool:
    """Shows `folder` in the system's file manager."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


def format_usage(usage: Usage) -> str:
    text = f"Tokens: {usage.input_tokens:,} in · {usage.output_tokens:,} out"
    if usage.cache_read_tokens or usage.cache_write_tokens:
        text += f" · cache {usage.cache_read_tokens:,} read / {usage.cache_write_tokens:,} written"
    return text


class MainWindow(QMainWindow):
    sig_closed = Signal()
    sig_unexpected_error = Signal(str)
    """An uncaught exception, in words for the banner (app/gui.py emits it, from any thread)."""

    open_folder: Callable[[Path], bool] = staticmethod(show_in_file_manager)
    """How Help ▸ Open log folder shows the folder; tests put a recorder here."""

    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        controller.setParent(self)
        controller.dialog_parent = self
        self.setWindowTitle("Desktop Copilot")
        self.resize(1100, 820)
        self.setStyleSheet(window_style_sheet(DEFAULT_THEME))
        self.title_label = ElidedLabel(objectName="conversationTitle")
        self.model_picker = ModelPicker(controller)  # "Provider · model"; opens the list of models
        self.model_label = self.model_picker.model_label
        self.view = TranscriptView(controller.model, parent=self)
        self.banner = ErrorBanner()
        self.recovery = RecoveryBar(controller)  # Retry / Continue / Edit under the last reply when it needs them
        self.composer = Composer()
        self.usage_label = PlainLabel(objectName="usageLabel")
        self._build_layout()
        self._connect()
        self.history = install_history_pane(self)  # sidebar, search, File menu
        self.history.sig_current_changed.connect(lambda _id: self.refresh_header())
        self.history.sig_current_changed.connect(lambda _id: self.recovery.refresh())
        self.edits = ReplyActions(self)  # edit and resend, regenerate
        self.versions = VersionSwitcher(controller, self.view, self)  # earlier versions: switcher and menu
        self.versions.blocked = lambda: self.edits.editing is not None
        self.versions.sig_failed.connect(self.banner.show_error)
        self.history.sig_current_changed.connect(lambda _id: self.versions.refresh())
        self.recovery.sig_edit_requested.connect(self.edits.start_edit)  # a refused reply's Edit and resend
        column = self.composer.parentWidget().layout()
        column.insertWidget(column.indexOf(self.composer), self.edits.bar)
        self.open_log_folder_action = self._build_help_menu()
        self.refresh_header()
        self.usage_label.setText(format_usage(conversation_usage(controller.session.conversation)))
        self.view.scrollToBottom()
        self.composer.focus()

    def _build_layout(self) -> None:
        header = QWidget(objectName="header")
        header_row = QHBoxLayout(header)
        header_row.setContentsMargins(20, 10, 20, 10)
        header_row.addWidget(self.title_label, 1)
        header_row.addWidget(self.model_picker, 0)
        bottom = QWidget(objectName="bottomArea")
        bottom_row = QHBoxLayout(bottom)
        bottom_row.setContentsMargins(DEFAULT_THEME.margin, 4, DEFAULT_THEME.margin, 14)
        bottom_column = QVBoxLayout()
        bottom_column.setSpacing(8)
        bottom_column.addWidget(self.recovery)
        bottom_column.addWidget(self.banner)
        bottom_column.addWidget(self.composer)
        holder = QWidget()
        holder.setLayout(bottom_column)
        bottom_column.setContentsMargins(0, 0, 0, 0)
        holder.setMaximumWidth(DEFAULT_THEME.max_column_width + 8)
        bottom_row.addWidget(holder)
        central = QWidget(objectName="central")
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(header)
        column.addWidget(self.view, 1)
        column.addWidget(bottom)
        self.setCentralWidget(central)
        self.statusBar().addPermanentWidget(self.usage_label)

    def _connect(self) -> None:
        controller = self.controller
        self.composer.sig_submitted.connect(self.send)
        self.composer.sig_stop_requested.connect(controller.stop)
        controller.sig_busy_changed.connect(self._on_busy_changed)
        controller.sig_error.connect(self.banner.show_error)
        self.sig_unexpected_error.connect(self.banner.show_error)
        controller.sig_run_finished.connect(self._on_run_finished)
        controller.sig_usage_changed.connect(lambda usage: self.usage_label.setText(format_usage(usage)))
        controller.sig_user_message_sent.connect(self._on_message_sent)
        controller.model.sig_message_appended.connect(lambda _id: self.refresh_header())
        controller.model.sig_message_appended.connect(lambda _id: self.recovery.refresh())
        controller.sig_busy_changed.connect(lambda _busy: self.recovery.refresh())
        self.recovery.sig_started.connect(lambda _action: self.banner.dismiss())
        controller.sig_model_changed.connect(self.refresh_header)
        controller.sig_model_changed.connect(self.composer.focus)  # chosen: type the next message
        self.model_picker.sig_add_key_requested.connect(self.open_key_settings)
        self.view.sig_tool_decision.connect(controller.decide)
        controller.sig_approval_needed.connect(self._on_approval_needed)

    def _on_approval_needed(self, waiting: int) -> None:
        """Tool calls wait on their cards: say so in the status bar and ask the desktop for attention."""
        if waiting:
            self.statusBar().showMessage(f"{waiting} tool call{'s' if waiting > 1 else ''} waiting for your approval in the conversation")
            QApplication.alert(self)
        else:
            self.statusBar().clearMessage()

    def _build_help_menu(self) -> QAction:
        menu = self.menuBar().addMenu("&Help")
        menu.setObjectName("helpMenu")
        action = QAction("Open log folder", self, objectName="openLogFolderAction")
        action.setToolTip("Show the folder with the app's log files, to attach to a bug report")
        action.triggered.connect(self.open_log_folder)
        menu.addAction(action)
        return action

    @property
    def log_folder(self) -> Path:
        return self.controller.session.runtime.paths.log_dir

    def open_log_folder(self) -> None:
        folder = self.log_folder
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        if not self.open_folder(folder):
            self.banner.show_error(f"Could not open the log folder. It is at {folder}")

    def open_key_settings(self, provider_id: str) -> None:
        """Settings on the page that holds `provider_id`'s key; the header follows what is applied there."""
        from desktop_copilot.qt.settings.entry import open_settings

        try:
            dialog = open_settings(self, key_page(provider_id))
        except ValueError:  # a dialog without that page
            dialog = open_settings(self, "keys")
        dialog.sig_applied.connect(self.refresh_header)

    def refresh_header(self) -> None:
        """The conversation's title, and the provider and model its next message goes to."""
        conversation = self.controller.session.conversation
        self.title_label.setText(conversation.title or "New chat")
        self.model_picker.refresh()
        self.composer.edit.setPlaceholderText(f"Message {self.assistant_name()}…")

    def assistant_name(self) -> str:
        """Who answers the next message: "Claude", or the provider's name ("DeepSeek")."""
        return "Claude" if self.controller.provider_id == "anthropic" else self.model_picker.provider_label.text()

    # --- slots -----------------------------------------------------------------------

    def send(self, text: str) -> bool:
        """The composer's send: an edit and resend while a message is being edited, a new message otherwise.
        The composer keeps the text until the message is in the conversation."""
        if self.edits.editing is not None:
            return self.edits.resend(text)
        self.banner.dismiss()
        if not self.controller.send(text):
            return False
        self.view.follow()
        return True

    def _on_busy_changed(self, busy: bool) -> None:
        self.composer.set_busy(busy)
        self.view.set_live(busy)
        self.refresh_header()
        if busy:
            self.statusBar().showMessage(f"{self.assistant_name()} is replying…")
        else:
            self.statusBar().clearMessage()
            self.composer.focus()

    def _on_run_finished(self, outcome: str, detail: str) -> None:
        if outcome in EARLY_END_OUTCOMES:
            self.banner.show_error(detail or f"The reply ended early ({outcome}).")
        elif outcome == "stopped":
            self.statusBar().showMessage("Stopped. The partial reply was kept.", 5000)

    def _on_message_sent(self, text: str) -> None:
        if self.edits.editing is None:
            self.composer.accept_sent(text)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt name
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.refresh_header()  # back from the settings dialog: the default provider may have changed
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt name
        self.controller.stop()
        super().closeEvent(event)
        self.sig_closed.emit()

