"""Refreshes the translations: pyside6-lupdate collects every tr()/translate() string of desktop_copilot/qt and
desktop_copilot/app into desktop_copilot_<language>.ts (keeping the translations already there, marking new strings
unfinished and dropping vanished ones), then pyside6-lrelease builds the .qm the app loads.

    .venv/bin/python -m desktop_copilot.qt.i18n.update            # lupdate + lrelease
    .venv/bin/python -m desktop_copilot.qt.i18n.update --release  # lrelease only (after translating in the .ts)

Translate the entries marked type="unfinished" (Qt Linguist: pyside6-linguist desktop_copilot_zh_CN.ts, or by hand),
then run it again with --release. tests/qt/i18n/test_translations.py fails while a string has no finished translation.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from desktop_copilot.qt.i18n import CATALOGUE, TRANSLATED

PACKAGE = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SOURCE_DIRS = (PACKAGE / "qt", PACKAGE / "app")
"""Where user-visible strings live (the core is Qt-free and says nothing to the user directly)."""


def tool(name: str) -> str:
    """pyside6-lupdate / pyside6-lrelease: beside this Python (a venv), else on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} was not found; install PySide6 (it ships the Qt translation tools)")
    return found


def source_files() -> list[str]:
    return sorted(str(path) for folder in SOURCE_DIRS for path in folder.rglob("*.py"))


def ts_path(language: str) -> Path:
    return HERE / f"{CATALOGUE}_{language}.ts"


def lupdate(ts: Path, *, keep_obsolete: bool = False) -> None:
    """Collects the strings into `ts` (created when missing), keeping the translations it already has."""
    command = [tool("pyside6-lupdate"), *source_files(), "-locations", "none", "-ts", str(ts)]
    if not keep_obsolete:
        command.insert(-2, "-no-obsolete")
    subprocess.run(command, check=True, capture_output=True, text=True)


def lrelease(ts: Path, qm: Path) -> None:
    subprocess.run([tool("pyside6-lrelease"), str(ts), "-qm", str(qm)], check=True, capture_output=True, text=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", action="store_true", help="only build the .qm files from the .ts files")
    args = parser.parse_args(argv)
    for language in TRANSLATED:
        ts = ts_path(language)
        if not args.release:
            lupdate(ts)
        lrelease(ts, ts.with_suffix(".qm"))
        print(f"{ts.name} -> {ts.with_suffix('.qm').name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
