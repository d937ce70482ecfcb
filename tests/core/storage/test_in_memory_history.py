"""A database file SQLite can read but not open for writing at start: the store kept in memory starts with what the
file holds (real SQLite files; the memory database is SQLite's memdb), the user reads, searches and continues it, and
once the file opens what changed in memory (new conversations and messages, messages added to old conversations,
edits, deletions, compactions, file snapshots and undos, search rows) is written into it beside what the file gained
meanwhile, nothing twice and nothing lost. Where a file system can be mounted (root), a real read-only folder and a
really full disk; else, for a user, a folder without write permission."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from desktop_copilot.core.bootstrap import open_store
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.conversation.models import Compaction, Conversation, Message, MessageStatus, Role, TextBlock
from desktop_copilot.core.storage.file_snapshots import FileState, SnapshotRecorder, mark_undone, snapshots_of
from desktop_copilot.core.storage.in_memory import Unopened
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.storage.versions import TailArchive


def _say(store: Store, conversation: Conversation, text: str, role: Role = Role.USER,
         status: MessageStatus = MessageStatus.COMPLETED) -> Message:
    message = Message(role=role, status=status, blocks=[TextBlock(text=text)])
    conversation.messages.append(message)
    store.save_message(conversation.id, len(conversation.messages) - 1, message)
    return message


def _start(store: Store, title: str, *texts: str) -> Conversation:
    conversation = Conversation(title=title)
    store.save_conversation(conversation)
    for i, text in enumerate(texts):
        _say(store, conversation, text, Role.USER if i % 2 == 0 else Role.ASSISTANT)
    return conversation


def _file(path: Path) -> dict:
    """What another process reads from the file: checked whole, titles, each conversation's message texts in order,
    the search rows and the file snapshots."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        titles = dict(db.execute("SELECT id, title FROM conversations"))
        texts: dict[str, list[str]] = {}
        for conversation_id, blocks in db.execute("SELECT conversation_id, blocks FROM messages ORDER BY conversation_id, seq"):
            texts.setdefault(conversation_id, []).append("".join(b.get("text", "") for b in json.loads(blocks)))
        search = sorted(db.execute("SELECT conversation_id, message_id FROM search_keys"))
        indexed = db.execute("SELECT COUNT(*) FROM search_index").fetchone()[0]
        snapshots = db.execute("SELECT conversation_id, name, undone_at IS NOT NULL, before_bytes FROM file_snapshots ORDER BY id").fetchall()
    db.close()
    assert len(search) == len(set(search)) == indexed  # one search row per key, none left without its key
    return {"titles": titles, "texts": texts, "search": search, "snapshots": snapshots}


def _snapshot(path: Path, conversation: Conversation, message: Message, name: str, before: bytes) -> bool:
    return SnapshotRecorder(path).record(conversation_id=conversation.id, message_id=message.id, tool_call_id="toolu_1",
                                         path=Path("/ws") / name, name=name, before=FileState(True, before),
                                         after=before + b" changed")


def test_the_history_is_shown_continued_and_merged_into_the_file_with_what_it_gained_meanwhile(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    seed = Store(path)
    kept = _start(seed, "Typhoon signal", "Is the typhoon signal up?", "Signal 8 until noon.")
    _snapshot(path, kept, kept.messages[1], "plan.txt", b"office")
    edited = _start(seed, "Ferry times", "When is the last ferry?", "At 23:30.")
    crashed = _start(seed, "Cut off", "Tell me a long story")
    _say(seed, crashed, "Once upon", Role.ASSISTANT, MessageStatus.STREAMING)  # the app crashed while it streamed
    gone = _start(seed, "To delete", "something private")
    renamed = _start(seed, "Untitled", "the dim sum list")
    seed.close()

    store = Store.in_memory(path, Unopened("read_only", "attempt to write a readonly database", tmp_path))
    try:
        assert store.history_shown is True
        assert {c.title for c in store.list_conversations()} == {"Typhoon signal", "Ferry times", "Cut off", "To delete",
                                                                "Untitled"}
        assert [hit.conversation_id for hit in store.search("typhoon")] and store.search("dim sum")
        assert [m.text for m in store.load_conversation(kept.id).messages] == ["Is the typhoon signal up?",
                                                                              "Signal 8 until noon."]
        assert store.mark_unfinished_interrupted() == 1  # in memory; written to the file with the rest

        _say(store, kept, "And the MTR?")  # an old conversation goes on
        reply = _say(store, kept, "The MTR", Role.ASSISTANT, MessageStatus.STREAMING)
        for text, status in (("The MTR", MessageStatus.STREAMING), ("The MTR runs.", MessageStatus.COMPLETED)):
            reply.blocks, reply.status = [TextBlock(text=text)], status  # saved again and again as it streams
            store.save_message(kept.id, 3, reply, background=True)
        store.save_conversation(kept)  # and its header again
        store.save_conversation(kept)
        _snapshot(path, kept, reply, "route.txt", b"bus")  # taken in memory (the file cannot be written)
        db = store.connection
        mark_undone(db, [s.id for s in snapshots_of(db, kept.id, [kept.messages[1].id])])  # undone in memory
        store.save_compaction(kept.id, 0, Compaction(first_message_id=kept.messages[0].id,
                                                     last_message_id=kept.messages[1].id, kind="summary",
                                                     summary="typhoon talk"))
        TailArchive(store).archive(edited.id, 1, edited.messages[1:])  # regenerated: the old reply kept as a version
        edited.messages[1:] = []
        _say(store, edited, "The last ferry leaves at 23:30 from Central.", Role.ASSISTANT)
        store.delete_conversation(gone.id)
        renamed.title = "Dim sum"
        store.save_conversation(renamed)
        new = _start(store, "Written in memory", "new while read-only")

        other = Store(path)  # meanwhile another process (`ask`) writes to the file, which it can open
        elsewhere = _start(other, "From ask", "asked on the command line")
        other.save_message(kept.id, 2, Message.user("ask added this"))  # `ask --continue` on what the file held
        other.close()

        assert store.save_to_disk() and store.unopened is None
    finally:
        store.close()

    disk = _file(path)
    assert disk["titles"] == {kept.id: "Typhoon signal", edited.id: "Ferry times", crashed.id: "Cut off",
                              renamed.id: "Dim sum", new.id: "Written in memory", elsewhere.id: "From ask"}
    assert sorted(disk["texts"][kept.id]) == sorted(["Is the typhoon signal up?", "Signal 8 until noon.",
                                                     "And the MTR?", "The MTR runs.", "ask added this"])
    assert disk["texts"][edited.id] == ["When is the last ferry?", "The last ferry leaves at 23:30 from Central."]
    assert disk["texts"][new.id] == ["new while read-only"] and gone.id not in disk["texts"]
    assert [(c, name, undone, before) for c, name, undone, before in disk["snapshots"]] == [
        (kept.id, "plan.txt", 1, None), (kept.id, "route.txt", 0, b"bus")]
    assert not any(key[0] == gone.id for key in disk["search"])

    store = Store(path)  # what the file says now, through the store
    try:
        loaded = store.load_conversation(crashed.id)
        assert loaded.messages[-1].status is MessageStatus.INTERRUPTED
        assert [c.summary for c in store.load_conversation_header(kept.id).compactions] == ["typhoon talk"]
        assert TailArchive(store).tails(edited.id)[0].messages[0].text == "At 23:30."
        assert store.search("MTR") and store.search("Central") and store.search("ask added")
        assert not store.search("private") and store.search("Dim sum")[0].conversation_id == renamed.id
        assert store.search("23:30")  # the earlier version's text is still found
    finally:
        store.close()


def test_saving_twice_or_with_nothing_changed_writes_nothing_twice(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    seed = Store(path)
    old = _start(seed, "Old", "from before")
    seed.close()
    before = _file(path)
    store = Store.in_memory(path, Unopened("full", "database or disk is full", tmp_path))
    try:
        assert store.save_to_disk() and store.save_to_disk()
    finally:
        store.close()
    assert _file(path) == before and before["texts"] == {old.id: ["from before"]}


def test_a_damaged_file_shows_nothing_and_is_left_as_it_is(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    path.write_bytes(b"not a database at all" * 200)
    store = Store.in_memory(path, Unopened("damaged", "could not be moved aside", tmp_path))
    try:
        assert store.history_shown is False and store.list_conversations() == []
    finally:
        store.close()
    assert path.read_bytes() == b"not a database at all" * 200


def test_a_file_of_a_newer_version_is_not_read(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version=999")
    db.close()
    store = Store.in_memory(path, Unopened("io", "newer", tmp_path))
    try:
        assert store.history_shown is False and store.list_conversations() == []
    finally:
        store.close()


def test_a_file_damaged_after_it_was_read_is_moved_aside_and_the_new_one_gets_everything_memory_holds(tmp_path):
    path = tmp_path / "conversations.sqlite3"
    seed = Store(path)
    old = _start(seed, "Old", "from before")
    seed.close()
    store = Store.in_memory(path, Unopened("read_only", "attempt to write a readonly database", tmp_path))
    try:
        new = _start(store, "New", "written in memory")
        path.write_bytes(b"damaged meanwhile" * 300)
        assert store.save_to_disk()
    finally:
        store.close()
    assert _file(path)["texts"] == {old.id: ["from before"], new.id: ["written in memory"]}
    assert [p.name for p in tmp_path.iterdir() if ".damaged-" in p.name]


# --- a real read-only folder and a really full disk -------------------------------------------------------------------


def _mount(folder: Path, options: str) -> bool:
    if sys.platform != "linux" or os.geteuid() != 0:
        return False
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, f"dc-{uuid.uuid4().hex[:8]}", str(folder)],
                          capture_output=True, check=False)
    return done.returncode == 0


class DataFolder:
    """The data folder on a file system of its own (root), or a folder whose write permission is taken (a user)."""

    def __init__(self, folder: Path, mounted: bool) -> None:
        self.folder, self.mounted = folder, mounted

    def read_only(self, on: bool) -> None:
        if self.mounted:
            subprocess.run(["mount", "-o", f"remount,{'ro' if on else 'rw'}", str(self.folder)], check=True)
        else:
            self.folder.chmod(0o555 if on else 0o755)


@pytest.fixture
def data_folder(tmp_path):
    folder = tmp_path / "data"
    mounted = _mount(folder, "size=8m")
    if not mounted and os.geteuid() == 0:
        pytest.skip("root ignores permissions and no file system can be mounted here")
    folder.mkdir(exist_ok=True)
    yield DataFolder(folder, mounted)
    if mounted:
        subprocess.run(["umount", "-l", str(folder)], check=False)
    else:
        folder.chmod(0o755)


def _paths(tmp_path: Path, data: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", data, tmp_path / "logs").ensure()


def test_a_read_only_data_folder_shows_the_history_and_takes_what_was_written_once_writable(tmp_path, data_folder):
    paths = _paths(tmp_path, data_folder.folder)
    seed = Store(paths.database)
    old = _start(seed, "Typhoon signal", "Is the typhoon signal up?", "Signal 8 until noon.")
    seed.close()
    data_folder.read_only(True)

    store = open_store(paths)  # the real start path
    try:
        assert store.unopened.kind == "read_only" and store.history_shown is True
        assert [c.title for c in store.list_conversations()] == ["Typhoon signal"] and store.search("typhoon")
        _say(store, old, "And the MTR?")
        new = _start(store, "Written in memory", "new while read-only")
        assert store.save_to_disk() is False and store.unopened.kind == "read_only"
        assert sorted(p.name for p in data_folder.folder.iterdir()) == ["conversations.sqlite3"]  # left as it was

        data_folder.read_only(False)
        assert store.save_to_disk() is True
        _say(store, new, "written to the file")
    finally:
        store.close()
    disk = _file(paths.database)
    assert disk["texts"] == {old.id: ["Is the typhoon signal up?", "Signal 8 until noon.", "And the MTR?"],
                             new.id: ["new while read-only", "written to the file"]}


def test_a_full_disk_at_start_keeps_the_file_where_it_is_and_shows_it(tmp_path):
    folder = tmp_path / "data"
    if not _mount(folder, "size=1m"):
        pytest.skip("no tmpfs can be mounted here (needs root and CAP_SYS_ADMIN)")
    try:
        paths = _paths(tmp_path, folder)
        seed = Store(paths.database)
        old = _start(seed, "Before the disk filled", "hello")
        seed.close()
        ballast = folder / "ballast"
        with open(ballast, "wb", buffering=0) as handle:  # the file system to its last block
            try:
                while True:
                    handle.write(b"\0" * 4096)
            except OSError:
                pass

        store = open_store(paths)
        try:
            assert store.unopened.kind == "full" and store.history_shown is True
            assert not [p for p in folder.iterdir() if ".damaged-" in p.name]  # a healthy file is not moved aside
            _say(store, old, "written while full")
            ballast.unlink()
            assert store.save_to_disk() is True
        finally:
            store.close()
        assert _file(paths.database)["texts"] == {old.id: ["hello", "written while full"]}
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
