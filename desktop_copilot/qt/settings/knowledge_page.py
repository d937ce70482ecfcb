"""The Knowledge page: the folders and files search_knowledge searches (add, remove, switch, reindex: these act at once,
in the knowledge database), the files each one left out and why, live progress while indexing, and the embedding model
(none: words only) saved into `Settings.knowledge_embedding` on OK/Apply."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QListWidget,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.knowledge.library import KnowledgeError, SourceRow
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.common.theme_switch import current_theme, themed_style_sheet
from desktop_copilot.qt.history.conversation_list_model import time_text
from desktop_copilot.qt.knowledge.indexing import KnowledgeIndexing
from desktop_copilot.qt.knowledge.viewer import ElidedPath
from desktop_copilot.qt.settings.knowledge_embedding import EmbeddingGroup
from desktop_copilot.qt.settings.models_page import hint
from desktop_copilot.qt.settings.styles import set_kind
from desktop_copilot.qt.settings.toggle_switch import ToggleSwitch
from desktop_copilot.core.knowledge.reasons import reason_text

COLUMNS = (QT_TRANSLATE_NOOP("KnowledgePage", "On"), QT_TRANSLATE_NOOP("KnowledgePage", "Source"),
           QT_TRANSLATE_NOOP("KnowledgePage", "Files"), QT_TRANSLATE_NOOP("KnowledgePage", "Passages"),
           QT_TRANSLATE_NOOP("KnowledgePage", "Left out"), QT_TRANSLATE_NOOP("KnowledgePage", "State"))
SWITCH, SOURCE, FILES, PASSAGES, LEFT_OUT, STATE = range(len(COLUMNS))
ROW_HEIGHT = 44
SWITCH_WIDTH = 66
"""The switch (38 px) with the cell's padding and some air."""
COUNTS_EVERY_S = 1.0
"""While a source is indexed, its counts are read again at most this often."""


@themed_style_sheet
def knowledge_style_sheet(theme: Theme) -> str:
    return f"""
        QTableWidget#knowledgeSources, QListWidget#knowledgeProblems {{
            background: {theme.card}; border: 1px solid {theme.border}; border-radius: 8px; outline: none;
            selection-background-color: {theme.row_selected}; selection-color: {theme.text};
        }}
        QListWidget#knowledgeProblems::item {{ padding: 3px 6px; }}
        QTableWidget#knowledgeSources::item {{ padding: 0 6px; }}
        QTableWidget#knowledgeSources::item:selected, QListWidget#knowledgeProblems::item:selected {{
            background: {theme.row_selected}; color: {theme.text};
        }}
        QTableWidget#knowledgeSources QHeaderView::section {{
            background: {theme.card}; color: {theme.muted}; border: none; border-bottom: 1px solid {theme.border};
            padding: 5px 6px; font-size: 9pt;
        }}
        QLabel#sourceName {{ font-weight: 600; background: transparent; }}
        QTableWidget#knowledgeSources QLabel#hint {{ background: transparent; }}
    """


def window_indexing(window: QWidget | None) -> KnowledgeIndexing | None:
    """The window's indexing (made if need be, not started), or None for a dialog without a window."""
    part = getattr(window, "knowledge", None)
    return part.ensure_indexing() if part is not None else None


def unique_name(wanted: str, taken: set[str]) -> str:
    """`wanted`, or "wanted 2", "wanted 3"… when a source is already called so."""
    name, number = wanted, 2
    while name.casefold() in taken:
        name, number = f"{wanted} {number}", number + 1
    return name


def state_text(source: SourceRow, indexing: KnowledgeIndexing, now: float | None = None) -> str:
    """"Indexing 40%", "Waiting to index", "Embedding…", "Indexed 2 min ago", "Not indexed yet"."""
    key = source.name.casefold()
    if key in indexing.removing:
        return QCoreApplication.translate("KnowledgePage", "Removing…")
    if (running := indexing.running.get(key)) is not None:
        percent = running.done * 100 // running.total if running.total else 0
        return QCoreApplication.translate("KnowledgePage", "Indexing {percent}%").format(percent=percent)
    if key in indexing.waiting:
        return QCoreApplication.translate("KnowledgePage", "Waiting to index")
    if key in indexing.embedding:
        return QCoreApplication.translate("KnowledgePage", "Embedding…")
    if source.indexed_at is None:
        return QCoreApplication.translate("KnowledgePage", "Not indexed yet")
    return QCoreApplication.translate("KnowledgePage", "Indexed {when}").format(when=time_text(source.indexed_at, now))


class SourceCell(QWidget):
    """A source's name over its path (elided in the middle); clicks go through to the table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = PlainLabel(objectName="sourceName")
        self.path = ElidedPath(objectName="hint")
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 3, 6, 3)
        column.setSpacing(0)
        column.addWidget(self.name)
        column.addWidget(self.path)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)

    def show_source(self, source: SourceRow) -> None:
        self.name.setText(source.name)
        self.path.set_path(source.path)


class KnowledgePage(QWidget):
    def __init__(self, runtime: Runtime, settings: Settings | None = None, indexing: KnowledgeIndexing | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="knowledgePage")
        self.setStyleSheet(knowledge_style_sheet(current_theme()))
        settings = settings or Settings()
        self.runtime = runtime
        self.owns_indexing = indexing is None
        self.indexing = indexing or KnowledgeIndexing(runtime, self)
        self.applied_embedding = settings.knowledge_embedding
        self.sources: list[SourceRow] = []
        self.file_dialog: QFileDialog | None = None
        """The last folder or file chooser opened (tests drive it)."""
        self.remove_box: QMessageBox | None = None
        """The question asked before a source is removed (tests answer it)."""
        self._counts_read = 0.0
        self.table = QTableWidget(0, len(COLUMNS), objectName="knowledgeSources")
        self.add_folder_button = QPushButton(self.tr("Add folder…"), objectName="addKnowledgeFolder")
        self.add_file_button = QPushButton(self.tr("Add file…"), objectName="addKnowledgeFile")
        self.reindex_button = QPushButton(self.tr("Reindex"), objectName="reindexKnowledge")
        self.reindex_button.setToolTip(self.tr("Read every file of the selected source again"))
        self.remove_button = QPushButton(self.tr("Remove"), objectName="removeKnowledge")
        self.message = hint()
        self.message.hide()
        self.problems_title = PlainLabel(objectName="sectionTitle")
        self.problems = QListWidget(objectName="knowledgeProblems")
        self.problems.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.embedding = EmbeddingGroup(settings.knowledge_embedding)
        self._set_up_table()
        self._layout()
        self.add_folder_button.clicked.connect(lambda: self.choose(folder=True))
        self.add_file_button.clicked.connect(lambda: self.choose(folder=False))
        self.reindex_button.clicked.connect(self.reindex_selected)
        self.remove_button.clicked.connect(self.ask_to_remove)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.indexing.sig_progress.connect(self._on_progress)
        self.indexing.sig_changed.connect(self.refresh)
        self.indexing.sig_failed.connect(lambda text: self.say(text, "error"))
        self.indexing.sig_embedding.connect(self._on_embedding)
        self.clock = QTimer(self, interval=30_000)  # "Indexed 2 min ago" moves on
        self.clock.timeout.connect(self._show_states)
        self.clock.start()
        self.refresh()

    def _set_up_table(self) -> None:
        table = self.table
        table.setHorizontalHeaderLabels([QCoreApplication.translate("KnowledgePage", title) for title in COLUMNS])
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setShowGrid(False)
        table.setWordWrap(False)
        table.verticalHeader().hide()
        table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SOURCE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(SWITCH, QHeaderView.ResizeMode.Fixed)
        table.setColumnWidth(SWITCH, SWITCH_WIDTH)  # a cell widget's width is not a content width
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self._fit_height()

    def _layout(self) -> None:
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        for button in (self.add_folder_button, self.add_file_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        for button in (self.reindex_button, self.remove_button):
            buttons.addWidget(button)
        sources = QVBoxLayout()
        sources.setSpacing(8)
        sources.addWidget(self.table)
        sources.addLayout(buttons)
        sources.addWidget(self.message)
        sources.addWidget(hint(self.tr("Adding, removing, switching and reindexing take effect at once; the sources live "
                                       "in the knowledge index, not in the settings.")))
        sources.addWidget(self.problems_title)
        sources.addWidget(self.problems)
        box = QFrame(objectName="settingsGroup")
        inner = QVBoxLayout(box)
        inner.setContentsMargins(16, 14, 16, 14)
        inner.setSpacing(8)
        inner.addWidget(PlainLabel(self.tr("Sources"), objectName="groupTitle"))
        inner.addLayout(sources)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addWidget(box)
        column.addWidget(self.embedding)
        column.addStretch(1)

    # --- showing the sources --------------------------------------------------------------------

    def refresh(self) -> None:
        """Reads the sources again (names, counts, states) and the files the selected one left out."""
        selected = self.selected()
        try:
            self.sources = self.indexing.sources()
        except Exception as exc:  # noqa: BLE001 - a damaged or locked database: said on the page
            self.sources = []
            self.say(self.tr("The knowledge index cannot be read: {problem}").format(problem=exc), "error")
        self._counts_read = time.monotonic()
        names = [source.name for source in self.sources]
        if [self.table.item(row, FILES).data(Qt.ItemDataRole.UserRole) if self.table.item(row, FILES) else None
                for row in range(self.table.rowCount())] != names:
            self._rebuild()
        for row, source in enumerate(self.sources):
            self._show_row(row, source)
        if selected is not None:
            self.select(selected.name)
        self._selection_changed()

    def _rebuild(self) -> None:
        self.table.setRowCount(len(self.sources))
        for row, source in enumerate(self.sources):
            switch = ToggleSwitch()
            switch.setAccessibleName(self.tr("Search {name}").format(name=source.name))
            switch.setToolTip(self.tr("Searched by search_knowledge while on"))
            switch.toggled.connect(lambda on, name=source.name: self.set_enabled(name, on))
            switch.setFixedSize(switch.sizeHint())
            holder = QWidget()
            line = QHBoxLayout(holder)
            line.setContentsMargins(0, 0, 0, 0)
            line.addWidget(switch, 0, Qt.AlignmentFlag.AlignCenter)
            self.table.setCellWidget(row, SWITCH, holder)
            self.table.setCellWidget(row, SOURCE, SourceCell())
            for column in (SWITCH, SOURCE, FILES, PASSAGES, LEFT_OUT, STATE):
                item = QTableWidgetItem()
                if column in (FILES, PASSAGES, LEFT_OUT):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, column, item)
            self.table.item(row, FILES).setData(Qt.ItemDataRole.UserRole, source.name)
        self._fit_height()

    def _fit_height(self) -> None:
        """As tall as its rows (two at least, six at most: it scrolls then)."""
        rows = min(max(len(self.sources), 2), 6)
        frame = self.table.frameWidth() * 2
        self.table.setFixedHeight(self.table.horizontalHeader().sizeHint().height() + rows * ROW_HEIGHT + frame + 2)

    def _show_row(self, row: int, source: SourceRow) -> None:
        switch = self.switch_of(row)
        switch.blockSignals(True)
        switch.setChecked(source.enabled)
        switch.blockSignals(False)
        self.table.cellWidget(row, SOURCE).show_source(source)
        self.table.item(row, SOURCE).setToolTip(source.path)
        for column, count in ((FILES, source.files), (PASSAGES, source.passages), (LEFT_OUT, source.skipped)):
            self.table.item(row, column).setText(f"{count:,}")
        self.table.item(row, STATE).setText(state_text(source, self.indexing))

    def _show_states(self) -> None:
        for row, source in enumerate(self.sources):
            self.table.item(row, STATE).setText(state_text(source, self.indexing))

    def switch_of(self, row: int) -> ToggleSwitch:
        return self.table.cellWidget(row, SWITCH).findChild(ToggleSwitch)

    def row_of(self, name: str) -> int | None:
        return next((row for row, source in enumerate(self.sources) if source.name.casefold() == name.casefold()), None)

    def selected(self) -> SourceRow | None:
        rows = self.table.selectionModel().selectedRows()
        return self.sources[rows[0].row()] if rows and rows[0].row() < len(self.sources) else None

    def select(self, name: str) -> None:
        row = self.row_of(name)
        if row is not None:
            self.table.selectRow(row)

    def _selection_changed(self) -> None:
        source = self.selected()
        self.reindex_button.setEnabled(source is not None)
        self.remove_button.setEnabled(source is not None and source.name.casefold() not in self.indexing.removing)
        self.problems.clear()
        if source is None:
            self.problems.hide()
            self.problems_title.setText(self.tr("Select a source to see the files it left out.") if self.sources else
                                        self.tr("Nothing added yet: add a folder or a file to let the assistant search it."))
            return
        self.problems_title.show()
        try:
            left_out = self.indexing.library.problems(source.id)
        except Exception:  # noqa: BLE001 - being removed, or a locked database: nothing to list now
            left_out = []
        if not left_out:
            self.problems_title.setText(self.tr("No file of “{name}” was left out.").format(name=source.name))
            self.problems.hide()
            return
        self.problems_title.setText(self.tr("Files left out of “{name}”").format(name=source.name))
        for file in left_out:
            reason = reason_text(file.reason)
            self.problems.addItem(f"{file.path} — {reason}")
            self.problems.item(self.problems.count() - 1).setToolTip(f"{file.path}\n{reason}")
        shown = min(len(left_out), 6)  # it scrolls beyond
        self.problems.setFixedHeight(shown * self.problems.sizeHintForRow(0) + self.problems.frameWidth() * 2 + 4)
        self.problems.show()

    def _on_progress(self, progress) -> None:
        row = self.row_of(progress.source)
        if row is None or progress.finished:
            return  # sig_changed follows a finished run
        if time.monotonic() - self._counts_read >= COUNTS_EVERY_S:
            self.refresh()
        else:
            self.table.item(row, STATE).setText(state_text(self.sources[row], self.indexing))

    def _on_embedding(self, _name: str, done: bool, message: str) -> None:
        self._show_states()
        if done and message:
            self.say(message, "info")

    def say(self, text: str, kind: str = "info") -> None:
        self.message.setText(text)
        set_kind(self.message, kind)
        self.message.setVisible(bool(text))

    # --- editing the sources --------------------------------------------------------------------

    def choose(self, *, folder: bool) -> QFileDialog:
        """A folder or file chooser (window-modal, no nested event loop); what is picked is added."""
        title = self.tr("Add a folder to knowledge") if folder else self.tr("Add a file to knowledge")
        dialog = QFileDialog(self, title, str(Path.home()))
        dialog.setFileMode(QFileDialog.FileMode.Directory if folder else QFileDialog.FileMode.ExistingFile)
        if folder:
            dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(self.add_path)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def add_path(self, path: str) -> SourceRow | None:
        """Adds `path` under its own name (made unique) and starts indexing it; a problem is said on the page."""
        if not path:
            return None
        wanted = Path(path).name or path
        name = unique_name(wanted, {source.name.casefold() for source in self.sources})
        try:
            source = self.indexing.add(path, name)
        except KnowledgeError as exc:
            self.say(str(exc), "error")
            return None
        self.say("")
        self.refresh()
        self.select(source.name)
        return source

    def set_enabled(self, name: str, on: bool) -> None:
        try:
            self.indexing.set_enabled(name, on)
        except KnowledgeError as exc:
            self.say(str(exc), "error")
            self.refresh()

    def reindex_selected(self) -> None:
        source = self.selected()
        if source is not None:
            self.indexing.reindex(source.name, full=True)
            self._show_states()

    def ask_to_remove(self) -> QMessageBox | None:
        source = self.selected()
        if source is None:
            return None
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Remove the source"),
                          self.tr("Remove “{name}” from knowledge? Its passages leave the index; the files on disk are "
                                  "not touched.").format(name=source.name), QMessageBox.StandardButton.NoButton, self)
        box.setObjectName("removeKnowledgeBox")
        box.setTextFormat(Qt.TextFormat.PlainText)
        remove = box.addButton(self.tr("Remove"), QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)

        def answered(_result: int) -> None:
            self.remove_box = None
            box.deleteLater()
            if box.clickedButton() is remove:
                self.remove(source.name)

        box.finished.connect(answered)
        self.remove_box = box
        box.open()
        return box

    def remove(self, name: str) -> None:
        try:
            self.indexing.remove(name)
        except KnowledgeError as exc:
            self.say(str(exc), "error")
        self.refresh()

    # --- the embedding model (saved on OK/Apply) ------------------------------------------------

    def problem(self) -> str | None:
        return self.embedding.problem()

    def edits(self) -> dict:
        return {"knowledge_embedding": self.embedding.value()}

    def applied(self) -> None:
        """After OK/Apply: a new embedding model embeds the sources (an incremental run of each, then its pass)."""
        settings = self.runtime.settings
        now = settings.knowledge_embedding if settings is not None else None
        if now != self.applied_embedding:
            self.applied_embedding = now
            if now is not None and self.sources:
                self.indexing.reindex()

    def release(self) -> None:
        """Stops the indexing this page made for itself (a dialog without a window); the window's own goes on."""
        self.clock.stop()
        if self.owns_indexing:
            self.indexing.stop()
