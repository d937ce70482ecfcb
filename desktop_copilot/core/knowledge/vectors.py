"""The vector store of one embedding model: a memory-mapped float32 .npy matrix beside its passage ids; exact cosine search."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Collection, Iterable, Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # NumPy is imported on first use, not at start-up
    import numpy as np

CHUNK_ROWS = 4096
"""Rows converted and normalised at a time while building (4,096 × 768 float32: 12 MB)."""


def to_blob(vector: Sequence[float] | Any) -> bytes:
    """A vector as little-endian float32 bytes (the embedding cache's BLOB)."""
    import numpy as np

    return np.asarray(vector, dtype="<f4").reshape(-1).tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    """The float32 vector of a `to_blob` BLOB (read-only, no copy): a row `VectorMatrix.build` takes as it is."""
    import numpy as np

    return np.frombuffer(blob, dtype="<f4")


class VectorMatrix:
    """Unit-normalised float32 vectors for one embedding model, in a memory-mapped .npy file beside an ids file.

    Files in `folder`: `<identity>.<generation>.npy` (rows × dim) and `<identity>.<generation>.ids.npy` (int64 passage
    ids, row by row). `build` writes a new generation and renames its matrix into place last, so `open` never sees half
    of one; older generations are then removed (where a reader still maps one, as Windows forbids, at the next build).

    Exact search, one matrix-vector product: at 100,000 × 768 about 11 ms p50, against 110 ms for sqlite-vec and 470 ms
    for a BLOB scan (bench/knowledge_vectors.py). The mapped file counts as (file-backed, reclaimable) RSS once
    searched: rows × dim × 4 bytes."""

    def __init__(self, matrix: np.ndarray, ids: np.ndarray, path: Path | None = None) -> None:
        import numpy as np

        self._matrix = matrix
        self._ids = ids
        self._order = np.argsort(ids, kind="stable")  # rows by id: an `allowed` subset is found by binary search
        self._sorted_ids = ids[self._order]
        self.dim: int = int(matrix.shape[1])
        self.path = path

    @classmethod
    def build(cls, folder: Path, identity: str, ids: Sequence[int], vectors: Iterable[Sequence[float]]) -> VectorMatrix:
        """Writes the vectors (one per id, in the same order; lists, arrays or `from_blob` rows) as a new generation
        and returns it opened. ValueError when the counts or lengths do not match; nothing is left behind then."""
        import numpy as np

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        id_array = np.asarray(ids, dtype=np.int64).reshape(-1)
        count = len(id_array)
        existing = _generations(folder, identity)
        generation = max(time.time_ns(), existing[0][0] + 1 if existing else 0)
        stem = folder / f"{identity}.{generation:016x}"
        matrix_path, ids_path = Path(f"{stem}.npy"), Path(f"{stem}.ids.npy")
        temps = [Path(f"{stem}.npy.tmp"), Path(f"{stem}.ids.npy.tmp")]
        try:
            _write_matrix(temps[0], count, vectors)
            with open(temps[1], "wb") as out:
                np.save(out, id_array)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temps[1], ids_path)
            os.replace(temps[0], matrix_path)  # last: from here on `open` finds this generation
        except BaseException:
            for path in (*temps, ids_path):
                with contextlib.suppress(OSError):
                    path.unlink()
            raise
        for _, old_matrix in existing:
            for path in (old_matrix, _ids_path(old_matrix)):
                with contextlib.suppress(OSError):  # still mapped on Windows: removed by a later build
                    path.unlink()
        return cls._load(matrix_path)

    @classmethod
    def open(cls, folder: Path, identity: str) -> VectorMatrix | None:
        """The newest generation of `identity` in `folder`; None when none was built or it cannot be read."""
        found = _generations(Path(folder), identity)
        if not found:
            return None
        try:
            return cls._load(found[0][1])
        except (OSError, ValueError, EOFError):
            return None

    @classmethod
    def _load(cls, matrix_path: Path) -> VectorMatrix:
        import numpy as np

        try:
            matrix = np.load(matrix_path, mmap_mode="r", allow_pickle=False)
        except ValueError:  # an empty matrix cannot be mapped on every NumPy
            matrix = np.load(matrix_path, allow_pickle=False)
        ids = np.load(_ids_path(matrix_path), allow_pickle=False)
        if matrix.ndim != 2 or matrix.dtype != np.float32 or ids.ndim != 1 or ids.dtype != np.int64 or len(ids) != len(matrix):
            raise ValueError(f"{matrix_path.name} does not match its ids file")
        return cls(matrix, ids, matrix_path)

    @property
    def ids(self) -> np.ndarray:
        """The passage id of each row (int64, read-only use)."""
        return self._ids

    def __len__(self) -> int:
        return len(self._ids)

    def search(self, query: Sequence[float], top_k: int, *, allowed: Collection[int] | None = None) -> list[tuple[int, float]]:
        """The `top_k` (passage id, cosine) nearest to `query`, best first (ties by id); only ids in `allowed` when
        given. ValueError when the query's length is not `dim` (the model changed: build again)."""
        import numpy as np

        if top_k <= 0 or not len(self._ids):
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise ValueError(f"the query vector has {q.shape[0]} dimensions, the stored ones {self.dim}")
        norm = float(np.linalg.norm(q))
        if not norm or not np.isfinite(norm):
            return []
        q = q / norm
        rows = None if allowed is None else self._rows_of(allowed)
        if rows is None:
            scores, row_ids = self._matrix @ q, self._ids
        elif not rows.size:
            return []
        elif rows.size * 2 > len(self._ids):  # most rows: one pass over the whole matrix beats gathering them
            scores, row_ids = np.full(len(self._ids), -np.inf, dtype=np.float32), self._ids
            scores[rows] = (self._matrix @ q)[rows]
        else:
            scores, row_ids = self._matrix[rows] @ q, self._ids[rows]
        k = min(top_k, len(scores) if rows is None else rows.size)
        top = np.argpartition(scores, len(scores) - k)[len(scores) - k :] if k < len(scores) else np.arange(len(scores))
        top = top[np.lexsort((row_ids[top], -scores[top]))]
        return [(int(row_ids[i]), float(scores[i])) for i in top]

    def _rows_of(self, allowed: Collection[int]) -> np.ndarray:
        """The rows (ascending, each once) whose ids are in `allowed`."""
        import numpy as np

        wanted = np.asarray(allowed, dtype=np.int64) if isinstance(allowed, np.ndarray) else np.fromiter(allowed, dtype=np.int64, count=len(allowed))
        at = np.searchsorted(self._sorted_ids, wanted)
        inside = at < len(self._sorted_ids)
        at, wanted = at[inside], wanted[inside]
        return np.unique(self._order[at[self._sorted_ids[at] == wanted]])

    def close(self) -> None:
        """Lets go of the mapped file (before removing it on Windows)."""
        import numpy as np

        self._matrix = np.zeros((0, self.dim), dtype=np.float32)
        self._ids = self._sorted_ids = np.zeros(0, dtype=np.int64)
        self._order = np.zeros(0, dtype=np.intp)


def _write_matrix(path: Path, count: int, vectors: Iterable[Sequence[float]]) -> None:
    """`count` rows from `vectors`, normalised to unit length (a zero vector stays zero), into a new .npy at `path`."""
    import numpy as np

    rows = iter(vectors)
    first = next(rows, None)
    dim = 0 if first is None else int(np.asarray(first).size)
    if (first is None) != (count == 0):
        raise ValueError(f"{count} ids but {'no' if first is None else 'some'} vectors")
    # Plain writes, not a writable memory map: flushing a map of hundreds of MB holds the GIL (the window froze for
    # up to 188 ms in bench/knowledge_index.py); a file write and fsync release it.
    with open(path, "wb") as out:
        np.lib.format.write_array_header_1_0(out, {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float32)),
                                                  "fortran_order": False, "shape": (count, dim)})
        filled = 0
        pending = chain([first], rows) if first is not None else iter(())
        while True:
            chunk = [row for _, row in zip(range(CHUNK_ROWS), pending)]
            if not chunk:
                break
            if filled + len(chunk) > count:
                raise ValueError(f"more vectors than the {count} ids")
            try:
                block = np.asarray(chunk, dtype=np.float32)
            except ValueError:
                raise ValueError("the vectors differ in length") from None
            if block.shape != (len(chunk), dim):
                raise ValueError(f"the vectors differ in length (expected {dim})")
            norms = np.linalg.norm(block, axis=1, keepdims=True)
            np.divide(block, norms, out=block, where=norms > 0)
            out.write(block.tobytes())
            filled += len(chunk)
        if filled != count:
            raise ValueError(f"{filled} vectors for {count} ids")
        out.flush()
        os.fsync(out.fileno())


def _ids_path(matrix_path: Path) -> Path:
    return matrix_path.with_name(matrix_path.name.removesuffix(".npy") + ".ids.npy")


def _generations(folder: Path, identity: str) -> list[tuple[int, Path]]:
    """(generation, matrix path) of each whole generation of `identity` in `folder`, newest first."""
    prefix = identity + "."
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        generation = name[len(prefix) : -len(".npy")] if name.startswith(prefix) and name.endswith(".npy") else ""
        if generation and len(generation) <= 16 and all(c in "0123456789abcdef" for c in generation):
            found.append((int(generation, 16), folder / name))
    return sorted(found, reverse=True)
