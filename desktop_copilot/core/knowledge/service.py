"""Indexing in the background while the app runs: one worker thread takes the sources to index in turn, reports
progress through a callback, and, with `watch`, indexes a source again shortly after its files change."""

from __future__ import annotations

import logging
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from desktop_copilot.core.knowledge.indexer import Progress, index_source
from desktop_copilot.core.knowledge.library import KnowledgeError, KnowledgeLibrary
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

SETTLE_S = 1.5
"""A change is indexed this long after the last file event of a burst (an editor's save, a git checkout)."""

AfterIndex = Callable[[str], None]
"""Called on the worker after a source was indexed (the embedding pass hooks in here)."""


def release_freed_memory() -> None:
    """Hand the heap memory a run freed back to the system (glibc keeps it otherwise: a walk of 10,000 files left the
    window ~7 MB larger for good). Elsewhere a no-op."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # musl, or no libc by that name
            pass


class IndexingService:
    """`request(name)` queues a source (each at most once in the queue); `progress(p)` is called on the worker thread
    (a Qt caller forwards it with a queued signal). `stop()` ends the current file and the thread."""

    def __init__(self, library: KnowledgeLibrary, progress: Callable[[Progress], None] = lambda p: None,
                 after_index: AfterIndex | None = None) -> None:
        self.library = library
        self._progress = progress
        self._after_index = after_index
        self._queue: queue.Queue[tuple[str, bool] | None] = queue.Queue()
        self._queued: set[str] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._observer: Any = None
        self._watches: dict[str, Any] = {}
        self._timers: dict[str, threading.Timer] = {}
        self.current: Progress | None = None

    def request(self, name: str, *, full: bool = False) -> None:
        with self._lock:
            if name.casefold() in self._queued:
                return
            self._queued.add(name.casefold())
        self._queue.put((name, full))
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="knowledge-indexer", daemon=True)
            self._thread.start()

    def request_all(self) -> None:
        for source in self.library.sources():
            self.request(source.name)

    @property
    def busy(self) -> bool:
        return bool(self._queued) or self.current is not None

    def _work(self) -> None:
        while not self._stopping.is_set():
            job = self._queue.get()
            if job is None:
                break
            name, full = job
            with self._lock:
                self._queued.discard(name.casefold())
            try:
                source = self.library.source(name)
            except KnowledgeError:
                continue  # removed while it waited
            try:
                self.current = Progress(source.name)
                index_source(self.library, source, full=full, on_progress=self._report, should_stop=self._stopping.is_set)
                if self._after_index is not None and not self._stopping.is_set():
                    self._after_index(source.name)
            except Exception:
                if not any(s.name.casefold() == name.casefold() for s in self.library.sources()):
                    continue  # removed while it was being indexed: its rows went with it
                log.exception("knowledge: indexing %s failed", name)
                self._report(Progress(source.name, finished=True, problems=[("", tr("indexing failed; see the log"))]))
            finally:
                self.current = None
                if self._queue.empty():  # idle until the next change: give back what the run held
                    self.library.close_thread()
                    release_freed_memory()
        self.library.close_thread()

    def _report(self, progress: Progress) -> None:
        if not progress.finished:
            self.current = progress
        try:
            self._progress(progress)
        except Exception:
            log.exception("knowledge: a progress listener failed")

    # --- following changes -----------------------------------------------------------------------

    def watch(self) -> None:
        """Index each folder source again when its files change, for as long as the service runs (watchdog: inotify,
        FSEvents or ReadDirectoryChangesW). Sources added later are watched from `watch_source`."""
        for source in self.library.sources():
            self.watch_source(source.name)

    def watch_source(self, name: str) -> None:
        try:
            source = self.library.source(name)
            if self._observer is None:
                from watchdog.observers import Observer

                self._observer = Observer()
                self._observer.daemon = True
                self._observer.start()
            folder = source.root if not source.is_file else source.root.parent
            self.unwatch(source.name)
            self._watches[source.name.casefold()] = self._observer.schedule(
                _Changes(self, source.name, source.root), str(folder), recursive=not source.is_file)
        except Exception as exc:  # no inotify watches left, a folder gone: indexing by hand still works
            log.warning("knowledge: cannot follow changes in %s: %s", name, exc)

    def _changed(self, name: str) -> None:
        with self._lock:
            old = self._timers.pop(name, None)
            if old is not None:
                old.cancel()
            timer = threading.Timer(SETTLE_S, lambda: self._settled(name))
            timer.daemon = True
            self._timers[name] = timer
        timer.start()

    def _settled(self, name: str) -> None:
        with self._lock:
            self._timers.pop(name, None)
        if not self._stopping.is_set():
            self.request(name)

    def unwatch(self, name: str) -> None:
        """Stop following a removed source (the observer keeps watching the others)."""
        watch = self._watches.pop(name.casefold(), None)
        if watch is not None and self._observer is not None:
            self._observer.unschedule(watch)

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        with self._lock:
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
            self._observer = None
            self._watches.clear()
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None


class _Changes:
    """A watchdog handler: any change under the source (not its .git folder) asks for an incremental index."""

    def __init__(self, service: IndexingService, name: str, root) -> None:
        self.service, self.name, self.root = service, name, root

    def dispatch(self, event) -> None:
        path = str(getattr(event, "src_path", ""))
        if "/.git/" in path.replace("\\", "/") + "/" or getattr(event, "event_type", "") in ("opened", "closed_no_write"):
            return
        if self.root.is_file() and path != str(self.root) and str(getattr(event, "dest_path", "")) != str(self.root):
            return
        self.service._changed(self.name)
