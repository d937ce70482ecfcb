"""The transcript view: follows a streaming reply, re-lays out on resize, live timers, links (target shown on
hover, opened through the LinkOpener's checks), text selection and copying, copy menu, code blocks' Copy
buttons, the approval buttons on tool cards, and the compaction markers (open, close, undo)."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QContextMenuEvent, QDesktopServices, QHelpEvent, QKeyEvent, QKeySequence, QMouseEvent, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QMenu, QToolTip, QWidget

from desktop_copilot.core.approval.decisions import Decision
from desktop_copilot.qt.transcript.approval_keys import ApprovalKeys
from desktop_copilot.qt.transcript.copy_actions import message_markdown, message_plain_text, put_on_clipboard, tool_arguments
from desktop_copilot.qt.transcript.link_opener import LinkOpener, tooltip_html
from desktop_copilot.qt.transcript.parts.approval import ask_denial_reason, ask_rule_pattern, is_waiting, shown_name, waiting_calls
from desktop_copilot.qt.transcript.parts.base import Hotspot, Part
from desktop_copilot.qt.transcript.parts.code_blocks import COPIED_MS, COPY_ACTION, code_of
from desktop_copilot.qt.transcript.parts.compaction import OPEN_ORIGIN, TOGGLE, UNDO
from desktop_copilot.qt.transcript.parts.markdown import KNOWLEDGE_SCHEME
from desktop_copilot.qt.transcript.selection import PointFinder, TextPoint, TextSelection
from desktop_copilot.qt.transcript.row_view import RowView
from desktop_copilot.qt.transcript.delegate import TranscriptDelegate
from desktop_copilot.qt.transcript.model import TranscriptModel

RESIZE_DEBOUNCE_MS = 120
TICK_MS = 250
"""How often live timers ("Thinking… 4 s", tool elapsed time) repaint while a run is busy."""
SELECT_SCROLL_MS = 30
"""While a selection is dragged past the top or bottom, the view scrolls this often, by how far past it is."""
SELECT_SCROLL_MAX = 48


class TranscriptView(RowView):
    sig_tool_decision = Signal(str, str, str)
    """The user answered an approval card: (tool call id, core.approval.decisions.Decision value, reason). Once per call."""
    sig_selection_changed = Signal(bool)
    """Text was selected (True) or the selection cleared (False): e.g. for Edit ▸ Copy."""
    sig_undo_compaction = Signal(str)
    """"Undo compaction" was chosen on a marker (its compaction's id): the controller undoes it."""
    sig_open_conversation = Signal(str)
    """The link to the conversation a summary chat was started from was clicked (its id)."""
    sig_open_passage = Signal(str, int)
    """A knowledge passage under a reply was clicked: (the reply's id, the passage's number). The window shows it."""

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
        self.delegate.sig_link_clicked.connect(self._on_link_clicked)
        self.delegate.sig_hotspot_clicked.connect(self._on_hotspot_clicked)
        self.ask_denial_reason: Callable[[QWidget, str], str | None] = ask_denial_reason
        """Asks why a call is denied (a modal box); returns None when the user cancels."""
        self.ask_rule_pattern: Callable[[QWidget, str, str], str | None] = ask_rule_pattern
        """(parent, tool, proposed pattern) -> the pattern of the allow rule "always allow calls like this" adds; None
        when the user cancels."""
        self.menu_extenders: list[Callable[[QMenu, QModelIndex], None]] = []
        """Called with the context menu and the row's index before it is shown (e.g. the reply actions and the version switcher)."""
        self.overlay_painters: list[Callable[[QPainter], None]] = []
        """Called after the rows are painted, with a painter on the viewport (e.g. the version switcher)."""
        self.selection = TextSelection(model)
        self.delegate.env.selection = self.selection
        self._points = PointFinder(self)
        self._press: tuple[QPoint, TextPoint | None] | None = None
        """Where the left button went down, and the text there (None off text or on a button)."""
        self._dragging = False
        self._swallow_release = False
        self._last_double: tuple[float, QPoint] | None = None
        self._drag_pos = QPoint()
        self._scroll_timer = QTimer(self, interval=SELECT_SCROLL_MS)
        self._scroll_timer.timeout.connect(self._auto_scroll)
        self._copied_timer = QTimer(self, singleShot=True, interval=COPIED_MS)
        self._copied_timer.timeout.connect(self._end_copied)
        model.modelReset.connect(self.clear_selection)
        self.approval_keys = ApprovalKeys(self)
        """The keyboard on waiting approval cards: Tab reaches their buttons, Enter presses one, Esc denies."""

    def _on_link_clicked(self, href: str, text: str) -> None:
        """A cited knowledge passage opens in the app's viewer; any other link goes through the link opener's checks."""
        prefix = KNOWLEDGE_SCHEME + ":"
        if href.startswith(prefix):
            message_id, _, number = href[len(prefix):].rpartition("/")
            if number.isdigit():
                self.sig_open_passage.emit(message_id, int(number))
            return
        self.link_opener.activate(href, text)

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

    def set_zoom(self, factor: float) -> None:
        """Text `factor` times its size; the rows are laid out again around what is on screen."""
        if abs(factor - self.delegate.zoom) < 1e-3:
            return
        anchor = self._anchor()
        self.delegate.set_zoom(factor)
        self.rows.reset(self._estimate_all())
        self._restore(anchor)
        self.viewport().update()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        group = QPalette.ColorGroup.Active if self.hasFocus() else QPalette.ColorGroup.Inactive
        self.selection.highlight = self.palette().color(group, QPalette.ColorRole.Highlight)
        self.selection.highlighted_text = self.palette().color(group, QPalette.ColorRole.HighlightedText)
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
        pos = event.position().toPoint()
        if self._press is not None and self._press[1] is not None and event.buttons() & Qt.MouseButton.LeftButton:
            if not self._dragging and (pos - self._press[0]).manhattanLength() >= QApplication.startDragDistance():
                self._dragging = True
                self._set_card_state("pressed", ())
                self.setFocus(Qt.FocusReason.MouseFocusReason)
            if self._dragging:
                self._drag_pos = pos
                self._extend_selection(pos)
                outside = pos.y() < 0 or pos.y() > self.viewport().height()
                (self._scroll_timer.start if outside else self._scroll_timer.stop)()
                return
        super().mouseMoveEvent(event)
        index = self.indexAt(pos)
        clickable = index.isValid() and self.delegate.is_clickable_at(index, self.visualRect(index), pos)
        cursor = Qt.CursorShape.PointingHandCursor if clickable else Qt.CursorShape.IBeamCursor if self._points.on_text(pos) else Qt.CursorShape.ArrowCursor
        self.viewport().setCursor(cursor)
        self._set_card_state("hover", self._hotspot_key(pos))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        if event.button() == Qt.MouseButton.LeftButton:
            pos = event.position().toPoint()
            on_button = self._hotspot_key(pos)
            self._set_card_state("pressed", on_button)
            index = self.indexAt(pos)
            on_toggle = index.isValid() and self.delegate.toggle_part_at(index, self.visualRect(index), pos) is not None
            point = None if on_button or on_toggle or not index.isValid() else self._points.in_row(index.row(), pos)
            self._dragging, self._swallow_release = False, False
            if point is not None and self._is_third_click(pos):
                self._select_around(point, paragraph=True)
                self._swallow_release = True
                return
            if point is not None and event.modifiers() & Qt.KeyboardModifier.ShiftModifier and self.selection.anchor is not None:
                self._set_selection(self.selection.anchor, point)
                self._swallow_release = True
                return
            self._press = (pos, point)
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        if event.button() == Qt.MouseButton.LeftButton:
            self._scroll_timer.stop()
            press, self._press = self._press, None
            if self._dragging or self._swallow_release:  # a selection was made: no click (a link stays closed)
                self._dragging = self._swallow_release = False
                self._set_card_state("pressed", ())
                return
            if press is not None and not self._hotspot_key(press[0]) and self.selection.clear():
                self.viewport().update()  # a click elsewhere clears the selection
                self.sig_selection_changed.emit(False)
        try:
            super().mouseReleaseEvent(event)  # a button's click is handled here (the delegate's editorEvent)
        finally:
            self._set_card_state("pressed", ())

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        pos = event.position().toPoint()
        index = self.indexAt(pos)
        point = self._points.in_row(index.row(), pos) if index.isValid() and not self._hotspot_key(pos) else None
        if event.button() == Qt.MouseButton.LeftButton and point is not None:
            self._select_around(point, paragraph=False)
            self._last_double = (time.monotonic(), pos)
            self._swallow_release = True
            return
        super().mouseDoubleClickEvent(event)

    def _is_third_click(self, pos: QPoint) -> bool:
        last, self._last_double = self._last_double, None
        return (last is not None and (time.monotonic() - last[0]) * 1000 < QApplication.doubleClickInterval()
                and (pos - last[1]).manhattanLength() < 2 * QApplication.startDragDistance())

    def _hotspot_key(self, pos: QPoint) -> tuple:
        index = self.indexAt(pos)
        hit = self.delegate.hotspot_at(index, self.visualRect(index), pos) if index.isValid() else None
        return (hit[0].owner, hit[1].action, hit[1].value) if hit else ()

    # --- text selection ----------------------------------------------------------------

    def has_selection(self) -> bool:
        return not self.selection.is_empty()

    def selected_text(self) -> str:
        """The selected text as plain text ("" without a selection)."""
        return self.selection.selected(self._row_part)[0] if self.has_selection() else ""

    def copy_selection(self) -> bool:
        """Put the selected text on the clipboard (plain text and HTML); False when nothing is selected."""
        if not self.has_selection():
            return False
        text, html = self.selection.selected(self._row_part)
        if not text:
            return False
        put_on_clipboard(text, html)
        return True

    def clear_selection(self) -> None:
        if self.selection.clear():
            self.viewport().update()
            self.sig_selection_changed.emit(False)

    def _row_part(self, row: int) -> Part | None:
        index = self.transcript.index(row, 0)
        return None if self.transcript.segment_at(row).kind == "pending" else self.delegate.layout(index).parts[0]

    def _set_selection(self, anchor: TextPoint, cursor: TextPoint) -> None:
        self.selection.set(anchor, cursor)
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        self.viewport().update()
        self.sig_selection_changed.emit(self.has_selection())

    def _select_around(self, point: TextPoint, paragraph: bool) -> None:
        found = self._points.word(point, paragraph)
        if found is not None:
            self._set_selection(*found)

    def _extend_selection(self, pos: QPoint) -> None:
        anchor = self._press[1] if self._press is not None else None
        if anchor is None:
            return
        here = self.indexAt(pos)
        anchor_row = self.transcript.row_of(anchor.message_id)
        forward = not here.isValid() and pos.y() > 0 or (here.isValid() and anchor_row is not None and here.row() >= anchor_row)
        cursor = self._points.at(pos, forward)
        if cursor is not None and (cursor != self.selection.cursor or anchor != self.selection.anchor):
            self._set_selection(anchor, cursor)

    def _auto_scroll(self) -> None:
        y, height = self._drag_pos.y(), self.viewport().height()
        past = y if y < 0 else y - height if y > height else 0
        if not self._dragging or not past:
            self._scroll_timer.stop()
            return
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + max(-SELECT_SCROLL_MAX, min(SELECT_SCROLL_MAX, past)))
        self._extend_selection(self._drag_pos)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) and self.has_selection() \
                and (event.matches(QKeySequence.StandardKey.Copy) or event.key() == Qt.Key.Key_Escape):
            event.accept()  # ours while text is selected, even if a window action has the same keys
            return True
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) and self.approval_keys.takes(event):
            event.accept()  # ours while the focus ring is on a card's button
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt name
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()  # never the item view's own copy (the row's whole message)
            event.accept()
            return
        if event.key() == Qt.Key.Key_Escape and self.has_selection():
            self.clear_selection()
            event.accept()
            return
        if self.approval_keys.key_press(event):
            event.accept()
            return
        marker = self.delegate.env.cards.current_marker
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and marker and self.transcript.compaction(marker):
            self.toggle_compaction(marker)
            event.accept()
            return
        super().keyPressEvent(event)

    def focusInEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().focusInEvent(event)
        self.approval_keys.focus_in(event.reason())  # by Tab: onto a waiting card's buttons
        self.viewport().update()  # the highlight follows the palette's active or inactive colour

    def focusOutEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().focusOutEvent(event)
        self.delegate.env.cards.current_marker = ""  # the ring goes with the focus
        self.approval_keys.focus_out()
        self.viewport().update()

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 - Qt names
        """Tab and Shift+Tab go through the waiting cards' buttons first, then leave the transcript."""
        if self.hasFocus() and self.approval_keys.focus_next(next):
            return True
        return super().focusNextPrevChild(next)

    def _set_card_state(self, which: str, key: tuple) -> None:
        """Hover or pressed look of a card button: repaint only when it changes."""
        cards = self.delegate.env.cards
        if getattr(cards, which) != key:
            setattr(cards, which, key)
            self.viewport().update()

    # --- approval cards --------------------------------------------------------------

    def _on_hotspot_clicked(self, part: Part, hotspot: Hotspot) -> None:
        cards, message = self.delegate.env.cards, part.message
        if hotspot.action in (TOGGLE, UNDO, OPEN_ORIGIN):
            self._on_marker_clicked(hotspot.action, hotspot.value)
            return
        if hotspot.action == COPY_ACTION:
            put_on_clipboard(code_of(part, int(hotspot.value)))
            cards.copied = (part.owner, hotspot.action, hotspot.value)
            self._copied_timer.start()
            self.viewport().update()
            return
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
                title = (self.tr("Deny {tool}").format(tool=shown_name(calls[0])) if len(calls) == 1
                         else self.tr("Deny %n tool calls", "", len(calls)))
                answer = self.ask_denial_reason(self, title)
                if answer is None:
                    return
                reason = answer
                calls = [call for call in calls if is_waiting(call) and call.id not in cards.sending]  # changed while asking?
            elif hotspot.value == Decision.ALLOW_LIKE.value:  # one call: its rule's pattern, as the user edits it
                pattern = self.ask_rule_pattern(self, calls[0].name, calls[0].approval.proposed_pattern)
                if pattern is None:
                    return
                reason = pattern  # the desk reads the pattern from where a denial's reason goes
                calls = [call for call in calls if is_waiting(call) and call.id not in cards.sending]
            for call in calls:
                cards.sending.add(call.id)  # first: the buttons are gone before anyone hears of the decision
            for call in calls:
                self.sig_tool_decision.emit(call.id, hotspot.value, reason)
        self._relayout_message(message.id)

    # --- compaction markers ----------------------------------------------------------

    def _on_marker_clicked(self, action: str, value: str) -> None:
        if action == UNDO:
            self.sig_undo_compaction.emit(value)
        elif action == OPEN_ORIGIN:
            self.sig_open_conversation.emit(value)
        else:
            self.delegate.env.cards.current_marker = value
            self.setFocus(Qt.FocusReason.MouseFocusReason)  # Enter opens and closes it again
            self.toggle_compaction(value)

    def toggle_compaction(self, compaction_id: str, opened: bool | None = None) -> bool:
        """Open or close (`opened`; None: the other way) the messages under a compaction's marker, which stays where it is."""
        model = self.transcript
        if opened is None:
            opened = not model.is_compaction_open(compaction_id)
        self.stick_to_bottom = False  # what opens shows under the marker; the end does not pull it away
        changed = model.set_compaction_open(compaction_id, opened)
        self.viewport().update()
        return changed

    def _end_copied(self) -> None:
        self.delegate.env.cards.copied = ()
        self.viewport().update()

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
        if hit and hit.href.startswith(KNOWLEDGE_SCHEME + ":"):
            return self.tr("Show this passage")
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
        self.fill_context_menu(menu, index)
        menu.exec(event.globalPos())

    def fill_context_menu(self, menu: QMenu, index: QModelIndex) -> None:
        """The context menu of the row at `index`: Copy (the selection), the message's copy commands, a tool card's,
        then what the menu extenders add."""
        if self.has_selection():
            copy = menu.addAction(self.tr("Copy"), self.copy_selection)
            copy.setShortcut(QKeySequence(QKeySequence.StandardKey.Copy))
            menu.addSeparator()
        segment = index.data(TranscriptModel.SegmentRole)
        compaction = self.transcript.compaction_at(index.row())
        if compaction is not None:
            self._fill_marker_menu(menu, compaction)
            return
        if segment.kind == "origin":
            menu.addAction(self.tr("Open the original conversation"), lambda: self.sig_open_conversation.emit(segment.state[0]))
            return
        message = index.data(TranscriptModel.MessageRole)
        if message is not None:
            markdown = message_markdown(message)
            menu.addAction(self.tr("Copy message as Markdown"), lambda: put_on_clipboard(markdown, markdown=markdown))
            menu.addAction(self.tr("Copy as plain text"), lambda: put_on_clipboard(message_plain_text(message, self.delegate.env.theme)))
            segment = index.data(TranscriptModel.SegmentRole)
            if segment.kind == "tool" and 0 <= segment.block < len(message.blocks):
                block = message.blocks[segment.block]
                menu.addSeparator()
                menu.addAction(self.tr("Copy tool arguments"), lambda: put_on_clipboard(tool_arguments(block)))
                if block.result is not None:
                    menu.addAction(self.tr("Copy tool result"), lambda: put_on_clipboard(block.result or ""))
        for extend in self.menu_extenders:
            extend(menu, index)

    def _fill_marker_menu(self, menu: QMenu, compaction) -> None:
        """A compaction marker's menu: open or close its messages, copy the summary sent in their place, undo it."""
        opened = self.transcript.is_compaction_open(compaction.id)
        menu.addAction(self.tr("Hide the compacted messages") if opened else self.tr("Show the compacted messages"),
                       lambda: self.toggle_compaction(compaction.id, not opened))
        if compaction.kind == "summary" and compaction.summary:
            menu.addAction(self.tr("Copy summary"), lambda: put_on_clipboard(compaction.summary))
        if not compaction.undone:
            menu.addSeparator()
            undo = menu.addAction(self.tr("Undo compaction"), lambda: self.sig_undo_compaction.emit(compaction.id))
            undo.setToolTip(self.tr("Send these messages whole again from the next request on"))
