"""Recall of the knowledge search on documents that are not ours: the Chinese design seeds (/work/shared/seeds/*.md)
and the English documentation and source of five packages in this virtualenv's site-packages (httpx, markdown_it,
pydantic, mcp, pygments: source files with long docstrings, indexed as "code"; pydantic ships its v1 copy too, so many
answers have a near-twin elsewhere; pygments' ~340 files are mostly lexers full of keywords, distractors for the
others). Each is a source of its own, indexed with `index_source` as the app does.

The questions are in bench/knowledge_questions.json: Chinese ones about the seeds, English ones about the packages
(natural questions and a few bare identifiers), and a few mixed (a Chinese question naming an English library), each
with the files that answer it (found by reading them) and optionally strings of which one must be in the passage.

Printed, for BM25 alone and for hybrid search (BM25 fused by reciprocal rank with the nearest passages by embedding):
recall@1, recall@5 and MRR@10 by file (a hit in any answering file counts), recall@5 by passage (the hit must also
hold one of the strings), per language and overall; then every question whose answer was not first, with what came
first and where the answer was.

The embeddings come from the loopback `EmbeddingServer` (tests/support/embedding_server.py): its vectors are a hashed
bag of words (two signed buckets per word), not a language model. The hybrid figures therefore measure the plumbing
(the embedding pass, the matrix, the fusion), not semantic quality; a real embedding model would rank differently.

    python bench/knowledge_recall.py                 # ~30 s
    python bench/knowledge_recall.py --top 10 --show-all
    python bench/knowledge_recall.py --bm25-only

Not part of the test run. Figures: notes/knowledge_bench.md (outside the repository)."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTIONS = Path(__file__).with_name("knowledge_questions.json")
SEEDS = Path("/work/shared/seeds")
PACKAGES = ("httpx", "markdown_it", "pydantic", "mcp", "pygments")
EMBED_DIM = 384


@dataclass
class Question:
    lang: str
    q: str
    files: list[str]
    passage: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    file_rank: int | None
    """1-based rank of the first hit in an answering file (None: not in the list)."""
    passage_rank: int | None
    """The same, the hit also holding one of the question's strings (its file alone when it gives none)."""
    first: str
    """What came first: source:path › heading (lines)."""


def package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{name} is not installed in this environment")
    return Path(list(spec.submodule_search_locations)[0])


def load_questions(path: Path) -> list[Question]:
    return [Question(**q) for q in json.loads(path.read_text(encoding="utf-8"))["questions"]]


def judge(question: Question, hits) -> Outcome:
    wanted = set(question.files)
    file_rank = passage_rank = None
    for rank, hit in enumerate(hits, start=1):
        p = hit.passage
        if f"{p.source}:{p.path}" not in wanted:
            continue
        file_rank = file_rank or rank
        body = f"{p.heading}\n{p.text}"
        if passage_rank is None and (not question.passage or any(s in body for s in question.passage)):
            passage_rank = rank
    first = "nothing"
    if hits:
        p = hits[0].passage
        first = f"{p.source}:{p.path}" + (f" › {p.heading}" if p.heading else "") + (f" ({p.location})" if p.location else "")
    return Outcome(file_rank, passage_rank, first)


def figures(outcomes: list[Outcome]) -> tuple[float, float, float, float]:
    """recall@1, recall@5, MRR@len by file; recall@5 by passage."""
    n = len(outcomes) or 1
    r1 = sum(o.file_rank == 1 for o in outcomes) / n
    r5 = sum(o.file_rank is not None and o.file_rank <= 5 for o in outcomes) / n
    mrr = sum(1 / o.file_rank for o in outcomes if o.file_rank) / n
    p5 = sum(o.passage_rank is not None and o.passage_rank <= 5 for o in outcomes) / n
    return r1, r5, mrr, p5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--top", type=int, default=10, help="hits asked for per question (MRR is over these; default 10)")
    parser.add_argument("--bm25-only", action="store_true", help="no embedding pass, no hybrid figures")
    parser.add_argument("--show-all", action="store_true", help="print every question's outcome, not only the misses")
    parser.add_argument("--keep", action="store_true", help="keep the data folder and print where it is")
    args = parser.parse_args()

    from desktop_copilot.core.knowledge.indexer import index_source
    from desktop_copilot.core.knowledge.library import KnowledgeLibrary
    from desktop_copilot.core.knowledge.search import search_knowledge

    load_before = "/".join(f"{x:.2f}" for x in os.getloadavg())
    questions = load_questions(args.questions)
    data_dir = Path(tempfile.mkdtemp(prefix="dc-knowledge-recall-"))
    library = KnowledgeLibrary.in_folder(data_dir)
    folders = {"seeds": SEEDS, **{name: package_folder(name) for name in PACKAGES}}
    print("# bench/knowledge_recall.py\n")
    print(f"{os.cpu_count()} CPUs, load average before {load_before}; {len(questions)} questions from {args.questions.name} "
          f"({', '.join(f'{sum(q.lang == lang for q in questions)} {lang}' for lang in ('zh', 'en', 'mixed'))}); top {args.top} hits each\n")
    print("| source | folder | files indexed | passages | left out | index time s |\n|---|---|---|---|---|---|")
    for name, folder in folders.items():
        source = library.add_source(folder, name)
        started = time.perf_counter()
        index_source(library, source)
        took = time.perf_counter() - started
        row = library.source(name)
        print(f"| {name} | {folder} | {row.files:,} | {row.passages:,} | {row.skipped} | {took:.1f} |")
    files, passages = library.counts()
    print(f"| all | | {files:,} | {passages:,} | | |\n")

    missing = [f for q in questions for f in q.files if not library.file_passages(*f.split(":", 1))]
    if missing:
        raise SystemExit(f"answer files not in the index (a wrong path in {args.questions.name}?): {missing}")

    loop = asyncio.new_event_loop()

    def run(nearest=None) -> list[tuple[Question, Outcome, float]]:
        out = []
        for question in questions:
            started = time.perf_counter()
            result = loop.run_until_complete(search_knowledge(library, question.q, top_k=args.top, nearest=nearest))
            took = (time.perf_counter() - started) * 1e3
            if nearest is not None and not result.hybrid:
                raise SystemExit(f"hybrid search fell back to BM25: {result.note}")
            out.append((question, judge(question, result.hits), took))
        return out

    modes = {"BM25": run()}
    server = None
    if not args.bm25_only:
        import httpx

        from desktop_copilot.core.knowledge.embedding_pass import EmbeddingNearest, embed_pending, vectors_folder
        from desktop_copilot.core.knowledge.embeddings import Embedder
        from tests.support.embedding_server import EmbeddingServer

        server = EmbeddingServer(dim=EMBED_DIM).start()
        http = httpx.AsyncClient()
        embedder = Embedder(server.model("openai"), None, http)
        started = time.perf_counter()
        report = loop.run_until_complete(embed_pending(library, embedder, vectors_folder(data_dir)))
        print(f"embedding pass: {report.embedded:,} passages through the loopback EmbeddingServer ({EMBED_DIM} dims, hashed bag of "
              f"words — NOT a language model) in {time.perf_counter() - started:.1f} s; matrix of {report.rows:,} rows\n")
        nearest = EmbeddingNearest(embedder, vectors_folder(data_dir))
        modes["hybrid (BM25 + hashed bag-of-words vectors, RRF)"] = run(nearest)
        nearest.close()
        loop.run_until_complete(http.aclose())

    print("| search | questions | recall@1 (file) | recall@5 (file) | MRR@%d (file) | recall@5 (passage) | query p50 ms |" % args.top)
    print("|---|---|---|---|---|---|---|")
    for mode, results in modes.items():
        for lang in ("all", "zh", "en", "mixed"):
            chosen = [(q, o, t) for q, o, t in results if lang == "all" or q.lang == lang]
            if not chosen:
                continue
            r1, r5, mrr, p5 = figures([o for _, o, _ in chosen])
            times = sorted(t for _, _, t in chosen)
            print(f"| {mode}, {lang} | {len(chosen)} | {r1:.2f} | {r5:.2f} | {mrr:.2f} | {p5:.2f} | {times[len(times) // 2]:.1f} |")
    for mode, results in modes.items():
        shown = [(q, o) for q, o, _ in results if args.show_all or o.file_rank != 1 or (o.passage_rank or 99) > 5]
        print(f"\n## {mode}: {'every question' if args.show_all else 'questions whose answer was not first (or whose passage was not in the top 5)'}"
              f" ({len(shown)})\n")
        print("| lang | question | answer in | file rank | passage rank | what came first |\n|---|---|---|---|---|---|")
        for q, o in shown:
            answer = ", ".join(q.files)
            print(f"| {q.lang} | {q.q} | {answer} | {o.file_rank or '–'} | {o.passage_rank or '–'} | {o.first} |")
    print("\nThe hybrid rows use the test server's hashed bag-of-words vectors: they show that the embedding side is wired in and "
          "how fusion moves the ranks, not how a semantic embedding model would do.")
    print(f"\nload average before {load_before}, after {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    loop.close()
    if server is not None:
        server.stop()
    library.close()
    if args.keep:
        print(f"data folder kept: {data_dir}")
    else:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
