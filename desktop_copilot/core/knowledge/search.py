"""Searching the knowledge sources: BM25 over FTS5 always, fused by reciprocal rank with the nearest passages by
embedding when an embedding model is configured; embeddings that fail fall back to BM25 and say so."""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from desktop_copilot.core.knowledge.library import KnowledgeError, KnowledgeLibrary, PassageRow
from desktop_copilot.core.knowledge.query import bm25_query, fuse
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)

CANDIDATES = 50
"""How many passages each ranking hands to the fusion."""
PER_FILE = 3
"""At most this many passages of one file in a result, so a long file does not crowd out the others."""
MAX_TOP = 20


class NearestPassages(Protocol):
    """The embedding side of a search (core/knowledge/vector_side.py)."""

    async def nearest(self, question: str, allowed: Collection[int] | None, limit: int) -> list[tuple[int, float]]:
        """(passage id, cosine) best first; raises when the embedding model cannot be reached."""


@dataclass(frozen=True, slots=True)
class Hit:
    passage: PassageRow
    score: float
    """BM25 (higher is better) without embeddings; the fused reciprocal-rank score with them."""
    bm25_rank: int | None = None
    vector_rank: int | None = None


@dataclass(slots=True)
class SearchResult:
    question: str
    hits: list[Hit] = field(default_factory=list)
    hybrid: bool = False
    """Embeddings took part."""
    note: str = ""
    """Why embeddings did not take part although configured (unreachable, …)."""


def bm25_ranking(library: KnowledgeLibrary, question: str, source_ids: Sequence[int] | None,
                 limit: int = CANDIDATES) -> list[tuple[int, float]]:
    """(passage id, BM25 score, higher better) of the passages of `source_ids` (None: every passage; ranked by the FTS
    table alone, twice as fast as joined to the passages a filter needs), best first."""
    match = bm25_query(question)
    if match is None or source_ids == []:
        return []
    if source_ids is None:
        rows = library.db.execute("SELECT rowid, bm25(passages_fts) AS rank FROM passages_fts WHERE passages_fts MATCH ?"
                                  " ORDER BY rank LIMIT ?", (match, limit)).fetchall()
    else:
        marks = ",".join("?" * len(source_ids))
        rows = library.db.execute(
            "SELECT fts.rowid, bm25(passages_fts) AS rank FROM passages_fts fts JOIN passages p ON p.id = fts.rowid"
            f" JOIN files f ON f.id = p.file_id WHERE passages_fts MATCH ? AND f.source_id IN ({marks}) ORDER BY rank LIMIT ?",
            (match, *source_ids, limit)).fetchall()
    return [(row[0], -row[1]) for row in rows]


def chosen_sources(library: KnowledgeLibrary, names: Collection[str] | None) -> tuple[list[int], bool]:
    """(the ids of the enabled sources, of those named when given; whether that is every source there is).
    KnowledgeError for a name no switched-on source has."""
    every = library.sources()
    enabled = [s for s in every if s.enabled]
    if names is None:
        return [s.id for s in enabled], len(enabled) == len(every)
    wanted = {n.strip().casefold() for n in names}
    found = [s.id for s in enabled if s.name.casefold() in wanted]
    if not found:
        known = ", ".join(s.name for s in enabled) or tr("none is switched on")
        raise KnowledgeError((tr("No switched-on knowledge source is called {names} (sources: {known}).")
                              .format(names=', '.join(sorted(names)), known=known)))
    return found, len(found) == len(every)


def _diverse(ranked: list[tuple[int, float]], rows: dict[int, PassageRow], top: int) -> list[tuple[int, float]]:
    per_file: dict[tuple[str, str], int] = {}
    kept = []
    for passage_id, score in ranked:
        row = rows.get(passage_id)
        if row is None:
            continue
        key = (row.source, row.path)
        if per_file.get(key, 0) >= PER_FILE:
            continue
        per_file[key] = per_file.get(key, 0) + 1
        kept.append((passage_id, score))
        if len(kept) >= top:
            break
    return kept


async def search_knowledge(library: KnowledgeLibrary, question: str, *, sources: Collection[str] | None = None,
                           top_k: int = 5, nearest: NearestPassages | None = None) -> SearchResult:
    """The passages that best answer `question`. Runs its SQLite work in a thread, so the event loop goes on."""
    import asyncio

    top_k = max(1, min(int(top_k), MAX_TOP))
    result = SearchResult(question)
    source_ids, every_source = await asyncio.to_thread(chosen_sources, library, sources)
    bm25 = await asyncio.to_thread(bm25_ranking, library, question, None if every_source else source_ids)
    vector: list[tuple[int, float]] = []
    if nearest is not None:
        try:
            allowed = None if every_source else await asyncio.to_thread(library.passage_ids, source_ids)
            vector = await nearest.nearest(question, allowed, CANDIDATES)
            result.hybrid = True
        except Exception as exc:  # offline, a wrong key, a model gone: BM25 still answers
            log.info("knowledge: embeddings not used for this search: %s", exc)
            result.note = tr("Searched by words only: {exc}").format(exc=exc)
    if result.hybrid:
        bm25_ids, vector_ids = [i for i, _ in bm25], [i for i, _ in vector]
        ranked = fuse([bm25_ids, vector_ids])
        bm25_at = {pid: n for n, pid in enumerate(bm25_ids, start=1)}
        vector_at = {pid: n for n, pid in enumerate(vector_ids, start=1)}
    else:
        ranked, bm25_at, vector_at = bm25, {pid: n for n, (pid, _) in enumerate(bm25, start=1)}, {}
    rows = await asyncio.to_thread(library.passages_by_id, [pid for pid, _ in ranked])
    result.hits = [Hit(rows[pid], score, bm25_at.get(pid), vector_at.get(pid)) for pid, score in _diverse(ranked, rows, top_k)]
    return result
