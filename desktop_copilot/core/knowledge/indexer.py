"""Indexing one source incrementally: walk it, cut the new and changed files into passages, drop the files gone, and
record every file left out with its reason. One bad file never stops the rest."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from desktop_copilot.core.knowledge.library import KnowledgeLibrary, SourceRow
from desktop_copilot.core.knowledge.walk import Seen, walk_source
from desktop_copilot.core.knowledge.reasons import BINARY, PARSER_FAILED, TOO_LARGE, UNREADABLE
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

SNIFF_BYTES = 8192
COMMIT_EVERY_S = 0.25
FLUSH_FILES = 200
"""What was read is written at least this often (seconds, files), in one short transaction, so progress shows and a
search in another thread is never kept waiting long."""


@dataclass(slots=True)
class Progress:
    """Where indexing a source is: `done` of `total` files to read (unchanged ones are not counted)."""

    source: str
    done: int = 0
    total: int = 0
    path: str = ""
    """The file being read now."""
    finished: bool = False
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)
    """(path, reason) of the files left out by this run."""
    stopped: bool = False


ProgressCallback = Callable[[Progress], None]


def passage_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _changes(library: KnowledgeLibrary, source: SourceRow, full: bool) -> tuple[list[tuple[Seen, bool]], list[str], int]:
    """(the files to read, each with whether the index knew it; the paths gone; how many files the walk found). The
    walk goes into a temporary table and SQL finds the differences, so a large unchanged source costs no Python object
    per file (10,000 of them left the window ~5 MB larger, the heap too fragmented to give it back)."""
    db = library.db
    db.execute("CREATE TEMP TABLE IF NOT EXISTS walked(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, skip TEXT)")
    try:
        db.execute("BEGIN")
        db.executemany("INSERT OR REPLACE INTO temp.walked VALUES (?, ?, ?, ?)",
                       ((s.path, s.size, s.mtime_ns, s.skip_reason) for s in walk_source(source.root)))
        db.execute("COMMIT")
        to_read = [(Seen(*row[:4]), bool(row[4])) for row in db.execute(
            "SELECT w.path, w.size, w.mtime_ns, w.skip, f.id IS NOT NULL FROM temp.walked w"
            " LEFT JOIN files f ON f.source_id = ? AND f.path = w.path"
            " WHERE ? OR f.id IS NULL OR f.size != w.size OR f.mtime_ns != w.mtime_ns ORDER BY w.path", (source.id, full))]
        gone = [row[0] for row in db.execute(
            "SELECT path FROM files f WHERE source_id = ? AND NOT EXISTS (SELECT 1 FROM temp.walked w WHERE w.path = f.path)",
            (source.id,))]
        walked = db.execute("SELECT count(*) FROM temp.walked").fetchone()[0]
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")
        db.execute("DELETE FROM temp.walked")
    return to_read, gone, walked


def _read(source: SourceRow, file: Path, seen: Seen) -> tuple[str, str, str, list[tuple]]:
    """(kind, status, reason, passages) for one file (`file`, found as `seen`); never raises."""
    from desktop_copilot.core.knowledge import extract

    if seen.skip_reason:
        return "", "skipped", seen.skip_reason, []
    if seen.size > source.max_file_mb * 1024 * 1024:
        return "", "skipped", TOO_LARGE.format(cap=source.max_file_mb, size=f"{seen.size / 1024 / 1024:.0f}"), []
    kind = extract.kind_of(file)
    try:
        if kind is None or kind in ("text", "markdown", "code"):
            with open(file, "rb") as handle:
                sample = handle.read(SNIFF_BYTES)
            if extract.looks_binary(sample):
                return kind or "", "skipped", BINARY, []
            kind = kind or "text"
        passages = extract.extract_passages(file, kind)
    except extract.UnreadableFile as exc:
        return kind or "", "failed", str(exc), []
    except OSError as exc:
        return kind or "", "failed", UNREADABLE.format(why=exc.strerror or exc), []
    except Exception as exc:  # a parser's own bug or a file it chokes on: that file fails, indexing goes on
        log.warning("knowledge: %s could not be cut into passages", file, exc_info=True)
        return kind or "", "failed", PARSER_FAILED.format(error=type(exc).__name__), []
    rows = [(p.start_line, p.end_line, p.page, p.heading, p.text, passage_hash(p.text)) for p in passages if p.text.strip()]
    return kind, "indexed", "", rows


def index_source(library: KnowledgeLibrary, source: SourceRow, *, full: bool = False,
                 on_progress: ProgressCallback | None = None, should_stop: Callable[[], bool] = lambda: False) -> Progress:
    """Bring the index of `source` up to date with its files (every file again with `full`)."""
    progress = Progress(source.name)
    report = on_progress or (lambda p: None)
    try:
        to_read, gone, walked = _changes(library, source, full)
    except OSError as exc:
        progress.problems.append(("", tr("the source cannot be read: {error}").format(error=exc.strerror or exc)))
        progress.finished = True
        report(progress)
        return progress
    progress.total, progress.unchanged = len(to_read), walked - len(to_read)
    report(progress)

    with library.transaction() as db:
        for path in gone:
            library.forget_file(db, source.id, path)
            progress.removed += 1
    pending: list[tuple[Seen, tuple[str, str, str, list[tuple]]]] = []
    flushed = time.monotonic()
    single = source.is_file  # a single-file source: its one file is the source's own path

    def flush() -> None:
        with library.transaction() as db:
            for item, (kind, status, reason, rows) in pending:
                library.write_file(db, source.id, item.path, kind=kind, size=item.size, mtime_ns=item.mtime_ns,
                                   status=status, reason=reason, passages=rows)
        pending.clear()
        report(progress)

    for item, known in to_read:
        if should_stop():
            progress.stopped = True
            break
        progress.path = item.path
        read = _read(source, source.root if single else source.root / item.path, item)  # the slow part holds no lock
        pending.append((item, read))
        if read[1] != "indexed":
            progress.problems.append((item.path, read[2]))
        if known:
            progress.updated += 1
        else:
            progress.added += 1
        progress.done += 1
        if time.monotonic() - flushed > COMMIT_EVERY_S or len(pending) >= FLUSH_FILES:
            flush()
            flushed = time.monotonic()
    flush()
    if not progress.stopped:
        library.mark_indexed(source.id)
    progress.finished, progress.path = True, ""
    report(progress)
    return progress
