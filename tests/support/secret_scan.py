"""Looks for secrets where none may be: every file under a folder in every form a secret could be written in (raw,
UTF-16/32, base64 and URL-safe base64 at each byte alignment, URL-encoded, JSON-escaped, hex), the cells of every
SQLite database found there read through SQLite (its WAL included; a long value split over overflow pages whole
again; blobs as hex), and texts such as reprs or messages."""

from __future__ import annotations

import base64
import json
import math
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import quote, quote_plus

SQLITE_HEADER = b"SQLite format 3\x00"


def _base64_pieces(raw: bytes, encode) -> dict[str, bytes]:
    """The base64 characters that depend on `raw` alone, for each of the three alignments `raw` can have inside
    a longer encoded text (so a secret in the middle of an encoded blob is found too)."""
    pieces = {}
    for shift in range(3):
        encoded = encode(b"\x00" * shift + raw)
        start, end = math.ceil(8 * shift / 6), (8 * (shift + len(raw))) // 6
        pieces[f"+{shift}"] = encoded[start:end]
    return pieces


def secret_forms(value: str) -> dict[str, bytes]:
    """Each way `value` could be written to a file, by name."""
    raw = value.encode()
    forms = {"raw": raw, "utf-16-le": value.encode("utf-16-le"), "utf-16-be": value.encode("utf-16-be"),
             "utf-32-le": value.encode("utf-32-le"), "hex": raw.hex().encode(), "HEX": raw.hex().upper().encode(),
             "utf-16-le hex": value.encode("utf-16-le").hex().upper().encode(),
             "utf-16-be hex": value.encode("utf-16-be").hex().upper().encode(),
             "url-encoded": quote(value, safe="").encode(), "url-encoded-path": quote(value).encode(),
             "form-encoded": quote_plus(value).encode(),
             "json-escaped": json.dumps(value)[1:-1].encode(), "json-ascii": json.dumps(value, ensure_ascii=True)[1:-1].encode()}
    for alignment, piece in _base64_pieces(raw, base64.b64encode).items():
        forms[f"base64{alignment}"] = piece
    for alignment, piece in _base64_pieces(raw, base64.urlsafe_b64encode).items():
        forms[f"urlsafe-base64{alignment}"] = piece
    return forms


def files_under(*roots: Path) -> list[Path]:
    return sorted({p for root in roots if root.exists() for p in root.rglob("*") if p.is_file()})


def sqlite_cells(path: Path) -> str:
    """Every schema statement and every cell of the database at `path`, read through SQLite (so what sits only in
    the WAL counts) as SQL text; blobs appear as X'hex'. Opened read-only: the app may hold the file."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return "\n".join(db.iterdump())


def _contents(path: Path) -> list[tuple[str, bytes]]:
    """The file's bytes, and for an SQLite database also its cells as SQLite reads them."""
    data = path.read_bytes()
    found = [("file", data)]
    if data.startswith(SQLITE_HEADER):
        found.append(("sqlite cells", sqlite_cells(path).encode()))
    return found


def forms_in(data: bytes, value: str) -> list[str]:
    return [name for name, needle in secret_forms(value).items() if needle in data]


def leaks_in_files(secrets: Mapping[str, str], *roots: Path, files: Iterable[Path] = ()) -> list[str]:
    """"<secret name> in <file> (<how>: <forms>)" for every secret found in a file under `roots` or in `files`."""
    leaks = []
    for path in sorted({*files_under(*roots), *files}):
        for how, data in _contents(path):
            for name, value in secrets.items():
                if forms := forms_in(data, value):
                    leaks.append(f"{name} in {path} ({how}: {', '.join(forms)})")
    return leaks


def leaks_in_texts(secrets: Mapping[str, str], texts: Mapping[str, str]) -> list[str]:
    """"<secret name> in <text name> (<forms>)" for every secret found in one of `texts` (reprs, messages, output)."""
    return [f"{name} in {label} ({', '.join(forms)})" for label, text in texts.items() for name, value in secrets.items()
            if (forms := forms_in(text.encode("utf-8", "surrogatepass"), value))]
