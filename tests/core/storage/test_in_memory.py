"""A database file that cannot be opened or created at start: the store is kept in memory (real SQLite, memdb) and
says why; once the file opens, what was written is copied into it, beside what it already holds, and the store goes
on with the file. The unusable folder is a real condition even for root: a regular file where the data folder goes."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from desktop_copilot.core.bootstrap import open_store, unsaved_warning
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Role, TextBlock
from desktop_copilot.core.storage.in_memory import TRACKED, TRACKING, Unopened, unopened
from desktop_copilot.core.storage.memory_merge import COPIED
from desktop_copilot.core.storage.store import Store


def _paths(tmp_path: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")


def _write(store: Store, title: str, text: str) -> Conversation:
    conversation = Conversation(title=title)
    store.save_conversation(conversation)
    store.save_message(conversation.id, 0, Message(role=Role.USER, status=MessageStatus.COMPLETED,
                                                   blocks=[TextBlock(text=text)]))
    return conversation


def _rows(path: Path, query: str) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute(query).fetchall()
    db.close()
    return rows


def test_a_file_where_the_data_folder_goes_keeps_the_store_in_memory_until_the_folder_can_be_made(tmp_path):
    paths = _paths(tmp_path)
    paths.data_dir.write_text("in the way")
    paths.ensure()  # the other folders are made; the data folder cannot be
    store = open_store(paths)
    try:
        assert store.unopened == Unopened("not_a_folder", "File exists", paths.data_dir)
        assert "is not saved" in unsaved_warning(store)
        kept = _write(store, "Typhoon signal", "Is the typhoon signal up?")
        assert store.search("typhoon") and [c.title for c in store.list_conversations()] == ["Typhoon signal"]
        assert store.save_to_disk() is False and store.unopened.kind == "not_a_folder"  # still in the way
        assert store.load_conversation(kept.id).messages[0].text == "Is the typhoon signal up?"

        paths.data_dir.unlink()  # the user moves the file away
        assert store.save_to_disk() is True and store.unopened is None and unsaved_warning(store) is None
        assert _rows(paths.database, "SELECT title FROM conversations") == [("Typhoon signal",)]
        assert len(_rows(paths.database, "SELECT id FROM messages")) == 1
        assert len(store.search("typhoon")) == 2  # the title's and the message's search rows came along
        _write(store, "Afterwards", "written to the file")
        store.close()
        assert sorted(_rows(paths.database, "SELECT title FROM conversations")) == [("Afterwards",), ("Typhoon signal",)]
    finally:
        store.close()


def test_a_file_made_meanwhile_keeps_its_conversations_and_gains_the_ones_written_in_memory(tmp_path):
    """The file appeared after the start (`ask` made it): what it holds was never read into memory, so a conversation
    of the same id in memory does not replace it."""
    path = tmp_path / "conversations.sqlite3"
    store = Store.in_memory(path, Unopened("read_only", "attempt to write a readonly database", tmp_path))
    assert store.history_shown is None  # no file to read at start
    on_disk = Store(path)
    old = _write(on_disk, "Old", "from before")
    on_disk.close()
    try:
        clash = Conversation(id=old.id, title="Not to clobber the file's")
        store.save_conversation(clash)
        new = _write(store, "New", "written in memory")
        assert store.save_to_disk()
        assert sorted(_rows(path, "SELECT id, title FROM conversations")) == sorted([(old.id, "Old"), (new.id, "New")])
        assert [c.title for c in store.list_conversations()] == ["New", "Old"]
        assert store.load_conversation(old.id).messages[0].text == "from before"
    finally:
        store.close()


def test_every_table_of_the_schema_is_copied(tmp_path):
    store = Store.in_memory(tmp_path / "c.sqlite3", Unopened("io", "test", tmp_path))
    try:
        tables = {row[0] for row in store.connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        store.close()
    searched = {"search_keys", "search_index"}
    shadow = {name for name in tables if name.startswith("search_index_")}
    assert tables - shadow - searched - set(TRACKING) == set(COPIED)  # a new table must be copied too (memory_merge.py)
    assert set(TRACKED) == set(COPIED) - {"search_pending"} | {"search_keys"}  # and its changes kept (in_memory.py)


def test_a_damaged_file_that_cannot_be_moved_aside_is_moved_once_it_can(tmp_path, monkeypatch):
    paths = _paths(tmp_path)
    paths.ensure()
    paths.database.write_bytes(b"not a database at all" * 200)
    rename = Path.rename

    def refused(self, target):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "rename", refused)  # root renames anything: the folder's refusal is simulated
    store = open_store(paths)
    try:
        assert store.unopened.kind == "damaged" and "could not be moved aside" in store.unopened.detail
        _write(store, "Meanwhile", "kept in memory")
        assert store.save_to_disk() is False and store.unopened.kind == "damaged"
        monkeypatch.setattr(Path, "rename", rename)
        assert store.save_to_disk()
        assert _rows(paths.database, "SELECT title FROM conversations") == [("Meanwhile",)]
        assert [p.name for p in paths.data_dir.iterdir() if ".damaged-" in p.name]
    finally:
        store.close()


@pytest.mark.parametrize(("error", "kind"), [
    (OSError(errno.EROFS, "Read-only file system"), "read_only"),
    (PermissionError(errno.EACCES, "Permission denied"), "read_only"),
    (OSError(errno.ENOSPC, "No space left on device"), "full"),
    (sqlite3.OperationalError("database or disk is full"), "full"),
    (sqlite3.OperationalError("attempt to write a readonly database"), "read_only"),
    (sqlite3.DatabaseError("file is not a database"), "damaged"),
    (sqlite3.OperationalError("unable to open database file"), "io"),
])
def test_what_kept_the_file_from_opening_is_named(tmp_path, error, kind):
    assert unopened(tmp_path / "c.sqlite3", error).kind == kind
