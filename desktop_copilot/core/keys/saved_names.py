"""The names of the keys the keyring holds as this app last saw it (never a value), in `key_names.json` beside the
settings: what lets a process learn that a key is not in the keyring without opening it (keyring, secretstorage and
cryptography, 50-100 ms and ~10 MB). Kept true by the app's own writes and reads of the keyring and by the child
process that lists the keys at each window start; with no record, the keyring is asked."""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from pathlib import Path

log = logging.getLogger(__name__)

class SavedNames:
    """The record in one file (`path`): the names the keyring holds, and the names whose state is known (seen held or
    not held); a problem reading or writing it makes it unknown, never an error."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def read(self) -> tuple[frozenset[str], frozenset[str]] | None:
        """(the names the keyring holds, the names known either way), or None when there is no readable record."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            held = frozenset(str(name) for name in data["in_keyring"])
            return held, held | frozenset(str(name) for name in data["known"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def none_held(self, names: list[str] | set[str]) -> bool:
        """Whether the record knows each of `names` and that the keyring holds none of them."""
        record = self.read()
        return record is not None and set(names) <= record[1] and not set(names) & record[0]

    def note(self, name: str, in_keyring: bool) -> None:
        """The keyring holds `name` now (or not)."""
        self.learn({name} if in_keyring else set(), {name})

    def learn(self, held: set[str] | frozenset[str], asked: set[str] | frozenset[str]) -> None:
        """Of the names `asked`, the keyring holds `held` (a listing, or one read or write)."""
        with self._lock:
            record = self.read()
            before_held, before_known = record if record is not None else (frozenset(), frozenset())
            now_held = (before_held - set(asked)) | set(held)
            now_known = before_known | set(asked)
            if record is None or (now_held, now_known) != (before_held, before_known):
                self._write(now_held, now_known)

    def _write(self, held: frozenset[str], known: frozenset[str]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".key_names-", dir=self.path.parent)
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({"in_keyring": sorted(held), "known": sorted(known - held)}, out)
            os.replace(temporary, self.path)
        except OSError as exc:
            log.info("the record of key names was not written (%s): the keyring will be asked", exc)
            try:
                self.path.unlink(missing_ok=True)  # an old record must not stand
            except OSError:
                pass

    def __repr__(self) -> str:
        return f"SavedNames({self.path})"
