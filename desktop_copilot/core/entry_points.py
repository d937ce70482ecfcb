"""Entry points of one group found without reading every installed distribution's metadata: what
importlib.metadata.entry_points(group=…) finds, for the groups looked up while a reply streams (keyring's backends,
the tool hooks)."""

from __future__ import annotations

import functools
import os
import re
import stat
import sys
from pathlib import Path
from types import ModuleType


def scan(group: str, metadata: ModuleType | None = None) -> list | None:
    """importlib.metadata.entry_points(group=group) without reading every distribution's metadata and entry points
    (importlib_metadata reads each METADATA whole to put the distributions that have one first: ~7 ms for a hundred).
    The distribution folders on sys.path in its order (in each folder the `.dist-info` and `.egg-info` ones as
    listed), those with metadata first (as importlib_metadata, keyring's before Python 3.12, orders them; the standard
    library of 3.11 keeps the path order, which differs only where a same-named distribution without metadata comes
    first), the first of each normalized name kept; only the entry_points.txt naming the group is parsed, by
    `metadata` (importlib.metadata or its backport; the standard library's by default). The folders and their
    entry_points.txt are read once for a sys.path (`_entry_point_files`): the groups looked up in one process (keyring's
    backends, the tool hooks) share the reading. None where importlib.metadata would find distributions another way:
    a zip or an egg on sys.path, a finder of distributions other than the path-based ones."""
    import importlib.machinery

    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and finder is not importlib.machinery.PathFinder \
                and type(finder).__module__ != "importlib_metadata":
            return None
    files = _entry_point_files(tuple(sys.path))
    if files is None:
        return None
    header = f"[{group}]"
    entries: list = []
    for path, text in files:
        if header not in text:
            continue
        if metadata is None:
            from importlib import metadata
        entries += metadata.PathDistribution(Path(path)).entry_points.select(group=group)
    return entries


@functools.lru_cache(maxsize=4)
def _entry_point_files(path: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
    """(the distribution folder, its entry_points.txt) for the distributions on `path` that have one, in `scan`'s
    order, the first of each normalized name; None when `path` holds a zip or an egg."""
    found: list[tuple[str, str]] = []
    for entry in path:
        root = entry or "."
        if not isinstance(entry, str) or root.lower().endswith(".egg"):
            return None
        try:
            children = os.listdir(root)
        except NotADirectoryError:
            return None
        except OSError:
            continue
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                found.append((_normalized(low.rpartition(".")[0].partition("-")[0]), os.path.join(root, child)))
    with_metadata = [item for item in found if _has_metadata(item[1])]
    without = [item for item in found if item not in with_metadata] if len(with_metadata) < len(found) else []
    seen: set[str] = set()
    files: list[tuple[str, str]] = []
    for name, folder in with_metadata + without:
        if name in seen:
            continue
        seen.add(name)
        try:
            with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as file:
                files.append((folder, file.read()))
        except (OSError, ValueError):
            continue
    return tuple(files)


def entry_points(group: str, metadata: ModuleType | None = None) -> list:
    """The entry points of `group`: `scan`'s, or `metadata.entry_points(group=…)`'s where the scan cannot tell
    (`metadata`: importlib.metadata or its backport; the standard library's by default)."""
    found = scan(group, metadata)
    if found is not None:
        return found
    if metadata is None:
        from importlib import metadata
    return list(metadata.entry_points(group=group))


def _normalized(name: str) -> str:
    """importlib.metadata's normalized distribution name (PEP 503, dashes as underscores)."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _has_metadata(path: str) -> bool:
    """Whether the distribution at `path` has metadata text: a METADATA or PKG-INFO in it, or it is the file."""
    for candidate in (os.path.join(path, "METADATA"), os.path.join(path, "PKG-INFO"), path):
        try:
            found = os.stat(candidate)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(found.st_mode) and found.st_size > 0:
            return True
    return False
