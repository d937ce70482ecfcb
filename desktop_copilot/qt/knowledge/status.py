"""The status bar's knowledge indicator: "Indexing “notes” · 1,204 / 3,000 files" with a small bar while a source is
indexed, for a few seconds after a run the files it left out, hidden otherwise; a click opens Settings ▸ Knowledge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QSizePolicy, QWidget

from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.common.theme_switch import current_theme, themed_style_sheet
from desktop_copilot.core.knowledge.reasons import reason_text

if TYPE_CHECKING:
    from desktop_copilot.core.knowledge.indexer import Progress
    from desktop_copilot.qt.knowledge.indexing import KnowledgeIndexing

NEWS_MS = 6000
"""How long "“notes”: 3 files left out" stays after a run."""


@themed_style_sheet
def status_style_sheet(theme: Theme) -> str:
    return f"""
        QLabel#knowledgeStatusText {{ color: {theme.muted}; }}
        QProgressBar#knowledgeStatusBar {{ background: {theme.border}; border: none; border-radius: 3px; }}
        QProgressBar#knowledgeStatusBar::chunk {{ background: {theme.accent}; border-radius: 3px; }}
    """


class KnowledgeStatus(QWidget):
    sig_clicked = Signal()
    """The indicator was clicked: the window opens Settings ▸ Knowledge."""

    def __init__(self, indexing: KnowledgeIndexing, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="knowledgeStatus")
        self.setStyleSheet(status_style_sheet(current_theme()))
        self.indexing = indexing
        self.label = PlainLabel(objectName="knowledgeStatusText")
        self.bar = QProgressBar(objectName="knowledgeStatusBar", textVisible=False)
        self.bar.setFixedSize(90, 6)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 10, 0)
        row.setSpacing(8)
        row.addWidget(self.label)
        row.addWidget(self.bar, 0, Qt.AlignmentFlag.AlignVCenter)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)  # beside the bar, not spread out
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(self.tr("Knowledge sources: open Settings ▸ Knowledge"))
        self.news_timer = QTimer(self, singleShot=True, interval=NEWS_MS)
        self.news_timer.timeout.connect(self.refresh)
        indexing.sig_progress.connect(self.show_progress)
        indexing.sig_embedding.connect(self.show_embedding)
        self.hide()

    def show_progress(self, progress: Progress) -> None:
        if progress.finished and progress.problems:
            self._show_news(progress)
        elif not self.news_timer.isActive():
            self.refresh()

    def show_embedding(self, name: str, done: bool, message: str) -> None:
        if done and message:
            self._show_news_text(self.tr("“{name}”: {message}").format(name=name, message=message))
        elif not self.news_timer.isActive():
            self.refresh()

    def refresh(self) -> None:
        """The run going on (the first one that has files to read), else an embedding pass, else nothing."""
        running = next((p for p in self.indexing.running.values() if p.total and not p.finished), None)
        if running is None and self.indexing.embedding:
            self.label.setText(self.tr("Embedding the passages of “{name}”…").format(name=self._name_of(next(iter(self.indexing.embedding)))))
            self.bar.setRange(0, 0)
            self.bar.show()
            self.show()
            return
        if running is None:
            self.hide()
            return
        self.label.setText(self.tr("Indexing “{name}” · {done} / {total} files").format(
            name=running.source, done=f"{running.done:,}", total=f"{running.total:,}"))
        self.bar.setRange(0, running.total)
        self.bar.setValue(running.done)
        self.bar.show()
        self.show()

    def _show_news(self, progress: Progress) -> None:
        files = [path for path, _reason in progress.problems if path]
        if files:
            text = (self.tr("“{name}”: 1 file left out") if len(files) == 1
                    else self.tr("“{name}”: %n files left out", "", len(files))).format(name=progress.source)
        else:
            text = self.tr("“{name}” could not be indexed: {problem}").format(name=progress.source, problem=reason_text(progress.problems[0][1]))
        self._show_news_text(text)

    def _show_news_text(self, text: str) -> None:
        self.label.setText(text)
        self.bar.hide()
        self.show()
        self.news_timer.start()

    def _name_of(self, key: str) -> str:
        run = self.indexing.last_runs.get(key)
        return run.source if run is not None else key

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        if event.button() == Qt.MouseButton.LeftButton:
            self.sig_clicked.emit()
        super().mousePressEvent(event)
