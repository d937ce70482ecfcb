"""KeyedWorker: a queue of jobs by key (the newest job of a key replaces a queued one) done in order on a thread of
its own with its own SQLite connection; the thread starts when work arrives and ends when the queue is empty."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

log = logging.getLogger(__name__)


class KeyedWorker:
    """Subclasses do one job in `_handle(db, key, job)`; a job that fails is logged and dropped (what it was to
    write must be recoverable without it, e.g. from a row the caller wrote)."""

    thread_name = "store-worker"
    delay = 0.0
    """Seconds a thread started for new work waits before starting on it (more work may join it; the caller's
    own work at that moment, e.g. the GUI's when a reply finishes, is not competed with), unless a caller
    waits for the queue or closes it."""

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self._jobs: OrderedDict[Hashable, Any] = OrderedDict()
        self._state = threading.Condition()
        self._thread: threading.Thread | None = None
        self._last_thread: threading.Thread | None = None
        """The latest thread started (close joins it: the current one may have let go of the queue but not ended)."""
        self._working = False
        self._closed = False
        self._hurry = False
        self.done = 0
        """Jobs done so far (for tests and benchmarks)."""
        self.thread_ids: set[int] = set()
        """Threads the jobs ran on (for tests: never the caller's)."""

    def submit(self, key: Hashable, job: Any) -> bool:
        """Queue `job` (replacing a queued job of `key`); False once closed (nothing is done)."""
        with self._state:
            if self._closed:
                return False
            self._jobs.pop(key, None)
            self._jobs[key] = job
            if self._thread is None:
                self._thread = self._last_thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
                self._thread.start()
            return True

    def queued(self, key: Hashable) -> bool:
        with self._state:
            return key in self._jobs

    def idle(self) -> bool:
        with self._state:
            return not self._jobs and not self._working

    def wait(self, timeout: float | None = None) -> bool:
        """Until every job submitted is done (True), or `timeout` seconds passed (False)."""
        if threading.current_thread() is self._thread:
            return True  # a job waiting for its own queue would wait for ever
        with self._state:
            if self._thread is not None:
                self._hurry = True
                self._state.notify_all()
            return self._state.wait_for(lambda: not self._jobs and not self._working, timeout)

    def close(self, timeout: float = 10.0) -> bool:
        """Do what is queued (for at most `timeout` seconds), then accept nothing more; True when all was done."""
        done = self.wait(timeout)
        with self._state:
            self._closed = True
            self._jobs.clear()
            thread = self._last_thread
        if thread is not None:
            thread.join(timeout)
        return done

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            with self._state:
                self._state.wait_for(lambda: self._hurry, self.delay)
            while True:
                with self._state:
                    if not self._jobs:  # ends in the same hold of the lock: a job submitted later starts a new thread
                        self._end()
                        return
                    key, job = self._jobs.popitem(last=False)
                    self._working = True
                try:
                    db = db or self._connect()
                    self._handle(db, key, job)
                    self.done += 1
                    self.thread_ids.add(threading.get_ident())
                except Exception:
                    log.exception("%s: a job failed", self.thread_name)
        finally:
            if db is not None:
                db.close()
            with self._state:
                if self._thread is threading.current_thread():  # ended by an exception that is not an Exception
                    self._end()

    def _end(self) -> None:
        """With the lock held: this thread is done (a caller waiting for the queue is woken)."""
        self._thread, self._working, self._hurry = None, False, False
        self._state.notify_all()

    def _handle(self, db: sqlite3.Connection, key: Hashable, job: Any) -> None:
        raise NotImplementedError
