"""Embeddings for the knowledge index: passages not yet embedded by the configured model are embedded in batches and
cached by passage hash (a passage met again in any file costs nothing), then the model's vector matrix is rebuilt;
and the nearest passages to a question, found in that matrix."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_copilot.core.knowledge.library import KnowledgeLibrary
from desktop_copilot.core.words import tr

if TYPE_CHECKING:
    from desktop_copilot.core.knowledge.embeddings import Embedder
    from desktop_copilot.core.knowledge.vectors import VectorMatrix

VECTORS_FOLDER = "knowledge-vectors"
CHUNK = 256
"""Passages embedded, then written, at a time (the Embedder batches and paces the requests within it)."""


@dataclass(slots=True)
class EmbedReport:
    embedded: int = 0
    cached: int = 0
    """Passages whose vector was already known (same text elsewhere, or unchanged)."""
    rows: int = 0
    """Rows of the rebuilt matrix (0: not rebuilt)."""


def vectors_folder(data_dir: Path) -> Path:
    return Path(data_dir) / VECTORS_FOLDER


def _missing(library: KnowledgeLibrary, identity: str) -> list[str]:
    """The hashes of the passages `identity` has not embedded yet (their texts are read a chunk at a time)."""
    return [row[0] for row in library.db.execute(
        "SELECT DISTINCT p.hash FROM passages p WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ? AND v.hash = p.hash)",
        (identity,))]


def _texts(library: KnowledgeLibrary, hashes: list[str]) -> list[tuple[str, str]]:
    marks = ",".join("?" * len(hashes))
    found = dict(library.db.execute(f"SELECT hash, min(text) FROM passages WHERE hash IN ({marks}) GROUP BY hash", hashes))
    return [(digest, found[digest]) for digest in hashes if digest in found]


async def embed_pending(library: KnowledgeLibrary, embedder: Embedder, folder: Path,
                        progress: Callable[[int, int], None] = lambda done, total: None) -> EmbedReport:
    """Embed what is missing, then rebuild the matrix when it differs from the index. EmbeddingError (in words) when
    the model cannot be reached; what was embedded before that is kept in the cache."""
    from desktop_copilot.core.knowledge.vectors import VectorMatrix, from_blob, to_blob

    identity = embedder.model.identity
    report = EmbedReport()
    missing = await asyncio.to_thread(_missing, library, identity)
    total = await asyncio.to_thread(lambda: library.db.execute("SELECT count(DISTINCT hash) FROM passages").fetchone()[0])
    report.cached = total - len(missing)
    for start in range(0, len(missing), CHUNK):
        chunk = await asyncio.to_thread(_texts, library, missing[start:start + CHUNK])  # gone since: left out
        vectors = await embedder.embed([text for _, text in chunk])

        def write(chunk=chunk, vectors=vectors) -> None:
            with library.transaction() as db:
                db.executemany("INSERT OR REPLACE INTO vectors(model, hash, vector) VALUES (?, ?, ?)",
                               [(identity, digest, to_blob(vector)) for (digest, _), vector in zip(chunk, vectors)])

        await asyncio.to_thread(write)
        report.embedded += len(chunk)
        progress(report.embedded, len(missing))
    del missing

    def rebuild() -> int:
        """The matrix written again when its rows differ from the index's; the vectors streamed from the database."""
        join = "FROM passages p JOIN vectors v ON v.model = ? AND v.hash = p.hash"
        ids = [row[0] for row in library.db.execute(f"SELECT p.id {join} ORDER BY p.id", (identity,))]
        current = VectorMatrix.open(folder, identity)
        unchanged = current is not None and report.embedded == 0 and current.ids.tolist() == ids
        if current is not None:
            current.close()
        if unchanged:
            return 0
        rows = library.db.execute(f"SELECT v.vector {join} ORDER BY p.id", (identity,))
        VectorMatrix.build(folder, identity, ids, (from_blob(row[0]) for row in rows)).close()
        return len(ids)

    report.rows = await asyncio.to_thread(rebuild)
    return report


class EmbeddingNearest:
    """The embedding side of a search (core/knowledge/search.py NearestPassages): the question embedded as a query,
    then the nearest rows of the model's matrix, reopened when a newer one was built."""

    def __init__(self, embedder: Embedder, folder: Path) -> None:
        self.embedder = embedder
        self.folder = Path(folder)
        self._matrix: VectorMatrix | None = None

    def _current(self) -> VectorMatrix | None:
        from desktop_copilot.core.knowledge.vectors import VectorMatrix

        newest = VectorMatrix.open(self.folder, self.embedder.model.identity)
        if newest is None:
            return self._matrix
        if self._matrix is not None and self._matrix.path == newest.path:
            newest.close()
            return self._matrix
        if self._matrix is not None:
            self._matrix.close()
        self._matrix = newest
        return newest

    async def nearest(self, question: str, allowed: Collection[int] | None, limit: int) -> list[tuple[int, float]]:
        from desktop_copilot.core.knowledge.embeddings import EmbeddingError

        matrix = await asyncio.to_thread(self._current)
        if matrix is None or len(matrix) == 0:
            raise EmbeddingError(tr("the passages are not embedded with {model} yet").format(model=self.embedder.model.model))
        (vector,) = await self.embedder.embed([question], for_query=True)
        return await asyncio.to_thread(matrix.search, vector, limit, allowed=allowed)

    def close(self) -> None:
        if self._matrix is not None:
            self._matrix.close()
            self._matrix = None
