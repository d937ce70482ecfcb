"""Earlier versions in the transcript: where the session keeps earlier versions at a position, a "‹ 2 / 2 ›"
switcher is painted in the gap above that message (the user message for edits, the first reply for
regenerations) and the context menu lists them; switching calls ChatSession.switch_version, whose
HistoryChanged event the model follows like any other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QModelIndex, QObject, QRect, Qt, Signal
from PySide6.QtGui import QFontMetrics, QMouseEvent, QPainter
from PySide6.QtWidgets import QMenu

from desktop_copilot.core.chat import NothingToDoError
from desktop_copilot.core.conversation.models import Role
from desktop_copilot.qt.bridge.controller import ChatController
from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.view import TranscriptView

PREVIOUS, NEXT = "‹", "›"


@dataclass(slots=True)
class Versions:
    """The versions of the conversation from position `anchor`, oldest first: archived tail ids, with
    None for the active tail (at `current`)."""

    anchor: int
    entries: list[str | None]
    current: int

    @property
    def count(self) -> int:
        return len(self.entries)

    def label(self) -> str:
        return f"{PREVIOUS} {self.current + 1} / {self.count} {NEXT}"

    def neighbour(self, step: int) -> str | None:
        """The archived tail `step` versions away from the active one, if there is one."""
        at = self.current + step
        return self.entries[at] if 0 <= at < self.count else None


class VersionSwitcher(QObject):
    sig_failed = Signal(str)
    """A switch could not be made (words for the banner)."""

    def __init__(self, controller: ChatController, view: TranscriptView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.model: TranscriptModel = controller.model
        self.view = view
        self.theme = DEFAULT_THEME
        self.blocked: Callable[[], bool] = lambda: False
        """Whether switching must wait (the window sets it: not while a message is being edited)."""
        self.versions: dict[str, Versions] = {}
        """Message id (first message of a version) -> its versions, for the open conversation."""
        self._hits: list[tuple[QRect, str]] = []
        """Switcher arrows painted last time: area in viewport coordinates -> archived tail id."""
        view.menu_extenders.append(self.extend_menu)
        view.overlay_painters.append(self.paint_switchers)
        view.viewport().installEventFilter(self)
        controller.sig_busy_changed.connect(lambda busy: busy or self.refresh())
        self.model.modelReset.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Re-read which messages have earlier versions."""
        found: dict[str, Versions] = {}
        session = self.controller.session
        try:
            anchors = session.version_anchors()
        except Exception:  # a closed or damaged store: no switchers rather than a broken view
            anchors = {}
        for anchor in sorted(anchors):
            message_id = self.model.message_id_at(anchor)
            row = self.model.row_of(message_id) if message_id else None
            active = self.model.message_at(row) if row is not None else None
            if active is None:
                continue
            tails = session.versions(anchor)
            order = sorted([(t.messages[0].created_at, t.id) for t in tails if t.messages] + [(active.created_at, None)],
                           key=lambda entry: entry[0])
            entries = [tail_id for _created, tail_id in order]
            found[message_id] = Versions(anchor, entries, entries.index(None))
        self.versions = found
        self.view.viewport().update()

    def switch(self, tail_id: str) -> bool:
        """Make the archived tail `tail_id` the active version (the transcript follows the event that says so)."""
        if self.controller.busy or self.blocked():
            return False
        try:
            self.controller.session.switch_version(tail_id, self.controller.on_event)
        except (NothingToDoError, KeyError) as exc:
            self.sig_failed.emit(str(exc))
            return False
        self.refresh()
        return True

    def extend_menu(self, menu: QMenu, index: QModelIndex) -> None:
        message = index.data(TranscriptModel.MessageRole)
        versions = self.versions.get(message.id) if message is not None else None
        if versions is None:
            return
        submenu = menu.addMenu(self.tr("Versions ({count})").format(count=versions.count))
        submenu.setEnabled(not self.controller.busy and not self.blocked())
        for at, tail_id in enumerate(versions.entries):
            if tail_id is None:
                action = submenu.addAction(self.tr("Version {number} of {count} (shown)").format(number=at + 1, count=versions.count))
                action.setCheckable(True)
                action.setChecked(True)
                action.setEnabled(False)
            else:
                submenu.addAction(self.tr("Switch to version {number} of {count}").format(number=at + 1, count=versions.count),
                                  lambda t=tail_id: self.switch(t))

    # --- the painted switcher ----------------------------------------------------------

    def paint_switchers(self, painter: QPainter) -> None:
        """"‹ k / n ›" in the spacing above each message that has versions: right-aligned over a user
        bubble, left-aligned over a reply."""
        self._hits = []
        if not self.versions:
            return
        font = self.theme.font("small")
        metrics = QFontMetrics(font)
        viewport = self.view.viewport().rect()
        painter.save()
        painter.setFont(font)
        for message_id, versions in self.versions.items():
            row = self.model.row_of(message_id)
            if row is None:
                continue
            rect = self.view.visualRect(self.model.index(row, 0))
            gap = QRect(rect.left(), rect.top(), rect.width(), self.theme.row_spacing)
            if not gap.intersects(viewport):
                continue
            column = self.view.delegate.env.column(gap)
            text = versions.label()
            width = metrics.horizontalAdvance(text) + 4
            right = self.model.message_at(row).role is Role.USER
            left = column.right() - width if right else column.left()
            area = QRect(left, gap.top() + 1, width, gap.height() - 2)
            painter.setPen(self.theme.color("muted"))
            painter.drawText(area, int(Qt.AlignmentFlag.AlignCenter), text)
            arrow = metrics.horizontalAdvance(PREVIOUS + " ") + 2
            for step, hit in ((-1, QRect(area.left(), area.top(), arrow, area.height())),
                              (1, QRect(area.right() - arrow, area.top(), arrow, area.height()))):
                if (tail_id := versions.neighbour(step)) is not None:
                    self._hits.append((hit, tail_id))
        painter.restore()

    def switcher_hit(self, step: int, message_id: str) -> QRect | None:
        """Where the arrow `step` (-1 or 1) of `message_id`'s switcher was painted (for tests)."""
        versions = self.versions.get(message_id)
        tail_id = versions.neighbour(step) if versions else None
        return next((rect for rect, hit in self._hits if hit == tail_id), None) if tail_id else None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt name
        if (event.type() == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent)
                and event.button() == Qt.MouseButton.LeftButton and self._hits):
            pos = event.position().toPoint()
            for rect, tail_id in self._hits:
                if rect.contains(pos):
                    self.switch(tail_id)
                    return True
        return super().eventFilter(watched, event)
