"""The knowledge database (knowledge.sqlite3 beside the conversations): sources, their files with each one's state,
the passages cut from them, the FTS5 index over the passages and the embedding cache."""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from desktop_copilot.core.config.paths import KNOWLEDGE_FILE as FILE_NAME
from desktop_copilot.core.storage.search import segment
from desktop_copilot.core.words import tr

SCHEMA_VERSION = 1
NAME_PATTERN = re.compile(r"^[^\s/\\][^/\\]{0,63}$")
DEFAULT_MAX_FILE_MB = 20
CACHE_KB = 512
"""SQLite's page cache per connection (its default is 2 MB): the index is read in short bursts, the OS caches the file."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    path TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1,
    max_file_mb INTEGER NOT NULL DEFAULT 20,
    added_at REAL NOT NULL,
    indexed_at REAL
);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    kind TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    passages INTEGER NOT NULL DEFAULT 0,
    UNIQUE(source_id, path)
);
CREATE TABLE IF NOT EXISTS passages(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    start_line INTEGER,
    end_line INTEGER,
    page INTEGER,
    heading TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_by_file ON passages(file_id, ordinal);
CREATE INDEX IF NOT EXISTS passages_by_hash ON passages(hash);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(body, content='', tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS vectors(
    model TEXT NOT NULL,
    hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY(model, hash)
) WITHOUT ROWID;
"""


class KnowledgeError(ValueError):
    """A source cannot be added, found or changed as asked; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class SourceRow:
    id: int
    name: str
    path: str
    enabled: bool
    max_file_mb: int
    added_at: float
    indexed_at: float | None
    files: int = 0
    """Files indexed (with at least one passage or none), not counting skipped and failed ones."""
    passages: int = 0
    skipped: int = 0
    """Files left out with a reason: too large, binary, unreadable or damaged."""

    @property
    def root(self) -> Path:
        return Path(self.path)

    @property
    def is_file(self) -> bool:
        """A single file added as a source (its `files` row path is its own name)."""
        return self.root.is_file()


@dataclass(frozen=True, slots=True)
class FileRow:
    id: int
    path: str
    kind: str
    size: int
    mtime_ns: int
    status: str
    """"indexed", "skipped" (with `reason`: too large, binary, may hold secrets) or "failed" (unreadable, damaged)."""
    reason: str
    passages: int


@dataclass(frozen=True, slots=True)
class PassageRow:
    id: int
    source: str
    source_path: str
    path: str
    """The file's path inside its source, with forward slashes."""
    kind: str
    ordinal: int
    start_line: int | None
    end_line: int | None
    page: int | None
    heading: str
    text: str
    hash: str

    @property
    def location(self) -> str:
        """"lines 10–24", "page 3", "paragraphs 2–5": where the passage is in its file."""
        from desktop_copilot.core.knowledge.extract import Passage, location_label

        return location_label(self.kind, Passage(self.text, self.start_line, self.end_line, self.page, self.heading))

    @property
    def file(self) -> Path:
        """The file on disk (a single-file source's path is the source itself)."""
        root = Path(self.source_path)
        return root if root.is_file() else root / self.path


def fts_body(path: str, heading: str, text: str) -> str:
    """What the FTS index holds for a passage: its file's path and heading (so names find files) and its text, with
    CJK characters one token each (core/storage/search.py)."""
    return segment(f"{path}\n{heading}\n{text}")


def valid_name(name: str) -> str:
    name = " ".join(name.split())
    if not NAME_PATTERN.match(name):
        raise KnowledgeError(tr("“{name}” cannot name a source: use 1–64 characters, without slashes.").format(name=name))
    return name


class KnowledgeLibrary:
    """One SQLite file, in WAL mode so the indexer's writes never block a search. Safe to share between threads: each
    thread gets its own connection."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self.db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA}; PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")

    @classmethod
    def in_folder(cls, data_dir: Path | str) -> KnowledgeLibrary:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        return cls(Path(data_dir) / FILE_NAME)

    @property
    def db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
            for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=10000", f"cache_size=-{CACHE_KB}"):
                db.execute(f"PRAGMA {pragma}")
            self._local.db = db
            with self._lock:
                self._connections.append(db)
        return db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close_thread(self) -> None:
        """Close the calling thread's connection (a worker thread that ends)."""
        db = getattr(self._local, "db", None)
        if db is not None:
            with self._lock:
                if db in self._connections:
                    self._connections.remove(db)
            db.close()
            self._local.db = None

    def close(self) -> None:
        with self._lock:
            for db in self._connections:
                try:
                    db.close()
                except sqlite3.ProgrammingError:  # made in another thread that is gone
                    pass
            self._connections.clear()
        self._local = threading.local()

    # --- sources -------------------------------------------------------------------------------

    def add_source(self, path: Path | str, name: str | None = None, *, max_file_mb: int = DEFAULT_MAX_FILE_MB) -> SourceRow:
        """A folder or a single file as a new source (not indexed yet). KnowledgeError for a path that is not there,
        a name already used, or a path already added."""
        root = Path(path).expanduser()
        try:
            root = root.resolve(strict=True)
        except (OSError, RuntimeError):
            raise KnowledgeError(tr("{path} does not exist: give a folder or a file that is there.").format(path=path)) from None
        if not (root.is_dir() or root.is_file()):
            raise KnowledgeError(tr("{root} is neither a folder nor a file.").format(root=root))
        name = valid_name(name or root.name or str(root))
        for source in self.sources():
            if source.name.casefold() == name.casefold():
                raise KnowledgeError(tr("A source is already called “{name}”: choose another name (--name).").format(name=source.name))
            if Path(source.path) == root:
                raise KnowledgeError(tr("{root} is already the source “{name}”.").format(root=root, name=source.name))
        with self.transaction() as db:
            db.execute("INSERT INTO sources(name, path, max_file_mb, added_at) VALUES (?, ?, ?, ?)",
                       (name, str(root), max_file_mb, time.time()))
        return self.source(name)

    def sources(self) -> list[SourceRow]:
        rows = self.db.execute(
            "SELECT s.id, s.name, s.path, s.enabled, s.max_file_mb, s.added_at, s.indexed_at,"
            " COALESCE(SUM(f.status = 'indexed'), 0), COALESCE(SUM(f.passages), 0), COALESCE(SUM(f.status != 'indexed'), 0)"
            " FROM sources s LEFT JOIN files f ON f.source_id = s.id GROUP BY s.id ORDER BY s.name COLLATE NOCASE"
        ).fetchall()
        return [SourceRow(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6], r[7], r[8], r[9]) for r in rows]

    def source(self, name: str) -> SourceRow:
        sources = self.sources()
        for source in sources:
            if source.name.casefold() == name.strip().casefold():
                return source
        known = ", ".join(s.name for s in sources) or tr("none yet")
        raise KnowledgeError(tr("No knowledge source is called “{name}” (sources: {known}).").format(name=name, known=known))

    def has_enabled_sources(self) -> bool:
        return self.db.execute("SELECT 1 FROM sources WHERE enabled LIMIT 1").fetchone() is not None

    def set_enabled(self, name: str, enabled: bool) -> None:
        source = self.source(name)
        with self.transaction() as db:
            db.execute("UPDATE sources SET enabled = ? WHERE id = ?", (int(enabled), source.id))

    def remove_source(self, name: str) -> SourceRow:
        """The source, its files and passages gone from the index (the files on disk are not touched)."""
        source = self.source(name)
        with self.transaction() as db:
            self._delete_passages(db, "f.source_id = ?", (source.id,))
            db.execute("DELETE FROM sources WHERE id = ?", (source.id,))
        return source

    def mark_indexed(self, source_id: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE sources SET indexed_at = ? WHERE id = ?", (time.time(), source_id))

    # --- files and passages ----------------------------------------------------------------------

    _FILE_COLUMNS = "SELECT id, path, kind, size, mtime_ns, status, reason, passages FROM files WHERE source_id = ?"

    def files(self, source_id: int) -> dict[str, FileRow]:
        return {r[1]: FileRow(*r) for r in self.db.execute(self._FILE_COLUMNS, (source_id,))}

    def problems(self, source_id: int) -> list[FileRow]:
        """The files left out, with their reasons, by path."""
        return [FileRow(*r) for r in self.db.execute(f"{self._FILE_COLUMNS} AND status != 'indexed' ORDER BY path", (source_id,))]

    def write_file(self, db: sqlite3.Connection, source_id: int, path: str, *, kind: str, size: int, mtime_ns: int,
                   status: str, reason: str = "", passages: Iterable[tuple] = ()) -> int:
        """Replace what the index holds of one file (inside the caller's transaction). `passages`: (start_line,
        end_line, page, heading, text, hash) in order. Returns how many passages it now has."""
        old = db.execute("SELECT id FROM files WHERE source_id = ? AND path = ?", (source_id, path)).fetchone()
        if old is not None:
            self._delete_passages(db, "p.file_id = ?", (old[0],))
            db.execute("UPDATE files SET kind = ?, size = ?, mtime_ns = ?, status = ?, reason = ?, passages = 0 WHERE id = ?",
                       (kind, size, mtime_ns, status, reason, old[0]))
            file_id = old[0]
        else:
            file_id = db.execute("INSERT INTO files(source_id, path, kind, size, mtime_ns, status, reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 (source_id, path, kind, size, mtime_ns, status, reason)).lastrowid
        count = 0
        for ordinal, (start, end, page, heading, text, digest) in enumerate(passages):
            passage_id = db.execute(
                "INSERT INTO passages(file_id, ordinal, start_line, end_line, page, heading, text, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (file_id, ordinal, start, end, page, heading, text, digest)).lastrowid
            db.execute("INSERT INTO passages_fts(rowid, body) VALUES (?, ?)", (passage_id, fts_body(path, heading, text)))
            count += 1
        if count:
            db.execute("UPDATE files SET passages = ? WHERE id = ?", (count, file_id))
        return count

    def forget_file(self, db: sqlite3.Connection, source_id: int, path: str) -> None:
        """A file gone from disk (or now ignored): its row and passages removed (inside the caller's transaction)."""
        self._delete_passages(db, "f.source_id = ? AND f.path = ?", (source_id, path))
        db.execute("DELETE FROM files WHERE source_id = ? AND path = ?", (source_id, path))

    @staticmethod
    def _delete_passages(db: sqlite3.Connection, where: str, params: tuple) -> None:
        """The passages `where` selects (over passages p and their files f) deleted. A contentless FTS5 table forgets a
        row only when given the very text it indexed."""
        rows = db.execute(f"SELECT p.id, f.path, p.heading, p.text FROM passages p JOIN files f ON f.id = p.file_id WHERE {where}",
                          params).fetchall()
        db.executemany("INSERT INTO passages_fts(passages_fts, rowid, body) VALUES ('delete', ?, ?)",
                       [(pid, fts_body(path, heading, text)) for pid, path, heading, text in rows])
        if rows:
            db.executemany("DELETE FROM passages WHERE id = ?", [(row[0],) for row in rows])

    _PASSAGE_COLUMNS = ("SELECT p.id, s.name, s.path, f.path, f.kind, p.ordinal, p.start_line, p.end_line, p.page, p.heading,"
                        " p.text, p.hash FROM passages p JOIN files f ON f.id = p.file_id JOIN sources s ON s.id = f.source_id")

    def passages_by_id(self, ids: Iterable[int]) -> dict[int, PassageRow]:
        ids = list(ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(f"{self._PASSAGE_COLUMNS} WHERE p.id IN ({marks})", ids).fetchall()
        return {r[0]: PassageRow(*r) for r in rows}

    def file_passages(self, source: str, path: str) -> list[PassageRow]:
        """Every passage of one file, in order (the viewer shows them); [] when the file is no longer indexed."""
        rows = self.db.execute(f"{self._PASSAGE_COLUMNS} WHERE s.name = ? COLLATE NOCASE AND f.path = ? ORDER BY p.ordinal",
                               (source, path)).fetchall()
        return [PassageRow(*r) for r in rows]

    def passage_ids(self, source_ids: Sequence[int]) -> list[int]:
        """The ids of every passage of the sources `source_ids`."""
        marks = ",".join("?" * len(source_ids))
        return [r[0] for r in self.db.execute(
            f"SELECT p.id FROM passages p JOIN files f ON f.id = p.file_id WHERE f.source_id IN ({marks})", list(source_ids))]

    def counts(self) -> tuple[int, int]:
        """(files indexed, passages) over every source."""
        row = self.db.execute("SELECT COALESCE(SUM(status = 'indexed'), 0), COALESCE(SUM(passages), 0) FROM files").fetchone()
        return row[0], row[1]
