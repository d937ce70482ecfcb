"""The answers of a side-by-side turn in columns under the question: each column a transcript of its own (thinking,
tool cards with their approval buttons, status) with a header naming its model, its state, tokens and cost, Stop for
that answer alone, and "Continue with this" once every answer has ended. The columns' models and documents exist only
while the turn shows."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QTimer, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Message, MessageStatus
from desktop_copilot.core.side_by_side import Column, SideBySide
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.common.theme_switch import themed_style_sheet
from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.view import TranscriptView

FRAME_MS = 16
"""Each column's changed rows are pushed to its model at most once per frame."""


@themed_style_sheet
def columns_style_sheet(theme: Theme) -> str:
    return f"""
        QFrame#answerColumn {{ background: {theme.card}; border: 1px solid {theme.border}; border-radius: 10px; }}
        QFrame#answerColumn[picked="true"] {{ border: 2px solid {theme.accent}; }}
        QLabel#answerModel {{ color: {theme.text}; font-weight: 600; background: transparent; border: none; }}
        QLabel#answerState, QLabel#answerUsage {{ color: {theme.muted}; background: transparent; border: none; }}
        QLabel#answerState[failed="true"] {{ color: {theme.error_text}; }}
        QLabel#sideBySideTitle {{ color: {theme.muted}; background: transparent; }}
        QPushButton#answerStop, QPushButton#answerPick {{ color: {theme.text}; background: {theme.user_bubble};
            border: 1px solid {theme.border}; border-radius: 8px; padding: 3px 10px; }}
        QPushButton#answerPick:enabled {{ color: {theme.on_accent}; background: {theme.accent}; border-color: {theme.accent}; }}
        QPushButton#answerPick:enabled:hover {{ background: {theme.accent_hover}; }}
        QPushButton:disabled {{ color: {theme.faint}; }}
    """


def state_words(column: Column) -> str:
    """What the answer is doing or how it ended, in a few words."""
    if column.running:
        return QCoreApplication.translate("AnswerColumn", "Writing…")
    words = {"completed": QCoreApplication.translate("AnswerColumn", "Done"),
             "stopped": QCoreApplication.translate("AnswerColumn", "Stopped"),
             "failed": QCoreApplication.translate("AnswerColumn", "Failed"),
             "interrupted": QCoreApplication.translate("AnswerColumn", "Interrupted"),
             "refused": QCoreApplication.translate("AnswerColumn", "Declined"),
             "round_limit": QCoreApplication.translate("AnswerColumn", "Tool round limit"),
             "loop": QCoreApplication.translate("AnswerColumn", "Stopped: repeated call")}
    return words.get(column.outcome or "", QCoreApplication.translate("AnswerColumn", "Waiting"))


class AnswerColumn(QFrame):
    """One model's answer: header, then its transcript."""

    sig_stop = Signal()
    sig_pick = Signal()

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="answerColumn")
        self.model = TranscriptModel(self)
        self.view = TranscriptView(self.model, parent=self)
        self.view.setObjectName("answerTranscript")
        self.model_label = PlainLabel(title, objectName="answerModel")
        self.state_label = PlainLabel("", objectName="answerState")
        self.usage_label = PlainLabel("", objectName="answerUsage")
        self.stop_button = QPushButton(self.tr("Stop"), objectName="answerStop")
        self.pick_button = QPushButton(self.tr("Continue with this"), objectName="answerPick")
        for button in (self.stop_button, self.pick_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.stop_button.setToolTip(self.tr("Stop this answer; what arrived is kept"))
        self.pick_button.setToolTip(self.tr("Go on with this answer; the others stay as versions of the reply"))
        self.stop_button.clicked.connect(self.sig_stop)
        self.pick_button.clicked.connect(self.sig_pick)
        header = QHBoxLayout()
        header.setContentsMargins(12, 8, 8, 4)
        names = QVBoxLayout()
        names.setSpacing(0)
        names.addWidget(self.model_label)
        names.addWidget(self.state_label)
        header.addLayout(names, 1)
        header.addWidget(self.stop_button)
        header.addWidget(self.pick_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(1, 1, 1, 1)
        column.setSpacing(0)
        column.addLayout(header)
        self.usage_label.setContentsMargins(12, 0, 12, 4)
        column.addWidget(self.usage_label)
        column.addWidget(self.view, 1)


class AnswerColumns(QWidget):
    """The columns of the turn shown (`show_turn`), following its answers' events (`on_event`)."""

    sig_stop = Signal(int)
    sig_pick = Signal(int)
    sig_tool_decision = Signal(str, str, str)

    def __init__(self, provider_label: Callable[[str], str], usage_text: Callable[[list[Message]], str],
                 parent: QWidget | None = None, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent, objectName="sideBySide")
        self.setStyleSheet(columns_style_sheet(theme))
        self.provider_label = provider_label
        """Provider id -> its name."""
        self.usage_text = usage_text
        """An answer's messages -> its tokens and cost in words."""
        self.turn: SideBySide | None = None
        self.columns: list[AnswerColumn] = []
        self._dirty: dict[int, dict[str, None]] = {}
        self._frame = QTimer(self, singleShot=True, interval=FRAME_MS)
        self._frame.timeout.connect(self.flush)
        self.title = PlainLabel(self.tr("Several models answer this question. Pick the answer to continue with."),
                                objectName="sideBySideTitle")
        self._row = QHBoxLayout()
        self._row.setSpacing(10)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 6, 16, 6)
        outer.addWidget(self.title)
        outer.addLayout(self._row, 1)
        self.hide()

    def show_turn(self, turn: SideBySide | None) -> None:
        """Show `turn`'s answers as they stand (None: hide, dropping the columns and their documents)."""
        if turn is self.turn and turn is not None:
            self.refresh()
            return
        self._frame.stop()
        self._dirty.clear()
        for column in self.columns:
            column.setParent(None)
            column.deleteLater()
        self.columns = []
        self.turn = turn
        if turn is None:
            self.hide()
            return
        for index, answer in enumerate(turn.columns):
            widget = AnswerColumn(f"{self.provider_label(answer.choice.provider_id)} · {answer.choice.model}", self)
            widget.model.provider_label = self.provider_label
            widget.model.set_messages(turn.answer(index))
            widget.sig_stop.connect(lambda index=index: self.sig_stop.emit(index))
            widget.sig_pick.connect(lambda index=index: self.sig_pick.emit(index))
            widget.view.sig_tool_decision.connect(self.sig_tool_decision)
            self._row.addWidget(widget, 1)
            self.columns.append(widget)
        self.refresh()
        self.show()

    def on_event(self, index: int, event: ev.Event) -> None:
        """An event of answer `index` (its messages already updated by the core)."""
        if self.turn is None or index >= len(self.columns):
            return
        column = self.columns[index]
        if isinstance(event, ev.MessageCreated):
            self.flush()
            column.model.append_message(event.message)
            column.view.follow()
            self.refresh()
            return
        if event.message_id:
            self._dirty.setdefault(index, {})[event.message_id] = None
        if isinstance(event, ev.DELTA_EVENTS):
            if not self._frame.isActive():
                self._frame.start()
            return
        self.flush()
        self.refresh()

    def flush(self) -> None:
        self._frame.stop()
        dirty, self._dirty = self._dirty, {}
        for index, ids in dirty.items():
            for message_id in ids:
                self.columns[index].model.message_changed(message_id)
        if dirty:
            self._refresh_usage()

    def refresh(self) -> None:
        """Each header's state and buttons as the turn stands."""
        turn = self.turn
        if turn is None:
            return
        ended = not turn.running
        for index, (widget, column) in enumerate(zip(self.columns, turn.columns)):
            widget.state_label.setText(state_words(column))
            failed = column.outcome in ("failed", "interrupted") or any(
                m.status in (MessageStatus.FAILED, MessageStatus.INTERRUPTED) for m in turn.answer(index))
            widget.state_label.setProperty("failed", failed)
            widget.state_label.style().unpolish(widget.state_label)
            widget.state_label.style().polish(widget.state_label)
            widget.stop_button.setVisible(column.running)
            widget.pick_button.setVisible(ended)
            widget.pick_button.setEnabled(bool(turn.answer(index)))
            widget.view.set_live(column.running)
        self._refresh_usage()

    def _refresh_usage(self) -> None:
        turn = self.turn
        if turn is None:
            return
        for index, widget in enumerate(self.columns):
            widget.usage_label.setText(self.usage_text(turn.answer(index)))
