"""Search in the sidebar: a debounced runner over Store.search, the results model (title + snippet) and
its delegate, which shows the snippet with the matched words in bold."""

from __future__ import annotations

import html
import logging
import re
import sqlite3

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractListModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAbstractTextDocumentLayout, QFontMetrics, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QWidget

from desktop_copilot.core.storage.search import MARK_END, MARK_START
from desktop_copilot.core.storage.search_index import SearchHit
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.history.conversation_delegate import ROW_INSET, ROW_PADDING, TEXT_PADDING, paint_row_background
from desktop_copilot.qt.transcript.parts.documents import InertDocument
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme

log = logging.getLogger(__name__)
ModelIndex = QModelIndex | QPersistentModelIndex
DEBOUNCE_MS = 150
SNIPPET_LINES = 3
TITLE_MATCH = QT_TRANSLATE_NOOP("SearchResults", "Match in the title")


_MARKDOWN_MARKS = re.compile(r"\*\*|__|`+")
_CJK_PUNCTUATION_GAP = re.compile(r" *([\u3000-\u303f\uff00-\uffef]) *")


def readable_snippet(snippet: str) -> str:
    """Snippet text for display: Markdown emphasis marks dropped, no spaces around CJK punctuation."""
    text = _MARKDOWN_MARKS.sub("", snippet.replace(MARK_END + MARK_START, ""))
    return " ".join(_CJK_PUNCTUATION_GAP.sub(r"\1", text).split())


def snippet_html(snippet: str) -> str:
    """The store's snippet as rich text: escaped, the match between MARK_START/MARK_END in <b>."""
    return html.escape(readable_snippet(snippet)).replace(MARK_START, "<b>").replace(MARK_END, "</b>")


def without_redundant_title_hits(hits: list[SearchHit]) -> list[SearchHit]:
    """Drop a title match when the same conversation also has message matches (those can be jumped to)."""
    with_messages = {hit.conversation_id for hit in hits if hit.message_id}
    return [hit for hit in hits if hit.message_id or hit.conversation_id not in with_messages]


def plain_snippet(snippet: str) -> str:
    return snippet.replace(MARK_START, "").replace(MARK_END, "")


class SearchRunner(QObject):
    """Runs `store.search` DEBOUNCE_MS after the last keystroke; empty queries give no results."""

    sig_results = Signal(str, list)
    """(query, [SearchHit])"""

    def __init__(self, store: Store | None, parent: QObject | None = None, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.store = store
        self.query = ""
        self._timer = QTimer(self, singleShot=True, interval=debounce_ms)
        self._timer.timeout.connect(self.run_now)

    def set_query(self, query: str) -> None:
        self.query = query
        self._timer.start()

    def pending(self) -> bool:
        """A query is waiting for its debounce to elapse."""
        return self._timer.isActive()

    def run_now(self) -> list[SearchHit]:
        self._timer.stop()
        hits: list[SearchHit] = []
        if self.query.strip() and self.store is not None:
            try:
                hits = self.store.search(self.query)
            except sqlite3.Error:
                log.exception("search failed for %r", self.query)
        self.sig_results.emit(self.query, hits)
        return hits


class SearchResultsModel(QAbstractListModel):
    HitRole = Qt.ItemDataRole.UserRole + 1
    SnippetHtmlRole = Qt.ItemDataRole.UserRole + 2

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._hits: list[SearchHit] = []

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 - Qt name
        return 0 if parent.isValid() else len(self._hits)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._hits):
            return None
        hit = self._hits[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return hit.title or QCoreApplication.translate("ConversationList", "New chat")
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_snippet(hit.snippet)
        if role == self.HitRole:
            return hit
        if role == self.SnippetHtmlRole:
            return snippet_html(hit.snippet)
        return None

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def set_hits(self, hits: list[SearchHit]) -> None:
        self.beginResetModel()
        self._hits = without_redundant_title_hits(hits)
        self.endResetModel()

    def hit_at(self, row: int) -> SearchHit:
        return self._hits[row]


class SearchResultDelegate(QStyledItemDelegate):
    """Title on the first line, then up to SNIPPET_LINES of snippet (or "Match in the title")."""

    def __init__(self, parent: QWidget | None = None, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent)
        self.theme = theme
        self._document = InertDocument()
        self._document.setDocumentMargin(0)
        self._document.setDefaultFont(theme.font("small"))
        self._document.setDefaultStyleSheet(f"b {{ color: {theme.text}; background-color: {theme.highlight}; }}")

    def _snippet(self, index: QModelIndex, width: int) -> tuple[QTextDocument, int]:
        hit: SearchHit = index.data(SearchResultsModel.HitRole)
        body = "<i>" + QCoreApplication.translate("SearchResults",
            TITLE_MATCH) + "</i>" if not hit.message_id else index.data(SearchResultsModel.SnippetHtmlRole)
        self._document.setHtml(f'<span style="color:{self.theme.muted}">{body}</span>')
        self._document.setTextWidth(max(1, width))
        line = QFontMetrics(self.theme.font("small")).lineSpacing()
        return self._document, min(int(self._document.size().height()), SNIPPET_LINES * line)

    def _text_width(self, option: QStyleOptionViewItem) -> int:
        return (option.rect.width() or 240) - 2 * (ROW_INSET + TEXT_PADDING)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802 - Qt name
        _doc, snippet_height = self._snippet(index, self._text_width(option))
        title = QFontMetrics(self.theme.font("label")).height()
        return QSize(option.rect.width() or 240, title + 3 + snippet_height + 2 * ROW_PADDING + 4)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        painter.save()
        item = option.rect.adjusted(ROW_INSET, 2, -ROW_INSET, -2)
        paint_row_background(painter, option, item, self.theme)
        text = item.adjusted(TEXT_PADDING, ROW_PADDING, -TEXT_PADDING, -ROW_PADDING)
        label = self.theme.font("label")
        title_height = QFontMetrics(label).height()
        painter.setFont(label)
        painter.setPen(self.theme.color("text"))
        title = QFontMetrics(label).elidedText(index.data(Qt.ItemDataRole.DisplayRole), Qt.TextElideMode.ElideRight, text.width())
        painter.drawText(QRect(text.left(), text.top(), text.width(), title_height), int(Qt.AlignmentFlag.AlignLeft), title)
        document, height = self._snippet(index, text.width())
        painter.translate(text.left(), text.top() + title_height + 3)
        context = QAbstractTextDocumentLayout.PaintContext()
        context.clip = QRect(0, 0, text.width(), height)
        context.palette.setColor(QPalette.ColorRole.Text, self.theme.color("muted"))
        painter.setClipRect(context.clip)
        document.documentLayout().draw(painter, context)
        painter.restore()
