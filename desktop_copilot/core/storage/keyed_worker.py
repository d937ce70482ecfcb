"""KeyedWorker: a queue of jobs by key (the newest job of a key replaces a queued one) done in order on a thread of
its own with its own SQLite connection; the thread starts when work arrives and ends when the queue is empty. A job
that fails on the disk (full, read-only) is held, with every job queued behind it, and they are tried again later, in
their order, until they are written."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from desktop_copilot.core.storage.health import StorageHealth, storage_problem

log = logging.getLogger(__name__)

RETRY_INTERVAL = 5.0
"""Seconds between tries of the jobs held by a disk problem (a new job, `retry` and `close` try them at once)."""


class KeyedWorker:
    """Subclasses do one job in `_handle(db, key, job)`; a job that fails on the disk is held with the jobs queued
    behind it (its thread keeps trying them every `retry_interval` seconds, and at once when new work arrives, `retry`
    or `close` is called) and `health` says so; a job that fails otherwise is logged and dropped (what it was to write
    must be recoverable without it, e.g. from a row the caller wrote)."""

    thread_name = "store-worker"
    delay = 0.0
    """Seconds a thread started for new work waits before starting on it (more work may join it; the caller's
    own work at that moment, e.g. the GUI's when a reply finishes, is not competed with), unless a caller
    waits for the queue or closes it."""
    retry_interval = RETRY_INTERVAL

    def __init__(self, connect: Callable[[], sqlite3.Connection], health: StorageHealth | None = None) -> None:
        self._connect = connect
        self.health = health or StorageHealth()
        self._jobs: OrderedDict[Hashable, Any] = OrderedDict()
        self._held: OrderedDict[Hashable, Any] = OrderedDict()
        """Jobs a disk problem stopped, in their order, tried again before newer ones."""
        self._state = threading.Condition()
        self._thread: threading.Thread | None = None
        self._last_thread: threading.Thread | None = None
        """The latest thread started (close joins it: the current one may have let go of the queue but not ended)."""
        self._working = False
        self._current: tuple[Hashable, Any] | None = None
        """The job being done (key, job)."""
        self._closed = False
        self._hurry = False
        self.done = 0
        """Jobs done so far (for tests and benchmarks)."""
        self.thread_ids: set[int] = set()
        """Threads the jobs ran on (for tests: never the caller's)."""

    def submit(self, key: Hashable, job: Any) -> bool:
        """Queue `job` (replacing a queued or held job of `key`); False once closed (nothing is done)."""
        with self._state:
            if self._closed:
                return False
            self._jobs.pop(key, None)
            self._held.pop(key, None)
            self._jobs[key] = job
            if self._thread is None:
                self._thread = self._last_thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
                self._thread.start()
            else:
                self._state.notify_all()  # a thread waiting to try held jobs again tries them now, with this one
            return True

    def queued(self, key: Hashable) -> bool:
        with self._state:
            return key in self._jobs

    def idle(self) -> bool:
        with self._state:
            return not self._jobs and not self._working

    def held(self) -> list[Any]:
        """The jobs waiting for the disk, oldest first."""
        with self._state:
            return list(self._held.values())

    def pending(self) -> list[Any]:
        """Every job not done yet (held, being done, queued), oldest first; a key's newest job comes last."""
        with self._state:
            if not self._held and not self._jobs and self._current is None:
                return []
            current = [self._current[1]] if self._current is not None else []
            return [*self._held.values(), *current, *self._jobs.values()]

    def discard(self, keep: Callable[[Hashable, Any], bool]) -> None:
        """Forget the queued or held jobs for which `keep(key, job)` is false (what they wrote was deleted)."""
        with self._state:
            for jobs in (self._jobs, self._held):
                for key in [key for key, job in jobs.items() if not keep(key, job)]:
                    del jobs[key]

    def wait(self, timeout: float | None = None) -> bool:
        """Until every job submitted is done or held (True), or `timeout` seconds passed (False)."""
        if threading.current_thread() is self._thread:
            return True  # a job waiting for its own queue would wait for ever
        with self._state:
            if self._thread is not None:
                self._hurry = True
                self._state.notify_all()
            return self._state.wait_for(lambda: not self._jobs and not self._working, timeout)

    def retry(self, timeout: float | None = None) -> bool:
        """Try the held jobs again now (and wait for them); True when none is held any more. A try already under
        way when this is called (on the disk as it was) is followed by one more."""
        for _round in range(2):
            with self._state:
                if self._held and not self._closed:
                    self._requeue_held()
                    if self._thread is None:
                        self._thread = self._last_thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
                        self._thread.start()
            self.wait(timeout)
            with self._state:
                if not self._held:
                    return True
        return False

    def close(self, timeout: float = 10.0) -> bool:
        """Do what is queued, and try what is held once more (for at most `timeout` seconds each), then accept
        nothing more; True when all was written. What a disk problem still holds is logged as lost."""
        done = self.wait(timeout) and self.retry(timeout)
        with self._state:
            self._closed = True
            lost = len(self._held)
            self._jobs.clear()
            self._held.clear()
            self._state.notify_all()
            thread = self._last_thread
        if thread is not None:
            thread.join(timeout)
        if lost:
            log.error("%s: %d writes could not be done before closing (%s)", self.thread_name, lost, self.health.problem)
        return done

    def _requeue_held(self) -> None:
        """With the lock held: the held jobs go back to the front of the queue."""
        self._held.update(self._jobs)
        self._jobs, self._held = self._held, OrderedDict()
        self._hurry = True
        self._state.notify_all()

    def _hold_rest(self) -> None:
        """With the lock held, after a job failed on the disk: the queued jobs join the held ones, in their order, so
        none is done before a job held ahead of it. Tried on, one of them could be written before it if the disk came
        back in between (the next connection opens afresh), e.g. a message's row before its conversation's header
        (a FOREIGN KEY failure, and the row dropped)."""
        if not self._closed:
            self._held.update(self._jobs)
            self._jobs.clear()

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            with self._state:
                self._state.wait_for(lambda: self._hurry, self.delay)
            while True:
                with self._state:
                    if not self._jobs and self._held and not self._closed:  # wait for the disk, then try again
                        self._working = False
                        self._state.notify_all()
                        self._state.wait_for(lambda: self._jobs or self._closed or not self._held, self.retry_interval)
                        if self._held and not self._closed:
                            self._requeue_held()
                    if not self._jobs:  # ends in the same hold of the lock: a job submitted later starts a new thread
                        self._end()
                        return
                    key, job = self._jobs.popitem(last=False)
                    self._working, self._current = True, (key, job)
                try:
                    db = db or self._connect()
                    self._handle(db, key, job)
                    self._current = None
                    self.done += 1
                    self.thread_ids.add(threading.get_ident())
                    if not self._held:
                        self.health.succeeded(self.thread_name)
                except Exception as exc:
                    problem = storage_problem(exc)
                    with self._state:
                        self._current = None
                        if problem is not None and key not in self._jobs and not self._closed:  # a newer job replaces it
                            self._held[key] = job
                        if problem is not None:  # the jobs queued behind it wait behind it, untried (see `_hold_rest`)
                            self._hold_rest()
                    if problem is None:
                        log.exception("%s: a job failed", self.thread_name)
                        continue
                    self.health.failed(self.thread_name, problem)
                    if db is not None:  # the next try opens the file afresh (its limits and permissions may change)
                        db.close()
                        db = None
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


def rollback(db: sqlite3.Connection) -> None:
    """ROLLBACK when a transaction is still open (SQLite rolls back by itself after some errors, e.g. a full disk:
    a ROLLBACK then would raise and hide the error that matters)."""
    if db.in_transaction:
        db.execute("ROLLBACK")
