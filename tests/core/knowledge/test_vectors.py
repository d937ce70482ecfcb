"""The vector store: what `search` finds against a brute-force reference, with and without an `allowed` subset, the
files a build leaves (and does not leave when it fails), rebuilds swapped in whole, and the empty matrix."""

from __future__ import annotations

import os

import numpy as np
import pytest

from desktop_copilot.core.knowledge.vectors import VectorMatrix, from_blob, to_blob

ID = "openai-test-model-0123abcd"


def data(n: int = 500, dim: int = 24, seed: int = 3) -> tuple[list[int], np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.choice(10**9, size=n, replace=False).astype(np.int64)
    return ids.tolist(), rng.normal(size=(n, dim)).astype(np.float32) * rng.uniform(0.1, 10, size=(n, 1)).astype(np.float32)


def brute(ids: list[int], vectors: np.ndarray, query: np.ndarray, k: int, allowed=None) -> list[tuple[int, float]]:
    scored = []
    for i, v in zip(ids, vectors.astype(np.float64)):
        if allowed is None or i in allowed:
            scored.append((i, float(v @ query / np.linalg.norm(v) / np.linalg.norm(query))))
    return sorted(scored, key=lambda pair: (-pair[1], pair[0]))[:k]


def same(got: list[tuple[int, float]], expected: list[tuple[int, float]]) -> None:
    assert [i for i, _ in got] == [i for i, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected], abs=1e-5)


def test_search_matches_brute_force(tmp_path):
    ids, vectors = data()
    matrix = VectorMatrix.build(tmp_path, ID, ids, vectors.tolist())
    assert len(matrix) == 500 and matrix.dim == 24
    for seed in range(5):
        query = np.random.default_rng(100 + seed).normal(size=24)
        same(matrix.search(query.tolist(), 10), brute(ids, vectors, query, 10))
    assert len(matrix.search(query, 1000)) == 500


@pytest.mark.parametrize("fraction", [0.02, 0.1, 0.7])
def test_allowed_restricts_to_a_subset(tmp_path, fraction):
    ids, vectors = data()
    matrix = VectorMatrix.build(tmp_path, ID, ids, vectors)
    rng = np.random.default_rng(9)
    allowed = set(rng.choice(ids, size=int(len(ids) * fraction), replace=False).tolist()) | {-5, 10**12}  # ids not stored
    query = rng.normal(size=24)
    same(matrix.search(query, 10, allowed=allowed), brute(ids, vectors, query, 10, allowed))
    same(matrix.search(query, 10, allowed=np.array(sorted(allowed))), brute(ids, vectors, query, 10, allowed))
    assert matrix.search(query, 10, allowed=set()) == []
    assert matrix.search(query, 10, allowed={-1}) == []
    one = ids[17]
    assert [i for i, _ in matrix.search(query, 10, allowed=[one, one])] == [one]


def test_rows_are_unit_length_and_the_query_need_not_be(tmp_path):
    ids, vectors = data(50, 8)
    matrix = VectorMatrix.build(tmp_path, ID, ids, iter(vectors.tolist()))
    stored = np.load(matrix.path)
    assert np.allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-6)
    best_id, cosine = matrix.search((vectors[7] * 1000).tolist(), 1)[0]
    assert best_id == ids[7] and cosine == pytest.approx(1.0, abs=1e-6)


def test_open_finds_what_build_wrote_memory_mapped(tmp_path):
    ids, vectors = data()
    VectorMatrix.build(tmp_path, ID, ids, vectors)
    opened = VectorMatrix.open(tmp_path, ID)
    assert opened is not None and len(opened) == 500 and opened.dim == 24
    assert isinstance(opened._matrix, np.memmap)
    assert opened.ids.tolist() == ids
    query = np.ones(24)
    same(opened.search(query, 5), brute(ids, vectors, query, 5))
    assert VectorMatrix.open(tmp_path, "ollama-other-model-00000000") is None
    assert VectorMatrix.open(tmp_path / "nowhere", ID) is None


def test_a_rebuild_replaces_the_old_generation_whole(tmp_path):
    ids, vectors = data(100, 8, seed=1)
    old = VectorMatrix.build(tmp_path, ID, ids, vectors)
    query = np.ones(8)
    before = old.search(query, 5)
    new_ids, new_vectors = data(60, 8, seed=2)
    new = VectorMatrix.build(tmp_path, ID, new_ids, new_vectors)
    assert old.search(query, 5) == before  # a reader holding the old one keeps working (POSIX: unlinked, still mapped)
    opened = VectorMatrix.open(tmp_path, ID)
    assert opened is not None and len(opened) == 60 and opened.path == new.path
    same(opened.search(query, 5), brute(new_ids, new_vectors, query, 5))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([new.path.name, new.path.name.replace(".npy", ".ids.npy")])


def test_a_failed_build_leaves_the_previous_one_and_no_debris(tmp_path):
    ids, vectors = data(30, 8)
    VectorMatrix.build(tmp_path, ID, ids, vectors)
    before = sorted(os.listdir(tmp_path))

    def broken():
        yield from vectors[:10].tolist()
        raise RuntimeError("embedding stopped")

    with pytest.raises(RuntimeError):
        VectorMatrix.build(tmp_path, ID, ids, broken())
    with pytest.raises(ValueError, match="differ in length"):
        VectorMatrix.build(tmp_path, ID, ids, [[1.0] * 8] * 29 + [[1.0] * 7])
    with pytest.raises(ValueError, match="10 vectors for 30 ids"):
        VectorMatrix.build(tmp_path, ID, ids, vectors[:10])
    with pytest.raises(ValueError, match="more vectors"):
        VectorMatrix.build(tmp_path, ID, ids[:5], vectors)
    assert sorted(os.listdir(tmp_path)) == before
    opened = VectorMatrix.open(tmp_path, ID)
    assert opened is not None and len(opened) == 30


def test_an_identity_never_sees_another_ones_files(tmp_path):
    VectorMatrix.build(tmp_path, "m", [1], [[1.0, 0.0]])
    VectorMatrix.build(tmp_path, "m.x", [2], [[0.0, 1.0]])
    VectorMatrix.build(tmp_path, "mm", [3], [[1.0, 1.0]])
    assert VectorMatrix.open(tmp_path, "m").ids.tolist() == [1]
    assert VectorMatrix.open(tmp_path, "m.x").ids.tolist() == [2]
    assert VectorMatrix.open(tmp_path, "mm").ids.tolist() == [3]


def test_a_damaged_file_opens_as_not_built(tmp_path):
    built = VectorMatrix.build(tmp_path, ID, [1, 2], [[1.0, 0.0], [0.0, 1.0]])
    built.close()
    built.path.write_bytes(b"not a matrix")
    assert VectorMatrix.open(tmp_path, ID) is None


def test_the_empty_matrix(tmp_path):
    empty = VectorMatrix.build(tmp_path, ID, [], [])
    assert len(empty) == 0 and empty.search([1.0, 2.0], 10) == []
    opened = VectorMatrix.open(tmp_path, ID)
    assert opened is not None and len(opened) == 0 and opened.search([1.0], 5, allowed={1}) == []


def test_odd_queries(tmp_path):
    matrix = VectorMatrix.build(tmp_path, ID, [1, 2], [[1.0, 0.0], [0.0, 0.0]])
    assert matrix.search([0.0, 0.0], 5) == []  # no direction, no nearest
    assert matrix.search([1.0, 0.0], 0) == []
    assert matrix.search([1.0, 0.0], 5) == [(1, pytest.approx(1.0)), (2, 0.0)]  # a zero vector stays zero
    with pytest.raises(ValueError, match="3 dimensions, the stored ones 2"):
        matrix.search([1.0, 0.0, 0.0], 5)


def test_blobs_round_trip_and_build_from_them(tmp_path):
    ids, vectors = data(40, 12)
    blobs = [to_blob(v) for v in vectors.tolist()]
    assert all(len(b) == 12 * 4 for b in blobs)
    assert np.array_equal(from_blob(blobs[3]), vectors[3])
    matrix = VectorMatrix.build(tmp_path, ID, ids, (from_blob(b) for b in blobs))
    query = np.arange(12.0)
    same(matrix.search(query, 5), brute(ids, vectors, query, 5))
