"""The vector store of the knowledge search, measured three ways at 100,000 vectors of 384 and 768 dimensions:
NumPy over a memory-mapped .npy matrix (core/knowledge/vectors.py, the one the app uses), a plain SQLite BLOB scan
(read every row, one matrix-vector product), and sqlite-vec's `vec0` table (its KNN query). For each: build time (from
the float32 BLOBs the embedding cache holds), file size, query p50/p95 for the top 10 over all rows and over a random
10% `allowed` subset, the first query, and the RSS after it — each store queried in a fresh process. Then the client
side of the embeddings against the loopback embedding server: one question's round trip, and passages per second.

    python bench/knowledge_vectors.py [--rows 100000] [--dims 384,768] [--queries 60] [--json PATH]

sqlite-vec needs an SQLite that loads extensions. The stdlib `sqlite3` of the Python this project is developed on has
no `enable_load_extension` (built without loadable extensions), so the case runs only where `sqlite-vec` and `apsw` (or
`pysqlite3`) are importable, and otherwise prints why not:

    python -m venv /tmp/vecbench && /tmp/vecbench/bin/pip install numpy httpx sqlite-vec apsw
    /tmp/vecbench/bin/python bench/knowledge_vectors.py

Not part of the test run."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _proc import proc_kb  # noqa: E402  (bench/ is on the path: this script's folder)

METHODS = ("numpy-mmap", "sqlite-blob", "sqlite-vec")
TOP_K = 10
SUBSET = 0.10
QUERY_BUDGET_S = 15.0
"""A slow store gets fewer queries (at least 10) rather than minutes."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def dataset(rows: int, dim: int, seed: int = 11):
    """`rows` ids (not consecutive, as passage ids after deletions are not) and unit float32 vectors."""
    import numpy as np

    rng = np.random.default_rng(seed)
    ids = np.sort(rng.choice(rows * 3, size=rows, replace=False)).astype(np.int64) + 1
    vectors = rng.standard_normal((rows, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return ids, vectors


def queries(count: int, dim: int, ids, seed: int = 12):
    import numpy as np

    rng = np.random.default_rng(seed)
    subset = set(rng.choice(ids, size=int(len(ids) * SUBSET), replace=False).tolist())
    return [rng.standard_normal(dim).astype(np.float32) for _ in range(count)], subset


def rss() -> dict[str, float]:
    return {field: round(proc_kb("/proc/self/status", field), 1) for field in ("VmRSS", "RssAnon", "RssFile")}


# --- the three stores: build(folder, ids, blobs) -> path; open(path) -> search(query, allowed) ----------------------


def sqlite_vec_connection(path: str):
    """An SQLite connection with sqlite-vec loaded, or RuntimeError saying why not."""
    try:
        import sqlite_vec
    except ImportError:
        raise RuntimeError("the sqlite-vec package is not installed") from None
    import sqlite3

    if hasattr(sqlite3.connect(":memory:"), "enable_load_extension"):
        connection = sqlite3.connect(path)
        connection.enable_load_extension(True)
        sqlite_vec.load(connection)
        return connection, "stdlib sqlite3"
    try:
        import apsw

        connection = apsw.Connection(path)
        connection.enable_load_extension(True)
        connection.load_extension(sqlite_vec.loadable_path())
        return connection, f"apsw (SQLite {apsw.sqlite_lib_version()})"
    except ImportError:
        pass
    try:
        import pysqlite3.dbapi2 as pysqlite3

        connection = pysqlite3.connect(path)
        connection.enable_load_extension(True)
        sqlite_vec.load(connection)
        return connection, "pysqlite3"
    except ImportError:
        raise RuntimeError(f"this Python's sqlite3 (SQLite {sqlite3.sqlite_version}) has no enable_load_extension and "
                           "neither apsw nor pysqlite3 is installed") from None


def build(method: str, folder: Path, ids, blobs: list[bytes], dim: int) -> Path:
    if method == "numpy-mmap":
        from desktop_copilot.core.knowledge.vectors import VectorMatrix, from_blob

        return VectorMatrix.build(folder, "bench", ids, (from_blob(b) for b in blobs)).path
    path = folder / f"{method}.sqlite3"
    if method == "sqlite-blob":
        import sqlite3

        connection = sqlite3.connect(path)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE vectors(id INTEGER PRIMARY KEY, vector BLOB NOT NULL)")
        with connection:
            connection.executemany("INSERT INTO vectors VALUES (?, ?)", zip(ids.tolist(), blobs))
        connection.close()
        return path
    connection, _ = sqlite_vec_connection(str(path))
    connection.execute(f"CREATE VIRTUAL TABLE vectors USING vec0(embedding float[{dim}] distance_metric=cosine)")
    connection.execute("BEGIN")
    for start in range(0, len(blobs), 10_000):
        chunk = list(zip(ids[start : start + 10_000].tolist(), blobs[start : start + 10_000]))
        connection.executemany("INSERT INTO vectors(rowid, embedding) VALUES (?, ?)", chunk)
    connection.execute("COMMIT")
    connection.close()
    return path


def opener(method: str, path: Path):
    import numpy as np

    if method == "numpy-mmap":
        from desktop_copilot.core.knowledge.vectors import VectorMatrix

        matrix = VectorMatrix.open(path.parent, "bench")
        assert matrix is not None
        return lambda q, allowed: matrix.search(q, TOP_K, allowed=allowed)
    if method == "sqlite-blob":
        import sqlite3

        connection = sqlite3.connect(path)

        def blob_scan(q, allowed):
            if allowed is None:
                rows = connection.execute("SELECT id, vector FROM vectors").fetchall()
            else:
                rows = connection.execute("SELECT id, vector FROM vectors WHERE id IN (SELECT value FROM json_each(?))",
                                          (json.dumps(list(allowed)),)).fetchall()
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
            scores = matrix @ (q / np.linalg.norm(q))
            top = np.argpartition(scores, len(scores) - TOP_K)[-TOP_K:]
            top = top[np.argsort(-scores[top])]
            return [(int(ids[i]), float(scores[i])) for i in top]

        return blob_scan
    connection, _ = sqlite_vec_connection(str(path))

    def vec0(q, allowed):
        blob = np.asarray(q, dtype=np.float32).tobytes()
        if allowed is None:
            rows = connection.execute("SELECT rowid, distance FROM vectors WHERE embedding MATCH ? AND k = ?", (blob, TOP_K))
        else:
            rows = connection.execute("SELECT rowid, distance FROM vectors WHERE embedding MATCH ? AND k = ? "
                                      "AND rowid IN (SELECT value FROM json_each(?))", (blob, TOP_K, json.dumps(list(allowed))))
        return [(int(i), 1.0 - float(d)) for i, d in rows]

    return vec0


# --- children: one phase of one case each, figures as JSON on stdout -----------------------------------------------


def child_build(method: str, rows: int, dim: int, folder: Path) -> dict:
    from desktop_copilot.core.knowledge.vectors import to_blob

    ids, vectors = dataset(rows, dim)
    blobs = [to_blob(v) for v in vectors]  # what the embedding cache gives back
    started = time.perf_counter()
    path = build(method, folder, ids, blobs, dim)
    seconds = time.perf_counter() - started
    size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
    return {"build_s": round(seconds, 2), "size_mb": round(size / 2**20, 1), "path": str(path)}


def child_query(method: str, rows: int, dim: int, path: Path, count: int) -> dict:
    import numpy as np

    ids, vectors = dataset(rows, dim)
    qs, subset = queries(count, dim, ids)
    expected = {}
    for n in (0, 1):  # the exact answer, to check each store (computed before the store is opened)
        scores = vectors @ (qs[n] / np.linalg.norm(qs[n]))
        expected[n] = set(ids[np.argsort(-scores)[:TOP_K]].tolist())
    del vectors, scores
    import gc

    gc.collect()
    baseline = rss()
    search = opener(method, path)
    started = time.perf_counter()
    first = search(qs[0], None)
    first_ms = (time.perf_counter() - started) * 1000
    after_first = rss()
    recall = len({i for i, _ in first} & expected[0]) / TOP_K
    figures = {"first_ms": round(first_ms, 1), "recall_at_10": recall,
               "rss_after_first_mb": after_first["VmRSS"], "rss_added_mb": round(after_first["VmRSS"] - baseline["VmRSS"], 1),
               "rss_anon_added_mb": round(after_first["RssAnon"] - baseline["RssAnon"], 1),
               "rss_file_added_mb": round(after_first["RssFile"] - baseline["RssFile"], 1)}
    for name, allowed in (("all", None), ("subset10", subset)):
        times: list[float] = []
        spent = time.perf_counter()
        for q in qs[1:]:
            started = time.perf_counter()
            hits = search(q, allowed)
            times.append((time.perf_counter() - started) * 1000)
            if len(times) >= 10 and time.perf_counter() - spent > QUERY_BUDGET_S:
                break
        assert len(hits) == TOP_K and (allowed is None or all(i in allowed for i, _ in hits)), hits
        figures[f"{name}_p50_ms"] = round(statistics.median(times), 2)
        figures[f"{name}_p95_ms"] = round(percentile(times, 0.95), 2)
        figures[f"{name}_queries"] = len(times)
    figures["rss_end_mb"] = rss()["VmRSS"]
    return figures


def run_child(*args: str) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the embedding side: the client's cost against the loopback server ---------------------------------------------


async def embedder_figures(passages: int, questions: int) -> dict:
    import httpx

    from desktop_copilot.core.knowledge.embeddings import Embedder
    from tests.support.embedding_server import EmbeddingServer

    words = "index search passage file folder notes budget travel python database backup report meeting".split()
    texts = [" ".join(words[(i * 7 + k) % len(words)] for k in range(60)) + f" n{i}" for i in range(passages)]
    figures = {}
    with EmbeddingServer(dim=768) as server:
        async with httpx.AsyncClient() as http:
            for wire in ("openai", "gemini", "ollama"):
                embedder = Embedder(server.model(wire), None, http)
                await embedder.embed(["warm up"], for_query=True)
                times = []
                for n in range(questions):
                    started = time.perf_counter()
                    await embedder.embed([f"where is the budget report {n}"], for_query=True)
                    times.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await embedder.embed(texts)
                seconds = time.perf_counter() - started
                figures[wire] = {"question_p50_ms": round(statistics.median(times), 2), "question_p95_ms": round(percentile(times, 0.95), 2),
                                 "passages_per_s": round(passages / seconds), "requests": len(server.calls)}
                server.reset()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dims", default="384,768")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        phase, method, rows, dim, where = args.child[:5]
        if phase == "build":
            out = child_build(method, int(rows), int(dim), Path(where))
        else:
            out = child_query(method, int(rows), int(dim), Path(where), int(args.child[5]))
        print(json.dumps(out))
        return

    import sqlite3

    import numpy

    print(f"Python {sys.version.split()[0]}, NumPy {numpy.__version__}, stdlib SQLite {sqlite3.sqlite_version}, "
          f"stdlib enable_load_extension: {hasattr(sqlite3.connect(':memory:'), 'enable_load_extension')}, {os.cpu_count()} CPUs")
    try:
        connection, how = sqlite_vec_connection(":memory:")
        version = next(iter(connection.execute("SELECT vec_version()")))[0]
        print(f"sqlite-vec {version} loads through {how}")
    except RuntimeError as exc:
        print(f"sqlite-vec: cannot load: {exc}")
    results = []
    for dim in (int(d) for d in args.dims.split(",")):
        for method in args.methods.split(","):
            with tempfile.TemporaryDirectory(prefix=f"vec-{method}-") as folder:
                row = {"method": method, "rows": args.rows, "dim": dim}
                built = run_child("build", method, str(args.rows), str(dim), folder)
                row.update(built)
                if "error" not in built:
                    row.update(run_child("query", method, str(args.rows), str(dim), built["path"], str(args.queries)))
                row.pop("path", None)
                results.append(row)
                print(json.dumps(row), flush=True)
    print()
    print(f"{'store':<12} {'dim':>4} {'build s':>8} {'MB':>7} {'first ms':>9} {'p50':>8} {'p95':>8} {'10% p50':>8} {'10% p95':>8} "
          f"{'RSS+ MB':>8} {'anon+':>6} {'file+':>6} recall")
    for r in results:
        if "error" in r:
            print(f"{r['method']:<12} {r['dim']:>4}  not measured: {r['error']}")
            continue
        print(f"{r['method']:<12} {r['dim']:>4} {r['build_s']:>8} {r['size_mb']:>7} {r['first_ms']:>9} {r['all_p50_ms']:>8} "
              f"{r['all_p95_ms']:>8} {r['subset10_p50_ms']:>8} {r['subset10_p95_ms']:>8} {r['rss_added_mb']:>8} "
              f"{r['rss_anon_added_mb']:>6} {r['rss_file_added_mb']:>6} {r['recall_at_10']}")
    embedding = asyncio.run(embedder_figures(passages=6400, questions=50))
    print("\nEmbedder against the loopback server (768 dims; the client's own cost, not a provider's):")
    for wire, f in embedding.items():
        print(f"  {wire:<7} one question p50 {f['question_p50_ms']} ms, p95 {f['question_p95_ms']} ms; "
              f"6,400 passages at {f['passages_per_s']:,}/s in {f['requests']} requests")
    if args.json:
        args.json.write_text(json.dumps({"stores": results, "embedder": embedding}, indent=2))


if __name__ == "__main__":
    main()
