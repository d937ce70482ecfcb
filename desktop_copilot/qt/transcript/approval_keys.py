"""The keyboard on approval cards: while tool calls wait for the user, Tab (from the message box) moves the focus into
the transcript onto the first waiting card's first button, with a focus ring; Tab and Shift+Tab, or Right and Left,
go through its buttons and on to the next waiting card (Tab past the last one leaves the transcript); Home and End go
to the first and last; Enter or Space presses the button the ring is on, exactly as a click does (the view's
`_on_hotspot_clicked`: one path for both); Esc presses that card's "Deny…" (the reason box, Cancel sends nothing).
Once a card is answered, the ring moves on to the next one still waiting. The view's accessible description says
which call waits and which button has the focus, for screen readers (the cards are painted, not widgets)."""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, Qt, QTimer
from PySide6.QtGui import QAccessible, QAccessibleEvent, QKeyEvent
from PySide6.QtWidgets import QWidget

from desktop_copilot.core.approval.decisions import Decision
from desktop_copilot.core.conversation.models import ToolCallBlock, ToolCallStatus
from desktop_copilot.qt.transcript.parts.approval import is_waiting, shown_name
from desktop_copilot.qt.transcript.parts.base import Hotspot, Part
from desktop_copilot.qt.transcript.row_view import RowView

AWAITING = ToolCallStatus.AWAITING_APPROVAL.value
SCAN_ROWS = 4000
"""Rows read back from the end for waiting cards (only the last reply can wait; it stops at the user's message)."""
RING_MARGIN = 12
"""Pixels kept between the focused button and the viewport's edge when the view scrolls to show it."""
KEYS_TO_KEEP = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space, Qt.Key.Key_Escape, Qt.Key.Key_Left, Qt.Key.Key_Right,
                Qt.Key.Key_Home, Qt.Key.Key_End)
"""Keys the transcript takes while the ring is on a button, even when a window action has them as its shortcut."""

Stop = tuple[int, Part, Hotspot]
"""A place the ring can be: (row, the card's part, its button or link)."""


def key_of(part: Part, hotspot: Hotspot) -> tuple:
    return part.owner, hotspot.action, hotspot.value


class ApprovalKeys(QObject):
    """The focus ring over the buttons of the view's waiting approval cards (see the module's docstring)."""

    def __init__(self, view: RowView) -> None:
        """`view`: the TranscriptView (not imported here: it imports this module); its `_on_hotspot_clicked` is what a
        click on a card's button calls."""
        super().__init__(view)
        self.view = view
        self._remembered: tuple = ()
        """The button the ring was on when the focus went away (a reason box opened): it comes back there."""
        self._last_row = -1
        """The row of the card the ring was last on: when that card is answered, the ring goes to the next one."""
        self._description = ""
        self.tab_after: QWidget | None = None
        """The widget Tab goes from to the waiting cards (the window's message box); None: the focus chain as it is."""
        self._refresh_timer = QTimer(self, singleShot=True, interval=0)
        self._refresh_timer.timeout.connect(self.refresh)
        model = view.transcript
        for signal in (model.modelReset, model.layoutChanged, model.rowsInserted, model.rowsRemoved, model.dataChanged):
            signal.connect(self._refresh_timer.start)  # several changes in one go: one refresh
        self.refresh()  # the model may hold a waiting card already

    @property
    def cards(self):
        return self.view.delegate.env.cards

    # --- what waits ----------------------------------------------------------------------

    def waiting_rows(self) -> list[tuple[int, ToolCallBlock]]:
        """(row, call) of each card waiting for an answer not sent yet, top to bottom."""
        model, found = self.view.transcript, []
        for row in range(model.rowCount() - 1, max(-1, model.rowCount() - 1 - SCAN_ROWS), -1):
            segment = model.segment_at(row)
            if segment.kind == "user":
                break
            if segment.kind != "tool" or not segment.state or segment.state[0] != AWAITING or model.is_hidden(row):
                continue
            message = model.message_at(row)
            block = message.blocks[segment.block] if message is not None and 0 <= segment.block < len(message.blocks) else None
            if isinstance(block, ToolCallBlock) and is_waiting(block) and block.id not in self.cards.sending:
                found.append((row, block))
        return found[::-1]

    def stops(self) -> list[Stop]:
        """Every button and link of the waiting cards, in the order the ring visits them."""
        found = []
        for row, _block in self.waiting_rows():
            for part in self.view.delegate.layout(self.view.transcript.index(row, 0)).parts:
                found += [(row, part, hotspot) for hotspot in part.hotspots]
        return found

    def current(self) -> Stop | None:
        """Where the ring is, if it shows."""
        if not self.cards.focused:
            return None
        return next((stop for stop in self.stops() if key_of(stop[1], stop[2]) == self.cards.focused), None)

    # --- moving ----------------------------------------------------------------------------

    def enter(self, forward: bool = True) -> bool:
        """Put the ring on the first (`forward`) or the last waiting button; False when nothing waits."""
        stops = self.stops()
        if not stops:
            return False
        self._go(stops[0] if forward else stops[-1])
        return True

    def step(self, delta: int, wrap: bool) -> bool:
        """Move the ring `delta` stops on; past either end it wraps round (`wrap`) or stays (False: the focus leaves)."""
        stops = self.stops()
        keys = [key_of(part, hotspot) for _row, part, hotspot in stops]
        if not stops or self.cards.focused not in keys:
            return False
        at = keys.index(self.cards.focused) + delta
        if not wrap and not 0 <= at < len(stops):
            return False
        self._go(stops[at % len(stops)])
        return True

    def to_end(self, last: bool) -> bool:
        return self.current() is not None and self.enter(forward=not last)

    def _go(self, stop: Stop) -> None:
        row, part, hotspot = stop
        self.cards.focused = self._remembered = key_of(part, hotspot)
        self._last_row = row
        self._show(stop)
        self.view.viewport().update()
        self.announce(stop)

    def _show(self, stop: Stop) -> None:
        """Scroll so that the button is on screen, with a margin."""
        row, part, hotspot = stop
        view = self.view
        index = view.transcript.index(row, 0)
        if not view.visualRect(index).intersects(view.viewport().rect()):
            view.scrollTo(index)
        area = view.delegate.hotspot_rect(index, view.visualRect(index), part, hotspot)
        height, bar = view.viewport().height(), view.verticalScrollBar()
        if area.bottom() + RING_MARGIN > height:
            view.stick_to_bottom = False
            bar.setValue(bar.value() + area.bottom() + RING_MARGIN - height)
        elif area.top() - RING_MARGIN < 0:
            view.stick_to_bottom = False
            bar.setValue(bar.value() + area.top() - RING_MARGIN)

    def focused_rect(self) -> QRect:
        """Where (viewport coordinates) the button with the ring is; empty without one."""
        stop = self.current()
        if stop is None:
            return QRect()
        index = self.view.transcript.index(stop[0], 0)
        return self.view.delegate.hotspot_rect(index, self.view.visualRect(index), stop[1], stop[2])

    # --- pressing -------------------------------------------------------------------------

    def activate(self) -> bool:
        """Press the button the ring is on, as a click on it does."""
        stop = self.current()
        if stop is None:
            return False
        self._press(stop)
        return True

    def deny(self) -> bool:
        """Press "Deny…" on the card the ring is on (Esc)."""
        stop = self.current()
        if stop is None:
            return False
        row, part, _hotspot = stop
        deny = next((hotspot for hotspot in part.hotspots if hotspot.action == "decide" and hotspot.value == Decision.DENY.value), None)
        if deny is None:
            return False
        self._press((row, part, deny))
        return True

    def _press(self, stop: Stop) -> None:
        row, part, hotspot = stop
        self._last_row = row
        self.view._on_hotspot_clicked(part, hotspot)  # the one path clicks take (the delegate's sig_hotspot_clicked)
        self.refresh()  # answered: the ring goes on to the next waiting card
        if not self.view.hasFocus() and self._remembered:  # a reason box was asked: the keys come back here after it
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    # --- focus and keys -------------------------------------------------------------------

    def focus_in(self, reason: Qt.FocusReason) -> None:
        """The transcript got the focus: by Tab onto the first waiting button, by Shift+Tab onto the last one, back from
        a reason box onto the button it was on; a click or a selection shows no ring."""
        if reason == Qt.FocusReason.TabFocusReason:
            self.enter(forward=True)
        elif reason == Qt.FocusReason.BacktabFocusReason:
            self.enter(forward=False)
        elif reason != Qt.FocusReason.MouseFocusReason and self._remembered:
            self.cards.focused = self._remembered
            if self.current() is None:
                self.cards.focused = ()
                self.refresh()
            else:
                self.view.viewport().update()
        else:
            self._remembered = ()

    def focus_out(self) -> None:
        if self.cards.focused:
            self.cards.focused = ()  # the ring goes with the focus
            self.view.viewport().update()
        self.announce(None)

    def takes(self, event: QKeyEvent) -> bool:
        """Whether `event` is one of the ring's keys now (for ShortcutOverride)."""
        plain = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier == Qt.KeyboardModifier.NoModifier
        return bool(self.cards.focused) and plain and event.key() in KEYS_TO_KEEP

    def key_press(self, event: QKeyEvent) -> bool:
        """Handle a key while the ring shows; True when it was one of the ring's."""
        if not self.takes(event):
            return False
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            return self.activate()
        if key == Qt.Key.Key_Escape:
            return self.deny()
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            return self.step(1 if key == Qt.Key.Key_Right else -1, wrap=True)
        return self.to_end(last=key == Qt.Key.Key_End)

    def focus_next(self, forward: bool) -> bool:
        """Tab or Shift+Tab in the transcript: the next or previous waiting button (the first or last one from text
        selected there); False past the ends, where the focus leaves the transcript."""
        if not self.cards.focused:
            return self.enter(forward)
        return self.step(1 if forward else -1, wrap=False)

    # --- keeping up -------------------------------------------------------------------------

    def refresh(self) -> None:
        """After a change: the transcript takes Tab only while a card waits; the ring leaves an answered card for the next
        one still waiting (or goes when none does); the accessible description follows."""
        view = self.view
        waiting = bool(self.waiting_rows())
        if waiting and view.focusPolicy() == Qt.FocusPolicy.NoFocus:
            view.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            if self.tab_after is not None:
                QWidget.setTabOrder(self.tab_after, view)  # Qt orders only widgets that take Tab: now, not before
        elif not waiting:
            view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        if self.cards.focused and self.current() is None:
            following = self._following()
            if following is not None:
                self._go(following)
            else:
                self.cards.focused = self._remembered = ()
                view.viewport().update()
        elif not self.cards.focused and self._remembered:  # away in a reason box: where the ring comes back to
            stops = self.stops()
            if not any(key_of(part, hotspot) == self._remembered for _row, part, hotspot in stops):
                following = self._following(stops)
                self._remembered = key_of(following[1], following[2]) if following is not None else ()
        self.announce(self.current())

    def _following(self, stops: list[Stop] | None = None) -> Stop | None:
        """The first stop of the card the ring was on or of the next one still waiting, else of the first one waiting."""
        stops = self.stops() if stops is None else stops
        following = [stop for stop in stops if stop[0] >= self._last_row] or stops
        return following[0] if following else None

    def announce(self, stop: Stop | None) -> None:
        """The view's accessible description: the button with the ring and its call, else which calls wait."""
        if stop is not None:
            _row, part, hotspot = stop
            stops = [s for s in self.stops() if s[0] == stop[0]]
            number = next((n for n, s in enumerate(stops, 1) if s[2] is hotspot), 1)
            text = self.tr("{tool} waits for your approval. {button}, button {number} of {count}. Enter presses it, Esc "
                           "denies the call.").format(tool=shown_name(part.block), button=hotspot.label, number=number, count=len(stops))
        else:
            waiting = self.waiting_rows()
            names = ", ".join(dict.fromkeys(shown_name(block) for _row, block in waiting))
            if len(waiting) == 1:
                text = self.tr("A tool call waits for your approval: {tools}. Tab moves to its buttons.").format(tools=names)
            else:
                text = self.tr("%n tool calls wait for your approval: {tools}. Tab moves to their buttons.", "",
                               len(waiting)).format(tools=names) if waiting else ""
        if text == self._description:
            return
        self._description = text
        self.view.setAccessibleDescription(text)
        if QAccessible.isActive():
            QAccessible.updateAccessibility(QAccessibleEvent(self.view, QAccessible.Event.DescriptionChanged))
