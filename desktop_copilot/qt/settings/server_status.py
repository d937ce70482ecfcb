"""Settings ▸ Providers: whether each local model server runs, asked when the page opens and again when its URL
changes (after a pause in typing), with the URL and key as typed; shown quietly in the row's header, never as an
error. Test answers it too (the page shows what its model list said)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.bridge.background import BackgroundTasks
from desktop_copilot.qt.settings.providers_parts import ProviderRow, url_problem

TYPING_PAUSE_MS = 600
"""A URL is tried once typing has paused this long."""


class ServerStatus(QObject):
    """Probes the local rows of `rows` (the page's, kept up to date), one probe per server at a time: a newer one
    replaces the one under way. `scratch(row)` is a runtime with the settings and key as typed (closed after)."""

    def __init__(self, rows: dict[str, ProviderRow], scratch: Callable[[ProviderRow], Runtime], parent: QObject) -> None:
        super().__init__(parent)
        self.rows = rows
        self.scratch = scratch
        self.tasks = BackgroundTasks()
        self._probing: dict[str, asyncio.Task] = {}
        self._typed: set[str] = set()
        self._timer = QTimer(self, singleShot=True, interval=TYPING_PAUSE_MS)
        self._timer.timeout.connect(self._probe_typed)

    def watch(self, row: ProviderRow) -> None:
        """A new row: a local server's is asked again when its URL changes."""
        if row.spec.local:
            row.url_edit.textChanged.connect(lambda _text, provider_id=row.spec.id: self._after_typing(provider_id))

    def probe_all(self) -> None:
        for provider_id, row in self.rows.items():
            if row.spec.local:
                self.probe(provider_id)

    def probe(self, provider_id: str) -> asyncio.Task:
        self.stop(provider_id)
        task = self.tasks.start(self._probe(self.rows[provider_id]))
        self._probing[provider_id] = task
        return task

    def stop(self, provider_id: str) -> None:
        """Forgets a probe under way (Test is asking instead, or the row went)."""
        self._typed.discard(provider_id)
        if (task := self._probing.pop(provider_id, None)) is not None:
            task.cancel()

    def _after_typing(self, provider_id: str) -> None:
        self._typed.add(provider_id)
        self._timer.start()

    def _probe_typed(self) -> None:
        for provider_id in sorted(self._typed):
            if provider_id in self.rows:
                self.probe(provider_id)

    async def _probe(self, row: ProviderRow) -> None:
        if url_problem(row.url_edit.text(), required=row.spec.custom):
            row.server_state.clear()  # the row says what is wrong with the URL
            return
        scratch = self.scratch(row)
        url = scratch.base_url(scratch.spec(row.spec.id))
        row.show_server_checking()
        try:
            models = await scratch.running_models(row.spec.id)
        finally:
            await scratch.aclose()
        row.show_server(models, url)
