"""Undo a reply's file changes: every workspace file the reply's `write_file` and `edit_file` calls changed goes back
to what it held before the reply's first change to it (a file the reply created is removed), newest change first.

A reply is the assistant messages after one user message, its tool rounds included (`reply_message_ids`). The changes
are read from the `file_snapshots` table (core.storage.file_snapshots), which the file tools fill as they write. When a
file was changed since the reply wrote it (its hash is no longer the one the tool wrote last), nothing is undone:
`ChangedSinceError` carries a unified diff of what changed since. Undone changes stay marked, so a second undo says
there is nothing to undo."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop_copilot.core.storage.file_snapshots import (
    MAX_SNAPSHOT_BYTES,
    FileSnapshot,
    changed_messages,
    mark_undone,
    snapshots_of,
)
from desktop_copilot.core.words import tr

ASSISTANT = "assistant"
MAX_DIFF_CHARS = 200_000
"""A refusal's diff is cut past this many characters, with a note."""


class UndoError(Exception):
    """Nothing was undone; the message says why."""


class NothingToUndoError(UndoError):
    """The reply changed no files, or its changes were undone already."""


class ChangedSinceError(UndoError):
    """Files were changed after the reply wrote them: undoing would lose those changes, so nothing was undone."""

    def __init__(self, names: list[str], diff: str) -> None:
        one = len(names) == 1
        words = (tr("Nothing was undone: {names} was changed after this reply wrote it; undoing would lose those changes.")
                 if one else
                 tr("Nothing was undone: {names} were changed after this reply wrote them; undoing would lose those changes."))
        super().__init__(words.format(names=", ".join(names)))
        self.names = names
        self.diff = diff


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A file a reply changed, as undo would restore it."""

    path: str
    name: str
    created: bool
    """It did not exist before the reply: undo removes it."""
    restorable: bool
    """False: it was larger than MAX_SNAPSHOT_BYTES when the reply changed it, so its content before was not kept."""
    changes: int
    """How many of the reply's calls changed it."""

    @property
    def shown(self) -> str:
        return self.name or self.path


@dataclass(frozen=True, slots=True)
class UndoResult:
    restored: list[ChangedFile]
    """Restored (an edited file) or removed (a created one), newest change first."""
    not_restored: list[ChangedFile]
    """Too large to have been kept: left as they are."""


def reply_message_ids(messages: Sequence[tuple[str, str]], message_id: str) -> list[str]:
    """The ids of the reply `message_id` belongs to: the assistant messages around it up to the user messages on either
    side. `messages`: (id, role) of the conversation's messages in order (MessageSummary fits). A message not among
    them (an earlier version's) is a reply of its own."""
    ids = [m[0] for m in messages]
    if message_id not in ids:
        return [message_id]
    first = last = ids.index(message_id)
    while first > 0 and messages[first - 1][1] == ASSISTANT:
        first -= 1
    while last + 1 < len(messages) and messages[last + 1][1] == ASSISTANT:
        last += 1
    return ids[first : last + 1]


def last_changing_reply(db: sqlite3.Connection, conversation_id: str, messages: Sequence[tuple[str, str]]) -> list[str]:
    """The message ids of the conversation's last reply that changed files (undone or not); NothingToUndoError when
    none did."""
    changed = changed_messages(db, conversation_id)
    if not changed:
        raise NothingToUndoError(tr("No reply in this conversation changed files."))
    return reply_message_ids(messages, changed[-1])


def reply_files(db: sqlite3.Connection, conversation_id: str, message_ids: Sequence[str]) -> list[ChangedFile]:
    """The files the reply changed that are not undone yet, newest change first (empty: nothing to undo)."""
    return [_changed_file(changes) for changes in _by_file(snapshots_of(db, conversation_id, message_ids, pending=True))]


def check_undoable(db: sqlite3.Connection, conversation_id: str, message_ids: Sequence[str]) -> list[ChangedFile]:
    """What `undo_reply` would restore, checked as it checks first (before asking the user): NothingToUndoError, or
    ChangedSinceError with the diff."""
    groups = _pending_groups(db, conversation_id, message_ids)
    _refuse_changed_since(groups)
    return [_changed_file(changes) for changes in groups]


def undo_reply(db: sqlite3.Connection, conversation_id: str, message_ids: Sequence[str]) -> UndoResult:
    """Restore every file the reply changed to its state before the reply's first change to it, newest change first.
    NothingToUndoError when there is nothing (left) to undo; ChangedSinceError, changing nothing, when a file was
    changed after the reply wrote it; OSError when a file cannot be written or removed (the files restored before it
    stay restored and are marked so; undo again to go on)."""
    groups = _pending_groups(db, conversation_id, message_ids)
    _refuse_changed_since(groups)
    restored, not_restored = [], []
    for changes in groups:
        file = _changed_file(changes)
        if file.restorable:
            _restore(changes[0])
            restored.append(file)
        else:
            not_restored.append(file)
        mark_undone(db, [change.id for change in changes])
    return UndoResult(restored, not_restored)


def changed_since_diff(last_changes: Sequence[FileSnapshot]) -> str:
    """A unified diff, file by file, from what each change wrote to what the file holds now."""
    parts = [_diff_of(change) for change in last_changes]
    diff = "".join(parts)
    if len(diff) > MAX_DIFF_CHARS:
        cut = diff[:MAX_DIFF_CHARS].rsplit("\n", 1)[0]
        return f"{cut}\n… (diff cut: {len(diff) - len(cut):,} more characters not shown)\n"
    return diff


# --- helpers ---------------------------------------------------------------------------------------------------------


def _pending_groups(db: sqlite3.Connection, conversation_id: str, message_ids: Sequence[str]) -> list[list[FileSnapshot]]:
    groups = _by_file(snapshots_of(db, conversation_id, message_ids, pending=True))
    if not groups:
        raise _nothing_to_undo(db, conversation_id, message_ids)
    return groups


def _refuse_changed_since(groups: list[list[FileSnapshot]]) -> None:
    """ChangedSinceError when a file's hash is no longer the one the reply's last change to it wrote."""
    changed = [changes[-1] for changes in groups if _current_hash(Path(changes[-1].path)) != changes[-1].after_hash]
    if changed:
        raise ChangedSinceError([last.name or last.path for last in changed], changed_since_diff(changed))


def _nothing_to_undo(db: sqlite3.Connection, conversation_id: str, message_ids: Sequence[str]) -> NothingToUndoError:
    undone = snapshots_of(db, conversation_id, message_ids)
    return NothingToUndoError(tr("This reply's file changes were undone already.") if undone else tr("This reply changed no files."))


def _by_file(snapshots: list[FileSnapshot]) -> list[list[FileSnapshot]]:
    """The changes grouped by file, each group oldest first, the groups by their newest change, newest first."""
    groups: dict[str, list[FileSnapshot]] = {}
    for snapshot in snapshots:  # oldest first
        groups.setdefault(snapshot.path, []).append(snapshot)
    return sorted(groups.values(), key=lambda changes: changes[-1].id, reverse=True)


def _changed_file(changes: list[FileSnapshot]) -> ChangedFile:
    first = changes[0]
    return ChangedFile(path=first.path, name=changes[-1].name or first.name, created=not first.existed,
                       restorable=not first.existed or (first.before is not None and not first.too_large),
                       changes=len(changes))


def _current_hash(path: Path) -> str | None:
    """The SHA-256 of the file now; None when it is gone or is not a regular file."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def _restore(first: FileSnapshot) -> None:
    """Put back what the file held before `first` (the reply's first change to it): remove it if it did not exist."""
    from desktop_copilot.core.tools.workspace import write_bytes  # the file tools' atomic write, keeping the mode

    path = Path(first.path)
    if not first.existed:
        path.unlink(missing_ok=True)
        return
    assert first.before is not None
    write_bytes(path, first.before)


def _diff_of(last: FileSnapshot) -> str:
    name = last.name or last.path
    path = Path(last.path)
    try:
        now = path.read_bytes() if path.is_file() and path.stat().st_size <= MAX_SNAPSHOT_BYTES else None
        large = now is None and path.is_file()
    except OSError:
        now, large = None, False
    if large:
        return tr("{name}: changed since the reply wrote it (larger than {size} MB; not shown).").format(
            name=name, size=MAX_SNAPSHOT_BYTES // (1024 * 1024)) + "\n"
    if last.after is None:
        words = (tr("{name}: removed since the reply wrote it (what the reply wrote was too large to keep; not shown).")
                 if now is None else
                 tr("{name}: changed since the reply wrote it (what the reply wrote was too large to keep; not shown)."))
        return words.format(name=name) + "\n"
    return _unified(name, last.after, b"" if now is None else now, gone=now is None)


def _unified(name: str, then: bytes, now: bytes, *, gone: bool = False) -> str:
    if b"\x00" in then[:8192] or b"\x00" in now[:8192]:
        return tr("{name}: binary content changed since the reply wrote it.").format(name=name) + "\n"
    import difflib  # loaded when a diff is shown, not with the window

    lines = difflib.unified_diff(
        then.decode("utf-8", errors="replace").splitlines(keepends=True),
        now.decode("utf-8", errors="replace").splitlines(keepends=True),
        fromfile=f"{name} (as the reply left it)", tofile="/dev/null (removed since)" if gone else f"{name} (now)",
    )
    diff = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return diff or tr("{name}: changed since the reply wrote it (the same text, other bytes: line endings or "
                      "encoding).").format(name=name) + "\n"
