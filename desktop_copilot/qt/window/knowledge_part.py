"""Knowledge in the window: indexing started a few seconds after the window shows (only when a knowledge database is
there; otherwise when the first source is added), its indicator in the status bar, and a cited passage, clicked under
a reply, shown in the passage viewer. The knowledge modules load at first use, not with the window."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMainWindow

from desktop_copilot.core.conversation.models import Message

if TYPE_CHECKING:
    from desktop_copilot.qt.knowledge.indexing import KnowledgeIndexing
    from desktop_copilot.qt.knowledge.status import KnowledgeStatus
    from desktop_copilot.qt.knowledge.viewer import PassageViewer

log = logging.getLogger(__name__)

START_DELAY_MS = 3000
"""Indexing waits this long after the window is built: the window's start is not slowed."""


class KnowledgePart(QObject):
    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.runtime = window.controller.session.runtime
        self.indexing: KnowledgeIndexing | None = None
        self.status: KnowledgeStatus | None = None
        self.viewer: PassageViewer | None = None
        self.opener = None
        """How the viewer opens a file in its default app (None: the desktop's); tests put a recorder here."""
        window.view.sig_open_passage.connect(self.open_passage)
        if self.runtime.paths.knowledge_database.exists():
            QTimer.singleShot(START_DELAY_MS, self, self.start)

    def ensure_indexing(self) -> KnowledgeIndexing:
        """The window's indexing with its status bar indicator (made, not started: `start` or a first source does)."""
        if self.indexing is None:
            from desktop_copilot.qt.knowledge.indexing import KnowledgeIndexing
            from desktop_copilot.qt.knowledge.status import KnowledgeStatus

            self.indexing = KnowledgeIndexing(self.runtime, self)
            self.indexing.sig_changed.connect(self._sources_changed)
            self.status = KnowledgeStatus(self.indexing)
            self.status.sig_clicked.connect(self.open_settings)
            self.window.statusBar().addPermanentWidget(self.status)
        return self.indexing

    def start(self) -> None:
        if self.window.controller is None:
            return
        try:
            self.ensure_indexing().start()
        except Exception:  # a damaged database: the window works without knowledge; Settings ▸ Knowledge says why
            log.exception("knowledge: indexing could not start")

    def stop(self) -> None:
        if self.indexing is not None:
            self.indexing.stop()

    def _sources_changed(self) -> None:
        """A source came, went, switched or was indexed: the tools offered may have changed."""
        self.window.tools_menu.refresh()
        self.window.context_meter.schedule()

    def open_settings(self) -> None:
        from desktop_copilot.qt.settings.entry import open_settings

        open_settings(self.window, "knowledge")

    # --- the passage viewer ---------------------------------------------------------------------

    def reply(self, message_id: str) -> list[Message]:
        """The messages of the reply `message_id` belongs to, as the transcript shows them (else that message alone)."""
        reply = self.window.controller.model.reply_of(message_id)
        if reply:
            return reply
        return [m for m in self.window.controller.session.conversation.messages if m.id == message_id]

    def open_passage(self, message_id: str, number: int) -> PassageViewer | None:
        """Shows passage `number` of the reply `message_id` in the (one) viewer; None when the reply has no such passage."""
        from desktop_copilot.core.knowledge.citing import found_passages
        from desktop_copilot.qt.knowledge.viewer import PassageViewer

        cited = found_passages(self.reply(message_id)).get(number)
        if cited is None:
            return None
        try:
            passages = self.runtime.knowledge_library().file_passages(cited.source, cited.path) \
                if self.runtime.paths.knowledge_database.exists() else []
        except Exception:  # noqa: BLE001 - the index cannot be read: the passage as it was found
            log.warning("knowledge: the passages of %s could not be read", cited.path, exc_info=True)
            passages = []
        if self.viewer is None:
            self.viewer = PassageViewer(self.window, opener=self.opener)
        self.viewer.show_passage(cited, passages)
        return self.viewer
