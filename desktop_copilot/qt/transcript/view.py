"""The transcript view: follows a streaming reply, re-lays out on resize, live timers, links (target shown on
hover, opened through the LinkOpener's checks), copy menu, and the approval buttons on tool cards."""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QContextMenuEvent, QDesktopServices, QGuiApplication, QHelpEvent, QMouseEvent, QPainter
from PySide6.QtWidgets import QMenu, QToolTip, QWidget

from desktop_copilot.core.approval.decisions import Decision
from desktop_copilot.qt.transcript.link_opener import LinkOpener, tooltip_html
from desktop_copilot.qt.transcript.parts.approval import arguments_to_run, ask_denial_reason, is_waiting, shown_name, waiting_calls
from desktop_copilot.qt.transcript.parts.base import Hotspot, Part
from desktop_copilot.qt.transcript.row_view import RowView
from desktop_copilot.qt.transcript.delegate import TranscriptDelegate
from desktop_copilot.qt.transcript.model import TranscriptModel

RESIZE_DEBOUNCE_MS = 120
TICK_MS = 250
"""How often live timers ("Thinking… 4 s", tool elapsed time) repaint while a run is busy."""


class TranscriptView(RowView):
    sig_tool_decision = Signal(str, str, str)
    """The user answered an approval card: (tool call id, core.approval.decisions.Decision value, reason). Once per call."""

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
        self.delegate.sig_hotspot_clicked.connect(self._on_hotspot_clicked)
        self.ask_denial_reason: Callable[[QWidget, str], str | None] = ask_denial_reason
        """Asks why a call is denied (a modal box); returns None when the user cancels."""
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
        self._set_card_state("hover", self._hotspot_key(pos))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        if event.button() == Qt.MouseButton.LeftButton:
            self._set_card_state("pressed", self._hotspot_key(event.position().toPoint()))
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        try:
            super().mouseReleaseEvent(event)  # a button's click is handled here (the delegate's editorEvent)
        finally:
            self._set_card_state("pressed", ())

    def _hotspot_key(self, pos: QPoint) -> tuple:
        index = self.indexAt(pos)
        hit = self.delegate.hotspot_at(index, self.visualRect(index), pos) if index.isValid() else None
        return (hit[0].block.id, hit[1].action, hit[1].value) if hit else ()

    def _set_card_state(self, which: str, key: tuple) -> None:
        """Hover or pressed look of a card button: repaint only when it changes."""
        cards = self.delegate.env.cards
        if getattr(cards, which) != key:
            setattr(cards, which, key)
            self.viewport().update()

    # --- approval cards --------------------------------------------------------------

    def _on_hotspot_clicked(self, part: Part, hotspot: Hotspot) -> None:
        cards, message = self.delegate.env.cards, part.message
        if hotspot.action == "show_all":
            call_id = part.block.id
            (cards.shown_whole.discard if call_id in cards.shown_whole else cards.shown_whole.add)(call_id)
        elif hotspot.action in ("decide", "decide_all"):
            calls = [part.block] if hotspot.action == "decide" else waiting_calls(message, cards)
            calls = [call for call in calls if is_waiting(call) and call.id not in cards.sending]
            if not calls:
                return
            reason = ""
            if hotspot.value == Decision.DENY.value:
                title = f"Deny {shown_name(calls[0])}" if len(calls) == 1 else f"Deny {len(calls)} tool calls"
                answer = self.ask_denial_reason(self, title)
                if answer is None:
                    return
                reason = answer
                calls = [call for call in calls if is_waiting(call) and call.id not in cards.sending]  # changed while asking?
            for call in calls:
                cards.sending.add(call.id)  # first: the buttons are gone before anyone hears of the decision
            for call in calls:
                self.sig_tool_decision.emit(call.id, hotspot.value, reason)
        self._relayout_message(message.id)

    def _relayout_message(self, message_id: str) -> None:
        """Measure the message's tool cards again after a click changed how they look."""
        anchor = self._anchor()
        for row in self.transcript.rows_of(message_id):
            if self.transcript.segment_at(row).kind == "tool":
                self._measure(row)
        self._restore(anchor)

    def link_tooltip_at(self, pos: QPoint) -> str:
        """The tooltip for the link under `pos` (viewport coordinates): its full target, or "" off links."""
        index = self.indexAt(pos)
        hit = self.delegate.link_hit(index, self.visualRect(index), pos) if index.isValid() else None
        return tooltip_html(hit.href) if hit else ""

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 - Qt name
        if event.type() == QEvent.Type.Leave:
            self.viewport().unsetCursor()
            self._set_card_state("hover", ())
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
            to_run = arguments_to_run(block)
            arguments = json.dumps(to_run, ensure_ascii=False, indent=2) if to_run else block.partial_arguments
            menu.addAction("Copy tool arguments", lambda: self._copy(arguments))
            if block.result is not None:
                menu.addAction("Copy tool result", lambda: self._copy(block.result))
        for extend in self.menu_extenders:
            extend(menu, index)
        menu.exec(event.globalPos())

    @staticmethod
    def _copy(text: str | None) -> None:
        QGuiApplication.clipboard().setText(text or "")
