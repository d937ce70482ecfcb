"""The transcript view: follows a streaming reply, re-lays out on resize, live timers, links (target shown on
hover, opened through the LinkOpener's checks), copy menu."""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QDesktopServices, QGuiApplication, QHelpEvent, QMouseEvent, QPainter
from PySide6.QtWidgets import QMenu, QToolTip

from desktop_copilot.qt.transcript.link_opener import LinkOpener, tooltip_html
from desktop_copilot.qt.transcript.row_view import RowView
from desktop_copilot.qt.transcript.delegate import TranscriptDelegate
from desktop_copilot.qt.transcript.model import TranscriptModel

RESIZE_DEBOUNCE_MS = 120
TICK_MS = 250
"""How often live timers ("Thinking… 4 s", tool elapsed time) repaint while a run is busy."""


class TranscriptView(RowView):
    def __init__(self, model: TranscriptModel, delegate: TranscriptDelegate | None = None, parent=None,
                 link_opener: LinkOpener | None = None) -> None:
        own_delegate = delegate is None
        delegate = delegate or TranscriptDelegate()
        delegate.bind(model)
        super().__init__(model, delegate, parent)
        if own_delegate:
            delegate.setParent(self)
        self.setObjectName("transcript")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setMouseTracking(True)
        self._resize_timer = QTimer(self, singleShot=True, interval=RESIZE_DEBOUNCE_MS)
        self._resize_timer.timeout.connect(self._apply_width)
        self._sized = False
        self._tick = QTimer(self, interval=TICK_MS)
        self._tick.timeout.connect(self.viewport().update)
        self.link_opener = link_opener or LinkOpener(self, open_url=lambda url: QDesktopServices.openUrl(url))
        """Checks and opens clicked links; replace it (or its open_url / confirm) to open nothing in tests."""
        self.delegate.sig_link_clicked.connect(lambda href, text: self.link_opener.activate(href, text))
        self.menu_extenders: list[Callable[[QMenu, QModelIndex], None]] = []
        """Called with the context menu and the row's index before it is shown (e.g. the reply actions and the version switcher)."""
        self.overlay_painters: list[Callable[[QPainter], None]] = []
        """Called after the rows are painted, with a painter on the viewport (e.g. the version switcher)."""

    # --- scrolling -------------------------------------------------------------------

    def follow(self) -> None:
        """Scroll to the end and keep following new content (after the user sends)."""
        self.scrollToBottom()
        self.viewport().update()

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
            anchor = self._anchor()
            self.rows.reset(self._estimate_all())
            self._restore(anchor)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().paintEvent(event)
        if self.overlay_painters:
            painter = QPainter(self.viewport())
            try:
                for paint in self.overlay_painters:
                    paint(painter)
            finally:
                painter.end()

    # --- mouse -----------------------------------------------------------------------

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        super().mouseMoveEvent(event)
        pos = event.position().toPoint()
        index = self.indexAt(pos)
        clickable = index.isValid() and self.delegate.is_clickable_at(index, self.visualRect(index), pos)
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if clickable else Qt.CursorShape.ArrowCursor)

    def link_tooltip_at(self, pos: QPoint) -> str:
        """The tooltip for the link under `pos` (viewport coordinates): its full target, or "" off links."""
        index = self.indexAt(pos)
        hit = self.delegate.link_hit(index, self.visualRect(index), pos) if index.isValid() else None
        return tooltip_html(hit.href) if hit else ""

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 - Qt name
        if event.type() == QEvent.Type.Leave:
            self.viewport().unsetCursor()
        elif event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent) and (tip := self.link_tooltip_at(event.pos())):
            QToolTip.showText(event.globalPos(), tip, self.viewport(), QRect(event.pos() - QPoint(12, 12), QSize(24, 24)))
            return True  # hidden again once the pointer moves away
        return super().viewportEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt name
        index = self.indexAt(event.pos())
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.addAction("Copy message text", lambda: self._copy(index.data(Qt.ItemDataRole.DisplayRole)))
        segment = index.data(TranscriptModel.SegmentRole)
        if segment.kind == "tool":
            block = index.data(TranscriptModel.MessageRole).blocks[segment.block]
            arguments = json.dumps(block.arguments, ensure_ascii=False, indent=2) if block.arguments else block.partial_arguments
            menu.addAction("Copy tool arguments", lambda: self._copy(arguments))
            if block.result is not None:
                menu.addAction("Copy tool result", lambda: self._copy(block.result))
        for extend in self.menu_extenders:
            extend(menu, index)
        menu.exec(event.globalPos())

    @staticmethod
    def _copy(text: str | None) -> None:
        QGuiApplication.clipboard().setText(text or "")
