"""The sidebar: a New chat button, the search field, and either the conversation list or, while a query
is typed, the search results. It only emits what the user asked for; HistoryController acts on it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView, QFrame, QHBoxLayout, QLineEdit, QListView, QMenu, QMessageBox, QPushButton, QStackedWidget,
    QToolButton, QVBoxLayout, QWidget,
)

from desktop_copilot.core.storage.search_index import SearchHit
from desktop_copilot.qt.history.conversation_delegate import ConversationDelegate
from desktop_copilot.qt.history.conversation_list_model import ConversationListModel
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.history.search_results import SearchResultDelegate, SearchResultsModel, SearchRunner
from desktop_copilot.qt.history.sidebar_style import painted_icon, sidebar_style_sheet
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme


class SearchField(QLineEdit):
    """Escape clears the query; Down moves into the results; Return opens the first result."""

    sig_down = Signal()
    sig_return = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt name
        if event.key() == Qt.Key.Key_Escape and self.text():
            self.clear()
        elif event.key() == Qt.Key.Key_Down:
            self.sig_down.emit()
        elif event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.sig_return.emit()
        else:
            super().keyPressEvent(event)


class ConversationListView(QListView):
    """The conversation list: right-click offers Rename and Delete; F2 renames, Delete deletes."""

    sig_delete_requested = Signal(QModelIndex)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt name
        index = self.indexAt(event.pos())
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.addAction(self.tr("Rename"), lambda: self.edit(index))
        menu.addAction(self.tr("Delete…"), lambda: self.sig_delete_requested.emit(index))
        menu.exec(event.globalPos())

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt name
        if event.key() == Qt.Key.Key_Delete and self.currentIndex().isValid() and self.state() != self.State.EditingState:
            self.sig_delete_requested.emit(self.currentIndex())
            return
        super().keyPressEvent(event)


def confirm_delete(parent: QWidget, title: str) -> bool:
    box = QMessageBox(QMessageBox.Icon.Warning, QCoreApplication.translate("Sidebar", "Delete conversation"),
                      QCoreApplication.translate(
                          "Sidebar", "Delete “{title}”?\n\nIts messages are removed from this computer. This cannot be undone.").format(title=title),
                      QMessageBox.StandardButton.Cancel, parent)
    delete = box.addButton(QCoreApplication.translate("Sidebar", "Delete"), QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is delete


def _list_view(view: QListView, name: str) -> QListView:
    view.setObjectName(name)
    view.setFrameShape(QFrame.Shape.NoFrame)
    view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setMouseTracking(True)
    view.viewport().setAttribute(Qt.WidgetAttribute.WA_Hover)
    view.setUniformItemSizes(False)
    return view


class Sidebar(QWidget):
    sig_new_requested = Signal()
    sig_open_requested = Signal(str)
    """The user picked a conversation (its id)."""
    sig_result_activated = Signal(str, str)
    """(conversation id, message id or '' for a title match)"""
    sig_delete_requested = Signal(str)
    """The user confirmed deleting this conversation."""

    def __init__(self, conversations: ConversationListModel, runner: SearchRunner, parent: QWidget | None = None,
                 theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent, objectName="sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setStyleSheet(sidebar_style_sheet(theme))
        self.setMinimumWidth(200)
        self.conversations = conversations
        self.runner = runner
        self.results = SearchResultsModel(self)
        self.brand = PlainLabel("Desktop Copilot", objectName="sidebarBrand")  # i18n: not translated
        self.new_button = QPushButton(painted_icon("plus", theme.accent), "  " + self.tr("New chat"), objectName="newChatButton")
        self.new_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.new_button.setToolTip(self.tr("New conversation (Ctrl+N)"))
        self.new_menu_button = QToolButton(objectName="newChatMenuButton", arrowType=Qt.ArrowType.DownArrow)
        self.new_menu_button.setToolTip(self.tr("New chat from an assistant"))
        self.new_menu_button.setAccessibleName(self.tr("New chat from an assistant"))
        self.new_menu_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.new_menu_button.setStyleSheet(
            f"QToolButton#newChatMenuButton {{ background: transparent; border: none; border-radius: 10px; padding: 7px 8px; }}"
            f"QToolButton#newChatMenuButton:hover {{ background: {theme.row_hover}; }}"
        )
        self.new_menu_button.hide()  # shown once something provides the menu (set_new_chat_menu)
        self._new_chat_menu: Callable[[], QMenu] | None = None
        self.search_field = SearchField(objectName="searchField")
        shortcut = QKeySequence("Ctrl+K").toString(QKeySequence.SequenceFormat.NativeText)  # ⌘K on macOS
        self.search_field.setPlaceholderText(self.tr("Search chats") + f"   {shortcut}")
        self.search_field.setClearButtonEnabled(True)
        self.search_field.addAction(painted_icon("search", theme.muted, 18), QLineEdit.ActionPosition.LeadingPosition)
        self.list_view = _list_view(ConversationListView(self), "conversationList")
        self.list_view.setModel(conversations)
        self.list_view.setItemDelegate(ConversationDelegate(self.list_view, theme))
        self.list_view.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed | QAbstractItemView.EditTrigger.DoubleClicked)
        self.results_view = _list_view(QListView(self), "searchResults")
        self.results_view.setModel(self.results)
        self.results_view.setItemDelegate(SearchResultDelegate(self.results_view, theme))
        self.results_label = PlainLabel(objectName="resultsLabel")
        self.stack = QStackedWidget()
        results_page = QWidget()
        results_column = QVBoxLayout(results_page)
        results_column.setContentsMargins(0, 0, 0, 0)
        results_column.addWidget(self.results_label)
        results_column.addWidget(self.results_view, 1)
        self.stack.addWidget(self.list_view)
        self.stack.addWidget(results_page)
        self._build_layout()
        self._connect()

    def _build_layout(self) -> None:
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 14, 0, 0)
        column.setSpacing(6)
        for widget in (self.brand, self.new_button, self.search_field):
            holder = QHBoxLayout()
            holder.setContentsMargins(10, 0, 10, 0)
            holder.setSpacing(2)
            holder.addWidget(widget, 1)
            if widget is self.new_button:
                holder.addWidget(self.new_menu_button)
            column.addLayout(holder)
        column.addSpacing(2)
        column.addWidget(self.stack, 1)

    def _connect(self) -> None:
        self.new_button.clicked.connect(self.sig_new_requested)
        self.new_menu_button.clicked.connect(self.show_new_chat_menu)
        self.search_field.textChanged.connect(self._on_query_changed)
        self.search_field.sig_down.connect(self._focus_results)
        self.search_field.sig_return.connect(self._open_first_result)
        self.runner.sig_results.connect(self._show_results)
        self.list_view.selectionModel().currentChanged.connect(self._on_current_changed)
        self.list_view.sig_delete_requested.connect(self._ask_delete)
        self.results_view.clicked.connect(self._open_result)
        self.results_view.activated.connect(self._open_result)

    # --- our API ---------------------------------------------------------------------

    def focus_search(self) -> None:
        self.search_field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_field.selectAll()

    def select_conversation(self, conversation_id: str) -> None:
        """Mark `conversation_id` as the open one (no row selected when it is not listed) without re-opening it."""
        index = self.conversations.index_of(conversation_id)
        selection = self.list_view.selectionModel()
        selection.blockSignals(True)
        try:
            if index.isValid():
                selection.setCurrentIndex(index, selection.SelectionFlag.ClearAndSelect)
            else:
                selection.clear()
        finally:
            selection.blockSignals(False)
        self.list_view.viewport().update()
        if index.isValid():
            self.list_view.scrollTo(index)

    def set_new_chat_menu(self, make_menu: Callable[[], QMenu]) -> None:
        """Show the drop-down beside New chat; `make_menu` builds its menu afresh each time it opens (the
        window's list of assistants, qt/window/system_prompt.py `new_chat_menu`)."""
        self._new_chat_menu = make_menu
        self.new_menu_button.show()

    def show_new_chat_menu(self) -> QMenu | None:
        """Open the drop-down's menu under the New chat button (returns it; it closes when an entry is chosen)."""
        if self._new_chat_menu is None:
            return None
        menu = self._new_chat_menu()
        menu.setParent(self, menu.windowFlags())
        menu.aboutToHide.connect(menu.deleteLater)
        menu.popup(self.new_button.mapToGlobal(QPoint(0, self.new_button.height())))
        return menu

    def showing_results(self) -> bool:
        return self.stack.currentIndex() == 1

    # --- slots -----------------------------------------------------------------------

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.sig_open_requested.emit(current.data(ConversationListModel.ConversationIdRole))

    def _ask_delete(self, index: QModelIndex) -> None:
        if index.isValid() and confirm_delete(self, index.data(Qt.ItemDataRole.DisplayRole)):
            self.sig_delete_requested.emit(index.data(ConversationListModel.ConversationIdRole))

    def _on_query_changed(self, text: str) -> None:
        self.runner.set_query(text)
        if not text.strip():
            self.stack.setCurrentIndex(0)

    def _show_results(self, query: str, hits: list[SearchHit]) -> None:
        if query != self.search_field.text() or not query.strip():
            return
        self.results.set_hits(hits)
        count = self.results.rowCount()
        self.results_label.setText(self.tr("No results for “{query}”").format(query=query.strip()) if not count
                                   else self.tr("1 result") if count == 1 else self.tr("%n results", "", count))
        self.stack.setCurrentIndex(1)

    def _focus_results(self) -> None:
        if self.showing_results() and self.results.rowCount():
            self.results_view.setFocus()
            self.results_view.setCurrentIndex(self.results.index(0, 0))

    def _open_first_result(self) -> None:
        if self.runner.pending():
            self.runner.run_now()
        if self.results.rowCount():
            self._open_result(self.results.index(0, 0))

    def _open_result(self, index: QModelIndex) -> None:
        if index.isValid():
            hit: SearchHit = index.data(SearchResultsModel.HitRole)
            self.sig_result_activated.emit(hit.conversation_id, hit.message_id)
