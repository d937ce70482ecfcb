"""Refreshes the translations: pyside6-lupdate collects every tr()/translate() string of desktop_copilot/qt and
desktop_copilot/app, and every `tr("…")`/`N_("…")` message of the Qt-free core (core/words.py, read here with `ast`
and handed to lupdate as QT_TRANSLATE_NOOP lines under the "CoreMessages" context), into
desktop_copilot_<language>.ts (keeping the translations already there, marking new strings unfinished and dropping
vanished ones), then pyside6-lrelease builds the .qm the app loads.

    .venv/bin/python -m desktop_copilot.qt.i18n.update            # lupdate + lrelease
    .venv/bin/python -m desktop_copilot.qt.i18n.update --release  # lrelease only (after translating in the .ts)

Translate the entries marked type="unfinished" (Qt Linguist: pyside6-linguist desktop_copilot_zh_CN.ts, or by hand),
then run it again with --release. tests/qt/i18n/test_translations.py fails while a string has no finished translation.
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from desktop_copilot.core.words import CONTEXT as CORE_CONTEXT
from desktop_copilot.qt.i18n import CATALOGUE, TRANSLATED

PACKAGE = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SOURCE_DIRS = (PACKAGE / "qt", PACKAGE / "app")
"""Where Qt's tr()/translate() strings live (lupdate reads these)."""
CORE_DIR = PACKAGE / "core"
"""Where the Qt-free core marks its messages with core/words.py's `tr`/`N_` (read by core_messages)."""
CORE_MARKERS = ("tr", "N_")


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


def marked_strings(path: Path) -> list[tuple[int, str]]:
    """(line, English) of every `tr("…")` / `N_("…")` call with a literal string in the Python file `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CORE_MARKERS and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            found.append((node.lineno, node.args[0].value))
    return found


def core_messages() -> list[str]:
    """Every message the core marks, once each, in the order of the files and lines."""
    seen: dict[str, None] = {}
    for path in sorted(CORE_DIR.rglob("*.py")):
        for _line, text in sorted(marked_strings(path)):
            seen.setdefault(text)
    return list(seen)


def core_messages_source(folder: Path) -> Path:
    """A Python file in `folder` lupdate reads: one QT_TRANSLATE_NOOP(CoreMessages, …) per core message."""
    path = folder / "core_messages.py"
    lines = [f"QT_TRANSLATE_NOOP({json.dumps(CORE_CONTEXT)}, {json.dumps(text, ensure_ascii=False)})" for text in core_messages()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def ts_path(language: str) -> Path:
    return HERE / f"{CATALOGUE}_{language}.ts"


def lupdate(ts: Path, *, keep_obsolete: bool = False) -> None:
    """Collects the strings into `ts` (created when missing), keeping the translations it already has."""
    with tempfile.TemporaryDirectory() as folder:
        command = [tool("pyside6-lupdate"), *source_files(), str(core_messages_source(Path(folder))), "-locations", "none",
                   "-ts", str(ts)]
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
