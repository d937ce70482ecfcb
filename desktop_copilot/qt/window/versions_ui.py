"""Edit and regenerate in the main window, and switching between the versions they leave behind.

- Regenerate: the context menu of the last reply ("Regenerate reply") or Ctrl+Shift+R run
  ChatSession.regenerate through ChatController.start_run.
- Edit: "Edit and resend…" on a user message puts its text in the composer in edit mode (a bar above
  it, Esc cancels and gives the previous draft back); sending runs ChatSession.edit.
- Versions: where the session has earlier versions at a position, a small "‹ 2 / 2 ›" switcher is
  painted in the gap above that message (the user message for edits, the first reply for
  regenerations) and the context menu lists them; switching calls ChatSession.switch_version.

`install_versions(window)` adds all of it to a MainWindow.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QModelIndex, QObject, QRect, Qt
from PySide6.QtGui import QFontMetrics, QKeySequence, QMouseEvent, QPainter, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QMenu, QPushButton, QWidget

from desktop_copilot.core.chat import NothingToDoError
from desktop_copilot.core.models import Message, Role
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.transcript.model import TranscriptModel

REGENERATE_SHORTCUT = "Ctrl+Shift+R"
EDIT_BANNER = "Editing a message — Esc to cancel"
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


def edit_bar_style_sheet(theme: Theme) -> str:
    return f"""
        QFrame#editBar {{ background: {theme.card}; border: 1px solid {theme.border}; border-radius: 10px; }}
        QLabel#editBarText {{ color: {theme.muted}; background: transparent; border: none; }}
        QPushButton#cancelEditButton {{ color: {theme.text}; background: {theme.user_bubble};
            border: 1px solid {theme.border}; border-radius: 8px; padding: 3px 12px; }}
        QPushButton#cancelEditButton:hover {{ background: {theme.row_selected}; }}
    """


class EditBar(QFrame):
    """Shown above the composer while it holds the new text of an earlier message."""

    def __init__(self, parent: QWidget | None = None, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent, objectName="editBar")
        self.setStyleSheet(edit_bar_style_sheet(theme))
        self.text = PlainLabel(EDIT_BANNER, objectName="editBarText")
        self.cancel_button = QPushButton("Cancel", objectName="cancelEditButton")
        self.cancel_button.setCursor(Qt.CursorShape.PointingHandCursor)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 5, 8, 5)
        row.addWidget(self.text, 1)
        row.addWidget(self.cancel_button)
        self.hide()


class VersionsUI(QObject):
    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.model: TranscriptModel = window.controller.model
        self.view = window.view
        self.composer = window.composer
        self.theme = DEFAULT_THEME
        self.bar = EditBar()
        self.editing: tuple[str, str] | None = None
        """(conversation id, message id) of the message being edited."""
        self.draft = ""
        """The composer's text before edit mode, given back when it ends."""
        self.versions: dict[str, Versions] = {}
        """Message id (first message of a version) -> its versions, for the open conversation."""
        self._hits: list[tuple[QRect, str]] = []
        """Switcher arrows painted last time: area in viewport coordinates -> archived tail id."""

        self.view.menu_extenders.append(self.extend_menu)
        self.view.overlay_painters.append(self.paint_switchers)
        self.view.viewport().installEventFilter(self)
        self.bar.cancel_button.clicked.connect(self.cancel_edit)
        self.composer.sig_submitted.disconnect(window.send)
        self.composer.sig_submitted.connect(self.submit)
        self.composer.edit.sig_escape.connect(self._escape)
        self.controller.sig_busy_changed.connect(self._on_busy_changed)
        self.model.modelReset.connect(self._on_reset)
        self.shortcut = QShortcut(QKeySequence(REGENERATE_SHORTCUT), window)
        self.shortcut.activated.connect(self.regenerate)
        self.refresh()

    @property
    def session(self):
        return self.controller.session

    # --- regenerate and edit -----------------------------------------------------------

    def can_regenerate(self, message: Message) -> bool:
        """`message` is part of the last reply (no user message after it)."""
        messages = self.session.conversation.messages
        ids = [m.id for m in messages]
        if message.role is not Role.ASSISTANT or message.id not in ids:
            return False
        return all(m.role is not Role.USER for m in messages[ids.index(message.id):])

    def regenerate(self) -> bool:
        """Replace the last reply with a new one (the old one becomes an earlier version)."""
        if self.controller.busy or self.editing:
            return False
        session = self.session
        return self._start(lambda emit, confirm: session.regenerate(emit, confirm))

    def start_edit(self, message: Message) -> bool:
        """Put `message`'s text in the composer; the next send replaces it (see `submit`)."""
        if self.controller.busy or message.role is not Role.USER:
            return False
        if self.editing is None:
            self.draft = self.composer.text()
        self.editing = (self.session.conversation.id, message.id)
        self.composer.set_text(message.text)
        self.bar.show()
        self.composer.focus()
        return True

    def cancel_edit(self) -> bool:
        if self.editing is None:
            return False
        self._end_edit()
        self.composer.set_text(self.draft)
        self.draft = ""
        self.composer.focus()
        return True

    def submit(self, text: str) -> bool:
        """The composer's send: an edit and resend in edit mode, an ordinary send otherwise."""
        if self.editing is None:
            return self.window.send(text)
        _conversation_id, message_id = self.editing
        session = self.session
        started = self._start(lambda emit, confirm: session.edit(message_id, text, emit, confirm), give_back=text)
        if started:
            self._end_edit()
            if self.draft:
                self.composer.set_text(self.draft)
            self.draft = ""
        return started

    def _end_edit(self) -> None:
        self.editing = None
        self.bar.hide()

    def _start(self, method, give_back: str = "") -> bool:
        """Run `method(emit, confirm)`; at its first event the transcript is re-read from the session,
        which has just moved the replaced messages to an earlier version."""
        model, session = self.model, self.session
        resynced = False

        def run(emit, confirm_loop):
            def forward(event) -> None:
                nonlocal resynced
                if not resynced:
                    resynced = True
                    model.set_messages(session.conversation.messages)
                emit(event)

            return method(forward, confirm_loop)

        self.window.banner.dismiss()
        if not self.controller.start_run(run, give_back=give_back):
            return False
        self.view.follow()
        return True

    def _escape(self) -> None:
        if not self.controller.busy:
            self.cancel_edit()

    # --- versions ----------------------------------------------------------------------

    def refresh(self) -> None:
        """Re-read which messages have earlier versions."""
        found: dict[str, Versions] = {}
        session = self.session
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
        """Make the archived tail `tail_id` the active version and show it."""
        if self.controller.busy or self.editing:
            return False
        try:
            self.session.switch_version(tail_id)
        except (NothingToDoError, KeyError) as exc:
            self.window.banner.show_error(str(exc))
            return False
        self.model.set_messages(self.session.conversation.messages)  # resets: refresh() follows
        if history := getattr(self.window, "history", None):
            history.sync_current()
        return True

    def _on_busy_changed(self, busy: bool) -> None:
        if busy:
            return
        session = self.session
        if session.history_loaded and self.model.message_ids() != [m.id for m in session.conversation.messages]:
            self.model.set_messages(session.conversation.messages)
        self.refresh()

    def _on_reset(self) -> None:
        if self.editing is not None:
            conversation_id, message_id = self.editing
            if conversation_id != self.session.conversation.id or self.model.row_of(message_id) is None:
                self.cancel_edit()
        self.refresh()

    # --- context menu ------------------------------------------------------------------

    def extend_menu(self, menu: QMenu, index: QModelIndex) -> None:
        message = index.data(TranscriptModel.MessageRole)
        if message is None:
            return
        idle = not self.controller.busy
        menu.addSeparator()
        if message.role is Role.USER:
            action = menu.addAction("Edit and resend…", lambda: self.start_edit(message))
            action.setEnabled(idle)
        elif self.can_regenerate(message):
            action = menu.addAction("Regenerate reply", self.regenerate)
            action.setShortcut(QKeySequence(REGENERATE_SHORTCUT))
            action.setEnabled(idle and self.editing is None)
        versions = self.versions.get(message.id)
        if versions is not None:
            submenu = menu.addMenu(f"Versions ({versions.count})")
            submenu.setEnabled(idle and self.editing is None)
            for at, tail_id in enumerate(versions.entries):
                if tail_id is None:
                    action = submenu.addAction(f"Version {at + 1} of {versions.count} (shown)")
                    action.setCheckable(True)
                    action.setChecked(True)
                    action.setEnabled(False)
                else:
                    submenu.addAction(f"Switch to version {at + 1} of {versions.count}",
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


def install_versions(window) -> VersionsUI:
    """Edit / regenerate / versions for `window`: the edit bar goes just above the composer, and the recovery
    bar's Edit and resend (for a refused reply) edits the message that was refused."""
    versions = VersionsUI(window)
    window.recovery.sig_edit_requested.connect(versions.start_edit)  # a refused reply's Edit and resend
    column = window.composer.parentWidget().layout()
    column.insertWidget(column.indexOf(window.composer), versions.bar)
    return versions
