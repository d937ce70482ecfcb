"""While the conversations are kept in memory (the database file could not be opened at start: `Store.unopened`), a
lasting banner line says why and what to do, and the file is tried again every RETRY_MS and whenever the window is
activated; once it opens, what was written is copied into it (`Store.save_to_disk`) and the banner line makes way for
a short note in the status bar."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QObject, QTimer

from desktop_copilot.qt.window.error_banner import unopened_text

log = logging.getLogger(__name__)

RETRY_MS = 15_000
SAVED_NOTE_MS = 15_000


class DiskRetry(QObject):
    """Owned by the window; does nothing once the store is on disk."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.timer = QTimer(self, interval=RETRY_MS)
        self.timer.timeout.connect(self.retry)
        self.timer.start()
        window.installEventFilter(self)
        self._show()

    @property
    def store(self):
        return self.window.controller.session.store

    def _show(self) -> None:
        unopened = self.store.unopened
        self.window.banner.set_standing(unopened_text(unopened.kind, unopened.where, self.store.history_shown),
                                        lasting=True)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.WindowActivate:
            QTimer.singleShot(0, self.retry)  # after the window is active: the user may have just fixed the folder
        return False

    def retry(self) -> bool:
        """Try the file now; True once the conversations are on disk. Not while a reply streams (its rows go on
        being saved where they started), the next try comes soon."""
        store = self.store
        if store is None or store.unopened is None:
            self._stop()
            return True
        if self.window.controller.busy:
            return False
        if not store.save_to_disk():
            self._show()  # the reason may have changed (the file moved away, the folder now read-only)
            return False
        log.info("the conversation database %s opened: what was kept in memory is written to it", store.path)
        self._stop()
        self.window.banner.set_standing("")
        self.window.statusBar().showMessage(
            self.tr("Saved to {path}: everything you wrote is on disk now.").format(path=store.path), SAVED_NOTE_MS)
        return True

    def _stop(self) -> None:
        self.timer.stop()
        self.window.removeEventFilter(self)
