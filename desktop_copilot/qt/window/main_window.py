"""The main window: header with the model picker, the transcript, the error banner, the composer, a status
bar with token usage and the menus; its size, splitter and open conversation are kept in the settings at close.
All behaviour lives in the controller; this wires signals and lays out."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore
from PySide6.QtCore import QByteArray, QCoreApplication, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QDesktopServices, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QHBoxLayout, QMainWindow, QMenu, QMessageBox, QSizePolicy, QSplitter, QToolButton, QVBoxLayout, QWidget

from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME, SIDEBAR_WIDTH
from desktop_copilot.qt.common.theme_switch import current_theme
from desktop_copilot.qt.window.startup_frame import StartupFrame, first_frame_theme
from desktop_copilot.qt.window.styles import window_style_sheet

if TYPE_CHECKING:  # the window's parts load in attach(), after the first frame (app/gui.py)
    from desktop_copilot.core.config.first_frame_settings import FirstFrameSettings
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.config.settings import Settings
    from desktop_copilot.core.config.settings_events import SettingsChange
    from desktop_copilot.qt.bridge.controller import ChatController

EARLY_END_OUTCOMES = ("failed", "interrupted", "round_limit", "loop")

log = logging.getLogger(__name__)


class ElidedLabel(PlainLabel):
    """A one-line label that elides instead of forcing the window wider (long conversation titles)."""

    def __init__(self, parent: QWidget | None = None, objectName: str = "") -> None:  # noqa: N803 - Qt name
        super().__init__(parent, objectName=objectName)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        qt = QtCore.Qt  # not imported by name: the Qt namespace costs ~25 ms to build, after the first frame
        text = self.fontMetrics().elidedText(self.text(), qt.TextElideMode.ElideRight, self.contentsRect().width())
        painter.drawText(self.contentsRect(), int(qt.AlignmentFlag.AlignLeft | qt.AlignmentFlag.AlignVCenter), text)


def show_in_file_manager(folder: Path) -> bool:
    """Shows `folder` in the system's file manager."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


def stored_settings(runtime: Runtime) -> Settings:
    """The settings the window state is read from: the runtime's, or settings.json for a runtime built without them."""
    from desktop_copilot.core.config.settings import SettingsFile

    if runtime.settings is not None:
        return runtime.settings
    return SettingsFile(runtime.paths.settings_file).load()


WINDOW_STATE_FIELDS = frozenset({"window_geometry", "window_splitter_sizes", "sidebar_visible", "open_conversation_id",
                                  "transcript_zoom"})
"""Settings the window keeps for itself when it closes: a change of these alone needs no refresh."""

ZOOM_STEPS = (0.67, 0.75, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5)
"""The transcript's text sizes, as browsers step them."""


class MainWindow(QMainWindow):
    sig_closed = Signal()
    sig_unexpected_error = Signal(str)
    """An uncaught exception, in words for the banner (app/gui.py emits it, from any thread)."""

    open_folder: Callable[[Path], bool] = staticmethod(show_in_file_manager)
    """How Help ▸ Open log folder shows the folder; tests put a recorder here."""

    def __init__(self, parent: QWidget | None = None, first_frame: FirstFrameSettings | None = None) -> None:
        """Only the window's frame (with `first_frame`: its last size and place, the theme, a `StartupFrame`), which
        shows at once; `attach(controller)` builds the rest in place (app/window_setup.py)."""
        super().__init__(parent)
        self.controller: ChatController | None = None
        self.setWindowTitle("Desktop Copilot")  # i18n: not translated
        self.resize(1100, 820)
        self._geometry_restored = False
        self._quit_confirmed = False
        self.quit_box: QMessageBox | None = None
        """The question asked when the window is closed while replies are written (tests answer it)."""
        if first_frame is not None:
            self._restore_geometry(first_frame.window_geometry)
            sidebar = first_frame.window_splitter_sizes[0] if len(first_frame.window_splitter_sizes) == 2 else SIDEBAR_WIDTH
            self.setCentralWidget(StartupFrame(sidebar if first_frame.sidebar_visible else 0, first_frame_theme(first_frame.theme)))

    def attach(self, controller: ChatController) -> None:
        """Builds the window's parts around `controller` (replacing the startup frame) and restores its last state."""
        from desktop_copilot.qt.transcript.view import TranscriptView
        from desktop_copilot.qt.window.background_runs import BackgroundRuns
        from desktop_copilot.qt.window.compaction_actions import CompactionActions
        from desktop_copilot.qt.window.composer import Composer
        from desktop_copilot.qt.window.context_meter import install_context_meter
        from desktop_copilot.qt.window.error_banner import ErrorBanner
        from desktop_copilot.qt.window.file_undo_actions import FileUndoActions
        from desktop_copilot.qt.window.generation_options import GenerationAction
        from desktop_copilot.qt.window.history_pane import install_history_pane
        from desktop_copilot.qt.window.menus import install_menus
        from desktop_copilot.qt.window.model_picker import ModelPicker
        from desktop_copilot.qt.window.recovery import RecoveryBar
        from desktop_copilot.qt.window.reply_actions import ReplyActions
        from desktop_copilot.qt.window.system_prompt import new_chat_menu
        from desktop_copilot.qt.window.version_switcher import VersionSwitcher

        self.controller = controller
        self._stop_hearing_settings = controller.session.runtime.settings_events.connect(self.settings_changed)
        controller.setParent(self)
        controller.dialog_parent = self
        self.setStyleSheet(window_style_sheet(current_theme()))  # not before: the first frame paints itself, faster
        self.title_label = ElidedLabel(objectName="conversationTitle")
        self.model_picker = ModelPicker(controller)  # "Provider · model"; opens the list of models
        self.model_label = self.model_picker.model_label
        self.generation_action = GenerationAction(self)  # the conversation's temperature and top-p
        self.view = TranscriptView(controller.model, parent=self)
        self.banner = ErrorBanner()
        self.recovery = RecoveryBar(controller)  # Retry / Continue / Edit under the last reply when it needs them
        self.composer = Composer()
        self.usage_label = PlainLabel(objectName="usageLabel")
        self.compaction = CompactionActions(self)  # Compact now, Undo compaction, New chat from a summary
        self._build_layout()
        self._connect()
        self.history = install_history_pane(self)  # sidebar, search, File menu
        self.history.sidebar.set_new_chat_menu(lambda: new_chat_menu(self))
        self.history.sig_current_changed.connect(lambda _id: self.refresh_header())
        self.history.sig_current_changed.connect(lambda _id: self.recovery.refresh())
        self.background = BackgroundRuns(self)  # calls waiting anywhere, the desktop's attention, notifications
        self.context_meter = install_context_meter(self)  # "38k / 200k" by the composer
        self.edits = ReplyActions(self)  # edit and resend, regenerate
        self.edits.shortcut.setWhatsThis(self.tr("Regenerate the last reply"))  # its line in Help ▸ Keyboard shortcuts
        self.versions = VersionSwitcher(controller, self.view, self)  # earlier versions: switcher and menu
        self.versions.blocked = lambda: self.edits.editing is not None
        self.versions.sig_failed.connect(self.banner.show_error)
        self.history.sig_current_changed.connect(lambda _id: self.versions.refresh())
        self.file_undo = FileUndoActions(self)  # "Undo file changes…" on a reply that changed workspace files
        from desktop_copilot.qt.window.side_by_side_part import SideBySideUi

        self.side_by_side = SideBySideUi(self)  # Ask several models: the chooser, the answers in columns
        from desktop_copilot.qt.window.tools_menu import ConversationTools

        self.tools_menu = ConversationTools(self)  # the tools this conversation offers
        from desktop_copilot.qt.window.knowledge_part import KnowledgePart

        self.knowledge = KnowledgePart(self)  # knowledge sources: indexing, its status, cited passages shown
        self.recovery.sig_edit_requested.connect(self.edits.start_edit)  # a refused reply's Edit and resend
        column = self.composer.parentWidget().layout()
        column.insertWidget(column.indexOf(self.composer), self.edits.bar)
        self.restore_window_state()
        self.menus = install_menus(self)  # File's Settings… and Quit, Edit, View, Help
        self.open_log_folder_action = self.menus.open_log_folder_action
        self.refresh_header()
        self.refresh_usage()
        self.view.approval_keys.tab_after = self.composer.edit  # Tab from the message box reaches a waiting approval card
        self.view.scrollToBottom()
        self.composer.focus()

    def _build_layout(self) -> None:
        header = QWidget(objectName="header")
        header_row = QHBoxLayout(header)
        header_row.setContentsMargins(20, 10, 20, 10)
        header_row.addWidget(self.title_label, 1)
        header_row.addWidget(self.usage_label, 0)
        header_row.addWidget(self._conversation_menu_button(), 0)
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

    def _conversation_menu_button(self) -> QToolButton:
        """The header's "Conversation" menu: its system prompt and its generation options (temperature, top-p)."""
        button = QToolButton(objectName="conversationMenuButton", text=self.tr("Conversation"))
        button.setToolTip(self.tr("This conversation's system prompt and generation options"))
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(button, objectName="conversationMenu")
        menu.setToolTipsVisible(True)
        prompt = menu.addAction(self.tr("System prompt…"), self._open_system_prompt)
        prompt.setToolTip(self.tr("See and edit this conversation's system prompt"))
        menu.addAction(self.generation_action)
        menu.addSeparator()
        menu.addAction(self.compaction.action)
        button.setMenu(menu)
        return button

    def _open_system_prompt(self) -> None:
        from desktop_copilot.qt.window.system_prompt import open_system_prompt

        open_system_prompt(self)

    def _connect(self) -> None:
        controller = self.controller
        self.composer.sig_submitted.connect(self.send)
        self.composer.limits = controller.attachment_limits  # files are checked against the model as they are added
        self.composer.sig_stop_requested.connect(controller.stop)
        controller.sig_busy_changed.connect(self._on_busy_changed)
        controller.sig_error.connect(self.banner.show_error)
        self.sig_unexpected_error.connect(self.banner.show_error)
        controller.sig_run_finished.connect(self._on_run_finished)
        controller.sig_usage_changed.connect(lambda _usage: self.refresh_usage())
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
        controller.sig_storage_problem.connect(self._on_storage_problem)
        if controller.storage_problem is not None:  # e.g. a read-only database at start
            self._on_storage_problem(controller.storage_problem)
        if getattr(controller.session.store, "unopened", None) is not None:  # no database file: kept in memory
            from desktop_copilot.qt.window.disk_retry import DiskRetry

            self.disk_retry = DiskRetry(self)

    def _on_storage_problem(self, problem) -> None:
        """The database refuses writes (the banner says why and what to do; replies wait in memory), or takes them
        again (the banner's standing text goes, the status bar says everything is saved)."""
        from desktop_copilot.qt.window.error_banner import storage_problem_text

        had_problem = bool(self.banner.standing)
        folder = self.controller.session.runtime.paths.data_dir
        self.banner.set_standing("" if problem is None else storage_problem_text(problem.kind, folder))
        if problem is None and had_problem:
            self.statusBar().showMessage(self.tr("The conversation database can be written again: everything is saved."), 8000)

    def _on_approval_needed(self, waiting: int) -> None:
        """Tool calls wait on their cards: say so in the status bar and ask the desktop for attention."""
        if waiting:
            self.statusBar().showMessage(self.tr("1 tool call waiting for your approval in the conversation") if waiting == 1
                                         else self.tr("%n tool calls waiting for your approval in the conversation", "", waiting))
            QApplication.alert(self)
        else:
            self.statusBar().clearMessage()

    # --- window state ----------------------------------------------------------------

    @property
    def splitter(self) -> QSplitter:
        """The conversation list beside the rest of the window (history_pane.py)."""
        return self.findChild(QSplitter, "mainSplitter")

    def set_sidebar_visible(self, visible: bool) -> None:
        """Shows or hides the conversation list (View ▸ Show conversation list); it comes back as wide as it was."""
        sidebar = self.history.sidebar
        if visible == (not sidebar.isHidden()):
            return
        if not visible:
            self._hidden_splitter_sizes = self.splitter.sizes()  # sizes() says 0 for a hidden pane
            if sidebar.isAncestorOf(self.focusWidget()):
                self.composer.focus()
        sidebar.setVisible(visible)

    def splitter_sizes(self) -> list[int]:
        """The widths of the conversation list and the rest; while the list is hidden, the ones it comes back with."""
        return self.splitter.sizes() if not self.history.sidebar.isHidden() else list(self._hidden_splitter_sizes)

    def restore_window_state(self) -> None:
        """Size and place, the list's width and whether it shows, as the window last closed."""
        settings = stored_settings(self.controller.session.runtime)
        if not self._geometry_restored:
            self._restore_geometry(settings.window_geometry)
        if len(settings.window_splitter_sizes) == 2 and settings.window_splitter_sizes[1] > 0:
            self.splitter.setSizes(settings.window_splitter_sizes)
        self._hidden_splitter_sizes = settings.window_splitter_sizes or self.splitter.sizes()
        self.history.sidebar.setVisible(settings.sidebar_visible)
        self.view.set_zoom(settings.transcript_zoom)

    def zoom_transcript(self, step: int) -> None:
        """One step larger (+1) or smaller (-1), or the actual size (0); kept with the window's state."""
        current = self.view.delegate.zoom
        if step == 0:
            factor = 1.0
        elif step > 0:
            factor = next((z for z in ZOOM_STEPS if z > current + 1e-3), ZOOM_STEPS[-1])
        else:
            factor = next((z for z in reversed(ZOOM_STEPS) if z < current - 1e-3), ZOOM_STEPS[0])
        self.view.set_zoom(factor)
        self.statusBar().showMessage(self.tr("Text size {percent} %").format(percent=round(factor * 100)), 1500)

    def _restore_geometry(self, geometry: str | None) -> None:
        if geometry:
            self.restoreGeometry(QByteArray.fromBase64(geometry.encode("ascii")))
            self._geometry_restored = True

    def window_state(self) -> dict:
        """The Settings fields the window keeps: geometry, splitter sizes, whether the list shows, the open conversation."""
        return {"window_geometry": bytes(self.saveGeometry().toBase64().data()).decode("ascii"),
                "window_splitter_sizes": self.splitter_sizes(),
                "sidebar_visible": not self.history.sidebar.isHidden(),
                "transcript_zoom": self.view.delegate.zoom,
                "open_conversation_id": self.controller.session.conversation.id}  # a new chat is not stored: the latest opens

    def save_window_state(self) -> bool:
        """Writes the window state to settings.json (the other settings as they are); False when it could not be saved."""
        from desktop_copilot.core.config.settings import Settings, SettingsError, SettingsFile

        runtime = self.controller.session.runtime
        settings_file = runtime.settings_file or SettingsFile(runtime.paths.settings_file)
        current = runtime.settings if runtime.settings is not None else settings_file.load()
        updated = Settings.model_validate({**current.model_dump(), **self.window_state()})
        try:
            settings_file.save(updated)
        except (SettingsError, OSError) as exc:
            log.warning("the window's size and open conversation were not saved: %s", exc)
            return False
        if runtime.settings is not None:
            runtime.settings = updated
        return True

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
            self.banner.show_error(self.tr("Could not open the log folder. It is at {folder}").format(folder=folder))

    def open_key_settings(self, provider_id: str) -> None:
        """Settings on the page that holds `provider_id`'s key; the header follows what is applied there."""
        from desktop_copilot.qt.settings.entry import open_settings

        dialog = open_settings(self, "providers")
        dialog.show_key(provider_id)
        dialog.sig_applied.connect(self.refresh_header)

    def refresh_header(self) -> None:
        """The conversation's title, and the provider and model its next message goes to."""
        conversation = self.controller.session.conversation
        self.title_label.setText(conversation.title or QCoreApplication.translate("ConversationList", "New chat"))
        self.model_picker.refresh()
        self.generation_action.refresh()
        self.compaction.refresh()
        self.composer.edit.setPlaceholderText(self.tr("Message {name}…").format(name=self.assistant_name()))

    def assistant_name(self) -> str:
        """Who answers the next message, as people call it ("Claude", "Gemini"), else the provider's name ("DeepSeek")."""
        from desktop_copilot.core.provider_table import UnknownProviderError

        try:
            named = self.controller.session.runtime.spec(self.controller.provider_id).assistant_name
        except UnknownProviderError:  # an endpoint removed since
            named = ""
        return named or self.model_picker.provider_label.text()

    # --- slots -----------------------------------------------------------------------

    def send(self, text: str) -> bool:
        """The composer's send: an edit and resend while a message is being edited, a new message otherwise.
        The composer keeps the text until the message is in the conversation."""
        if self.edits.editing is not None:
            return self.edits.resend(text)
        self.banner.dismiss()
        if not self.controller.send(text, self.composer.attachments()):
            return False
        self.view.follow()
        return True

    def _on_busy_changed(self, busy: bool) -> None:
        self.composer.set_busy(busy)
        self.view.set_live(busy)
        self.refresh_header()
        if busy:
            self.statusBar().showMessage(self.tr("{name} is replying…").format(name=self.assistant_name()))
        else:
            self.statusBar().clearMessage()
            self.composer.focus()

    def _on_run_finished(self, outcome: str, detail: str) -> None:
        if outcome in EARLY_END_OUTCOMES and not self._reply_says(detail):
            self.banner.show_error(detail or self.tr("The reply ended early ({outcome}).").format(outcome=outcome))
        elif outcome == "stopped":
            self.statusBar().showMessage(self.tr("Stopped. The partial reply was kept."), 5000)

    def _reply_says(self, detail: str) -> bool:
        """Whether the conversation's last reply already shows `detail`: its marked notice in the transcript is the one
        place a failed or interrupted reply's error shows (the recovery bar under it offers Retry and Continue without
        repeating it), so the banner stays away. A reply that failed without words ("" here) says "The reply failed."."""
        from desktop_copilot.core.conversation.statuses import MessageStatus, Role

        messages = self.controller.session.conversation.messages
        reply = messages[-1] if messages else None
        if reply is None or reply.role is not Role.ASSISTANT or reply.status not in (MessageStatus.FAILED, MessageStatus.INTERRUPTED):
            return False
        return not detail.strip() or detail.strip() in (reply.error or "")

    def _on_message_sent(self, text: str) -> None:
        if self.edits.editing is None:
            self.composer.accept_sent(text)

    def refresh_usage(self) -> None:
        """The conversation's tokens and cost (each reply at its model's price); every kind in the tooltip."""
        from desktop_copilot.qt.window.usage_display import format_usage, session_totals, usage_tooltip

        totals = session_totals(self.controller.session, ledger=self.controller.usage)
        self.usage_label.setText(format_usage(totals))
        self.usage_label.setToolTip(usage_tooltip(totals))

    def confirm_quit(self) -> None:
        """Ask whether to stop the replies being written and quit, or keep the window open (window-modal, so the
        runs go on while the question is asked)."""
        if self.quit_box is not None:
            self.quit_box.raise_()
            return
        running = len(self.controller.running_conversations())
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Replies are still being written"),
                          self.tr("%n conversation(s) are still getting a reply. Stop them and quit? What has arrived is "
                                  "kept and marked stopped.", "", running), QMessageBox.StandardButton.NoButton, self)
        box.setObjectName("quitBox")
        stop = box.addButton(self.tr("Stop and quit"), QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton(self.tr("Keep the window open"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        box.setEscapeButton(keep)
        box.setWindowModality(QtCore.Qt.WindowModality.WindowModal)  # QtCore.Qt: built after the first frame

        def answered(_result: int) -> None:
            self.quit_box = None
            box.deleteLater()
            if box.clickedButton() is stop:
                self._quit_confirmed = True
                self.close()

        box.finished.connect(answered)
        self.quit_box = box
        box.open()

    def settings_changed(self, change: SettingsChange) -> None:
        """The settings changed (the dialog's OK or Apply, a model picked, a list of models fetched): the header shows
        where the next message goes, the usage the prices; what the window itself keeps changes neither."""
        if change.fields - WINDOW_STATE_FIELDS:
            self.refresh_header()
        if "model_prices" in change.fields:
            self.refresh_usage()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt name
        if self.controller is not None and self.controller.running_conversations() and not self._quit_confirmed:
            event.ignore()  # replies are still being written: ask first
            self.confirm_quit()
            return
        if self.controller is not None:  # closed during its first frame: nothing to stop or keep yet
            self._stop_hearing_settings()
            self.controller.stop_all()  # what arrived is kept and marked stopped, as with Stop
            self.knowledge.stop()  # the indexing worker and the file watcher
            from desktop_copilot.qt.transcript.parts.tail_renderer import stop_shared_tail_worker

            stop_shared_tail_worker()  # the thread that renders streaming Markdown
            self.save_window_state()
        super().closeEvent(event)
        self.sig_closed.emit()

