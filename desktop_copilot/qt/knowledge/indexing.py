"""The window's knowledge indexing: one IndexingService (its worker thread and, once started, its file watcher), its
progress brought to the GUI thread as signals, and the source edits Settings ▸ Knowledge makes (they act at once)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal

if TYPE_CHECKING:  # the service, the library and watchdog load when indexing starts
    from desktop_copilot.core.knowledge.indexer import Progress
    from desktop_copilot.core.knowledge.library import KnowledgeLibrary, SourceRow
    from desktop_copilot.core.knowledge.service import IndexingService
    from desktop_copilot.core.runtime import Runtime

log = logging.getLogger(__name__)


class KnowledgeIndexing(QObject):
    """Owns the window's `IndexingService`. Nothing runs until `start()` (or the first `add`); `stop()` at close."""

    sig_progress = Signal(object)
    """A `Progress` of the source being indexed (a copy, on the GUI thread); `finished` once at the end of each run."""
    sig_changed = Signal()
    """A source was added, removed, switched or finished indexing: lists and counts are worth reading again."""
    sig_failed = Signal(str)
    """A source edit done in the background failed (the words say why)."""
    sig_embedding = Signal(str, bool, str)
    """(source, done, message): the embedding pass after a run started (done False) or ended, with what to tell the
    user ("" for nothing). Only while an embedding model is configured."""
    _sig_worker_progress = Signal(object)
    _sig_removed = Signal(str, str)
    _sig_embedding = Signal(str, bool, str)

    def __init__(self, runtime: Runtime, parent: QObject | None = None, *, watch: bool = True) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.watch = watch
        """Whether sources are indexed again when their files change (watchdog)."""
        self.service: IndexingService | None = None
        self.started = False
        self.running: dict[str, Progress] = {}
        """Casefolded source name -> the latest progress of its run going on."""
        self.waiting: set[str] = set()
        """Casefolded names of the sources asked for and not started yet."""
        self.last_runs: dict[str, Progress] = {}
        """Casefolded source name -> how its last run ended (this session)."""
        self.removing: set[str] = set()
        """Casefolded names of the sources being removed, or removed (until added again): their late progress is ignored."""
        self.embedding: set[str] = set()
        """Casefolded names of the sources whose passages are being embedded."""
        self._chores: ThreadPoolExecutor | None = None
        """One thread for what may take long and must not hold the window: watching folders, removing a source."""
        self._jobs: list[Future] = []
        self._stopped = False
        self._sig_worker_progress.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        self._sig_removed.connect(self._on_removed, Qt.ConnectionType.QueuedConnection)
        self._sig_embedding.connect(self._on_embedding, Qt.ConnectionType.QueuedConnection)

    # --- reading --------------------------------------------------------------------------------

    @property
    def has_database(self) -> bool:
        return self.started or self.runtime.paths.knowledge_database.exists()

    @property
    def library(self) -> KnowledgeLibrary:
        """The knowledge database (made at first use: only call it when there is, or is about to be, a source)."""
        return self.runtime.knowledge_library()

    def sources(self) -> list[SourceRow]:
        """Every source with its counts; [] while there is no database (nothing is made just to list nothing)."""
        return self.library.sources() if self.has_database else []

    @property
    def busy(self) -> bool:
        return bool(self.running or self.waiting or self.embedding)

    @property
    def chores_pending(self) -> bool:
        """Whether watches or removals are still being set up in the background (tests wait for them)."""
        self._jobs = [job for job in self._jobs if not job.done()]
        return bool(self._jobs)

    # --- running --------------------------------------------------------------------------------

    def start(self) -> None:
        """Index every source (incrementally) and, with `watch`, follow their files; once: later calls do nothing."""
        if self.started or self._stopped:
            return
        self.started = True
        service = self._service()
        for source in self.library.sources():
            self._request(source.name)
        if self.watch:
            self._chore(service.watch)

    def reindex(self, name: str | None = None, *, full: bool = False) -> None:
        """Index `name` (every source when None) again: only the changed files, or every file with `full`."""
        names = [name] if name else [source.name for source in self.sources()]
        for each in names:
            self._request(each, full=full)
        self.start()

    def add(self, path: Path | str, name: str | None = None) -> SourceRow:
        """Adds a folder or file as a source and indexes it in the background (starting indexing if need be).
        Raises KnowledgeError (its message is for the user) when it cannot be added."""
        source = self.library.add_source(path, name)
        self.removing.discard(source.name.casefold())
        self.last_runs.pop(source.name.casefold(), None)
        self.runtime.has_knowledge(fresh=True)
        if self.started:
            self._request(source.name)
            if self.watch:
                self._chore(lambda: self.service.watch_source(source.name))
        else:
            self.start()
        self.sig_changed.emit()
        return source

    def remove(self, name: str) -> None:
        """Removes a source from the index in the background (its files on disk stay as they are): `sig_changed` when
        it is gone. Raises KnowledgeError for a name that is not a source."""
        source = self.library.source(name)
        self.removing.add(source.name.casefold())
        self.waiting.discard(source.name.casefold())
        service = self.service
        library = self.library

        def remove() -> None:
            problem = ""
            try:
                if service is not None:
                    service.unwatch(source.name)
                library.remove_source(source.name)
            except Exception as exc:  # noqa: BLE001 - a locked or damaged database: said, not raised on a thread
                log.warning("knowledge: removing %s failed", source.name, exc_info=True)
                problem = str(exc)
            self._emit("_sig_removed", source.name, problem)

        self._chore(remove)
        self.sig_changed.emit()

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Switches a source on or off for search_knowledge (its index is kept either way)."""
        self.library.set_enabled(name, enabled)
        self.runtime.has_knowledge(fresh=True)
        self.sig_changed.emit()

    def stop(self) -> None:
        """Ends the file being read, the watcher and the worker (the window closes)."""
        if self._stopped:
            return
        self._stopped = True
        if self._chores is not None:  # each chore closes its connection when it ends
            self._chores.shutdown(wait=True, cancel_futures=True)
            self._chores = None
        if self.service is not None:
            self.service.stop()
        self.running.clear()
        self.waiting.clear()
        self.embedding.clear()

    # --- internals ------------------------------------------------------------------------------

    def _service(self) -> IndexingService:
        if self.service is None:
            from desktop_copilot.core.knowledge.service import IndexingService

            self.service = IndexingService(self.library, progress=self._from_worker, after_index=self._after_index)
        return self.service

    def _request(self, name: str, *, full: bool = False) -> None:
        if self._stopped:
            return
        self.waiting.add(name.casefold())
        self._service().request(name, full=full)

    def _chore(self, job: Callable[[], object]) -> None:
        if self._stopped:
            return
        if self._chores is None:
            self._chores = ThreadPoolExecutor(max_workers=1, thread_name_prefix="knowledge-chores")
        self._jobs.append(self._chores.submit(_tidily, job, self.library))

    def _emit(self, signal: str, *args) -> None:
        """Emits from a worker thread, unless this object is gone or stopped (its queued slot runs on the GUI thread)."""
        if self._stopped or not shiboken6.isValid(self):
            return
        try:
            getattr(self, signal).emit(*args)
        except RuntimeError:  # deleted between the check and the emit
            pass

    def _from_worker(self, progress: Progress) -> None:
        """The service's callback, on its worker: the indexer goes on changing `progress`, so a copy crosses."""
        self._emit("_sig_worker_progress", dataclasses.replace(progress, problems=list(progress.problems)))

    def _after_index(self, name: str) -> None:
        """The embedding pass (on the worker), announced while a model is configured."""
        settings = self.runtime.settings
        announced = settings is not None and settings.knowledge_embedding is not None
        if announced:
            self._emit("_sig_embedding", name, False, "")
        message = self.runtime.embed_knowledge(name)
        if announced or message:
            self._emit("_sig_embedding", name, True, message or "")

    def _on_embedding(self, name: str, done: bool, message: str) -> None:
        key = name.casefold()
        if key in self.removing:
            return
        if done:
            self.embedding.discard(key)
        else:
            self.embedding.add(key)
        self.sig_embedding.emit(name, done, message)

    def _on_progress(self, progress: Progress) -> None:
        key = progress.source.casefold()
        if key in self.removing:
            return
        self.waiting.discard(key)
        if progress.finished:
            self.running.pop(key, None)
            self.last_runs[key] = progress
            self.runtime.has_knowledge(fresh=True)
        else:
            self.running[key] = progress
        self.sig_progress.emit(progress)
        if progress.finished:
            self.sig_changed.emit()

    def _on_removed(self, name: str, problem: str) -> None:
        key = name.casefold()
        if problem:
            self.removing.discard(key)
        self.running.pop(key, None)
        self.last_runs.pop(key, None)
        self.runtime.has_knowledge(fresh=True)
        if problem:
            self.sig_failed.emit(self.tr("“{name}” could not be removed: {problem}").format(name=name, problem=problem))
        self.sig_changed.emit()


def _tidily(job: Callable[[], object], library: KnowledgeLibrary) -> object:
    """A chore on the chores thread, then that thread's database connection closed and the memory it freed given back
    (a watch of a large tree walks it once)."""
    from desktop_copilot.core.knowledge.service import release_freed_memory

    try:
        return job()
    finally:
        library.close_thread()
        release_freed_memory()
