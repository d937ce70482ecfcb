"""Which files of a source are looked at: a walk that honours .gitignore files, never enters .git, node_modules and
other tool folders, follows no symlink out of the source, and leaves out files that usually hold secrets."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from desktop_copilot.core.words import N_

NOT_ENTERED = frozenset({".git", ".hg", ".svn", ".bzr", "node_modules", "__pycache__", ".venv", ".tox", ".mypy_cache",
                         ".pytest_cache", ".ruff_cache", ".idea", ".vscode", ".DS_Store", ".cache", ".gradle"})
SECRET_FILES = (".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "id_rsa*", "id_ed25519*", "id_ecdsa*", ".netrc",
                ".npmrc", ".pypirc", "*.kdbx", "credentials*.json")
"""Files left out of every source, since they usually hold passwords or keys (listed as skipped, with this reason)."""
SECRET_REASON = N_("may hold secrets (left out on purpose)")


@dataclass(frozen=True, slots=True)
class Seen:
    """One file the walk found: its path inside the source (forward slashes), size and modification time."""

    path: str
    size: int
    mtime_ns: int
    skip_reason: str = ""


def holds_secrets(name: str) -> bool:
    lowered = name.lower()
    return any(fnmatch.fnmatchcase(lowered, pattern) for pattern in SECRET_FILES)


def _ignore_spec(folder: Path) -> Any:
    """The folder's own .gitignore as a pathspec (None when it has none or it cannot be read)."""
    try:
        lines = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _ignored(relative: str, is_dir: bool, specs: list[tuple[str, Any]]) -> bool:
    """Whether the .gitignore files above `relative` leave it out; the deepest file that speaks decides."""
    verdict = False
    for base, spec in specs:
        inner = relative[len(base) + 1:] if base else relative
        if is_dir:
            inner += "/"
        result = spec.check_file(inner).include
        if result is not None:
            verdict = result
    return verdict


def walk_source(root: Path) -> Iterator[Seen]:
    """Every file of a folder source, in a stable order; a single-file source yields that file under its own name."""
    if root.is_file():
        stat = root.stat()
        yield Seen(root.name, stat.st_size, stat.st_mtime_ns, SECRET_REASON if holds_secrets(root.name) else "")
        return
    resolved_root = root.resolve()
    yield from _walk(resolved_root, resolved_root, "", [])


def _walk(root: Path, folder: Path, relative: str, specs: list[tuple[str, Any]]) -> Iterator[Seen]:
    own = _ignore_spec(folder)
    if own is not None:
        specs = [*specs, (relative, own)]
    try:
        with os.scandir(folder) as entries:
            listed = sorted(entries, key=lambda e: e.name)
    except OSError:
        return
    for entry in listed:
        path = f"{relative}/{entry.name}" if relative else entry.name
        try:
            if entry.is_symlink():
                target = Path(entry.path).resolve()
                if not target.is_relative_to(root) or target.is_dir():
                    continue  # out of the source, or a folder link (loops, the same files twice)
            if entry.is_dir(follow_symlinks=False):
                if entry.name in NOT_ENTERED or _ignored(path, True, specs):
                    continue
                yield from _walk(root, Path(entry.path), path, specs)
            elif entry.is_file():
                if _ignored(path, False, specs):
                    continue
                stat = entry.stat()
                yield Seen(path, stat.st_size, stat.st_mtime_ns, SECRET_REASON if holds_secrets(entry.name) else "")
        except (OSError, RuntimeError):
            continue
