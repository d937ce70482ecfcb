"""Reading a process's memory from /proc for the benchmarks (Linux), and the percentile they report."""

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


def self_mb(field: str) -> float:
    """A field of this process's /proc/self/status (VmRSS, VmHWM), in MB."""
    return proc_kb("/proc/self/status", field)


def pct(values: list[float], p: float) -> float:
    """The `p`-th percentile of `values` (nearest rank); NaN for none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")

