"""The transcript list view: per-pixel scrolling, sticks to the bottom while a reply streams unless the
user scrolled up, debounced re-layout on resize, live timers repainted while busy, links opened in the
browser, a copy menu."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, Qt, QTimer, QUrl
from PySide6.QtGui import QContextMenuEvent, QDesktopServices, QGuiApplication, QMouseEvent
from PySide6.QtWidgets import QAbstractItemView, QFrame, QListView, QMenu

from desktop_copilot.qt.transcript_delegate import TranscriptDelegate
from desktop_copilot.qt.transcript_model import TranscriptModel

RESIZE_DEBOUNCE_MS = 120
TICK_MS = 250
"""How often live timers ("Thinking… 4 s", tool elapsed time) repaint while a run is busy."""
BOTTOM_SLACK = 24
"""Within this many pixels of the end counts as "at the bottom"."""


class TranscriptView(QListView):
    def __init__(self, model: TranscriptModel, delegate: TranscriptDelegate | None = None, parent=None) -> None:
        super().__init__(parent)
        self.transcript = model
        self.delegate = delegate or TranscriptDelegate(self)
        self.setModel(model)
        self.setItemDelegate(self.delegate)
        self.setObjectName("transcript")
        self.setUniformItemSizes(False)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMouseTracking(True)
        self.verticalScrollBar().setSingleStep(24)
        self.stick_to_bottom = True
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        self.verticalScrollBar().rangeChanged.connect(self._on_range_changed)
        self._resize_timer = QTimer(self, singleShot=True, interval=RESIZE_DEBOUNCE_MS)
        self._resize_timer.timeout.connect(self._apply_width)
        self._sized = False
        self._tick = QTimer(self, interval=TICK_MS)
        self._tick.timeout.connect(self.viewport().update)
        self.delegate.sig_link_activated.connect(lambda url: QDesktopServices.openUrl(QUrl(url)))

    # --- scrolling -------------------------------------------------------------------

    def _on_scrolled(self, value: int) -> None:
        self.stick_to_bottom = value >= self.verticalScrollBar().maximum() - BOTTOM_SLACK

    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        if self.stick_to_bottom:
            self.verticalScrollBar().setValue(maximum)

    def follow(self) -> None:
        """Scroll to the end and keep following new content (after the user sends)."""
        self.stick_to_bottom = True
        self.scrollToBottom()

    def set_live(self, live: bool) -> None:
        """Repaint live timers every TICK_MS while a run is in progress."""
        if live:
            self._tick.start()
        else:
            self._tick.stop()
            self.viewport().update()

    # --- resizing --------------------------------------------------------------------

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        if not self._sized:
            self._sized = True
            self._apply_width()
        else:
            self._resize_timer.start()

    def _apply_width(self) -> None:
        if self.delegate.set_width(self.viewport().width()):
            self.doItemsLayout()
            if self.stick_to_bottom:
                self.scrollToBottom()

    # --- mouse -----------------------------------------------------------------------

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        super().mouseMoveEvent(event)
        pos = event.position().toPoint()
        index = self.indexAt(pos)
        clickable = index.isValid() and self.delegate.is_clickable_at(index, self.visualRect(index), pos)
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if clickable else Qt.CursorShape.ArrowCursor)

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 - Qt name
        if event.type() == QEvent.Type.Leave:
            self.viewport().unsetCursor()
        return super().viewportEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt name
        index = self.indexAt(event.pos())
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.addAction("Copy message text", lambda: self._copy(index))
        menu.exec(event.globalPos())

    def _copy(self, index: QModelIndex) -> None:
        QGuiApplication.clipboard().setText(index.data(Qt.ItemDataRole.DisplayRole) or "")
