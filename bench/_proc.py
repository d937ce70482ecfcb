"""Reading a process's memory from /proc for the benchmarks (Linux)."""

from __future__ import annotations


def proc_kb(path: str, field: str) -> float:
    """A `kB` field of a /proc status-like file (status, smaps_rollup), in MB; NaN if the file or field is absent."""
    try:
        with open(path) as lines:
            for line in lines:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")
