"""A disk that refuses writes, made real on a real SQLite file: `max_page_count` at the file's size gives SQLite's own
SQLITE_FULL ("database or disk is full"), `query_only` its SQLITE_READONLY (root ignores file modes, so chmod would
prove nothing here), and where a tmpfs can be mounted, a file system that is really full (ENOSPC). The reply stays
readable from the store, is written once the disk takes it (by the writer's retries, a new write, or close), the file
passes `PRAGMA integrity_check`, and nothing raises to the caller."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.bootstrap import open_store
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, TextBlock
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.storage.debug_pragmas import PRAGMAS_ENV, debug_pragmas
from desktop_copilot.core.storage.health import StorageUnavailableError, storage_problem
from desktop_copilot.core.storage.recorder import StoreRecorder
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.storage.versions import TailArchive

NO_LIMIT = 1_073_741_823
LONG_REPLY = "".join(f"line {i:05d}: the disk filled up while this reply streamed.\n" for i in range(3000))


def fill_disk(store: Store) -> None:
    """The file can no longer grow, for every connection the store has or opens (a real SQLite limit)."""
    store.pragmas = ["max_page_count=1"]  # clamped by SQLite to the file's current size
    store.archive_connection.execute("PRAGMA max_page_count=1")


def free_disk(store: Store) -> None:
    store.pragmas = []
    store.archive_connection.execute(f"PRAGMA max_page_count={NO_LIMIT}")


def on_disk(path: Path) -> dict:
    """What another process would read from the file: its health, titles and messages' texts by id."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        titles = {row[0]: row[1] for row in db.execute("SELECT id, title FROM conversations")}
        messages = {row[0]: row[1] for row in db.execute("SELECT id, blocks FROM messages")}
    db.close()
    return {"integrity": integrity, "titles": titles, "messages": messages}


def stream_reply(store: Store, conversation: Conversation, text: str) -> Message:
    """A reply streamed through the recorder as the agent loop does it (rows written on the writer thread)."""
    recorder = StoreRecorder(store, conversation)
    reply = Message.assistant("m")
    conversation.messages.append(reply)
    recorder.record(ev.MessageCreated(message=reply, message_id=reply.id))
    events = [ev.Start(model="m"), ev.TextStart(index=0)]
    events += [ev.TextDelta(index=0, text=text[i : i + 4096]) for i in range(0, len(text), 4096)]
    events += [ev.TextEnd(index=0), ev.Done(reason="end_turn")]
    for event in events:
        event.message_id = reply.id
        accumulate(reply, event)
        recorder.record(event)
    recorder.flush()
    return reply


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "c.sqlite3")
    store.writer.retry_interval = store.indexer.retry_interval = 0.1
    yield store
    store.close()


def test_sqlite_own_errors_are_told_apart_from_bugs(tmp_path):
    db = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
    db.execute("CREATE TABLE t (x TEXT NOT NULL)")
    db.execute("PRAGMA max_page_count=1")
    with pytest.raises(sqlite3.OperationalError) as full:
        db.execute("INSERT INTO t VALUES (?)", ("x" * 100_000,))
    with pytest.raises(sqlite3.IntegrityError) as constraint:
        db.execute("INSERT INTO t VALUES (NULL)")
    db.execute("PRAGMA query_only=ON")
    with pytest.raises(sqlite3.OperationalError) as read_only:
        db.execute("INSERT INTO t VALUES ('y')")
    db.close()
    assert storage_problem(full.value).kind == "full" and "full" in storage_problem(full.value).detail
    assert storage_problem(read_only.value).kind == "read_only"
    assert storage_problem(constraint.value) is None and storage_problem(ValueError("x")) is None


def test_a_full_disk_keeps_the_reply_readable_and_writes_it_once_there_is_room(store):
    heard = []
    store.health.subscribe(heard.append)
    conversation = Conversation(title="before", messages=[Message.user("hello")])
    store.save_conversation(conversation)
    store.save_message(conversation.id, 0, conversation.messages[0])
    fill_disk(store)

    reply = stream_reply(store, conversation, LONG_REPLY)  # nothing raises
    store.writer.wait(10)

    assert store.health.problem is not None and store.health.problem.kind == "full"
    assert [problem.kind for problem in heard] == ["full"]
    last_line = LONG_REPLY.splitlines()[-1]
    assert last_line not in on_disk(store.path)["messages"].get(reply.id, "")  # at most its start is on disk
    assert on_disk(store.path)["integrity"] == "ok"
    # what the app reads back while the disk is full: the reply, whole, in its place
    loaded = store.load_conversation(conversation.id)
    assert [m.id for m in loaded.messages] == [conversation.messages[0].id, reply.id]
    assert loaded.messages[1].text == LONG_REPLY and loaded.messages[1].status is MessageStatus.COMPLETED
    assert [s.id for s in store.message_index(conversation.id)] == [m.id for m in loaded.messages]
    sizes_while_full = [s.size for s in store.message_index(conversation.id)]  # the reply's from its unwritten row
    assert store.load_messages([reply.id])[0].text == LONG_REPLY
    conversation.title = "renamed while full"
    store.save_conversation(conversation)  # small: fits in the pages the file has, or waits behind the reply
    assert store.load_conversation_header(conversation.id).title == "renamed while full"

    free_disk(store)
    assert store.retry_unwritten(10)
    assert store.health.problem is None and heard[-1] is None
    assert [s.size for s in store.message_index(conversation.id)] == sizes_while_full  # now read from the file
    disk = on_disk(store.path)
    assert disk["integrity"] == "ok" and disk["titles"][conversation.id] == "renamed while full"
    assert last_line in disk["messages"][reply.id]
    assert store.wait_for_index(10) and any(hit.message_id == reply.id for hit in store.search("line 02999"))


def test_the_writer_retries_by_itself_when_space_comes_back(store):
    conversation = Conversation(title="t", messages=[Message.user("hello")])
    store.save_conversation(conversation)
    fill_disk(store)
    reply = stream_reply(store, conversation, LONG_REPLY)
    store.writer.wait(10)
    assert store.writer.held()
    free_disk(store)  # nobody writes or calls retry: the writer's timer does it
    deadline = time.monotonic() + 10
    while store.health.problem is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.health.problem is None and not store.writer.held()
    assert reply.id in on_disk(store.path)["messages"]


def test_close_tries_once_more_and_says_when_rows_are_lost(tmp_path, caplog):
    path = tmp_path / "c.sqlite3"
    store = Store(path)
    store.writer.retry_interval = 3600  # only close retries
    conversation = Conversation(title="t", messages=[Message.user("hello")])
    store.save_conversation(conversation)
    fill_disk(store)
    reply = stream_reply(store, conversation, LONG_REPLY)
    store.writer.wait(10)
    free_disk(store)
    assert store.close() is True
    assert reply.id in on_disk(path)["messages"] and on_disk(path)["integrity"] == "ok"

    store = Store(path)
    store.writer.retry_interval = 3600
    fill_disk(store)
    lost = stream_reply(store, conversation, LONG_REPLY + "more")
    with caplog.at_level(logging.ERROR):
        assert store.close() is False  # still full at close: said, not raised
    assert "could not be done before closing" in caplog.text
    disk = on_disk(path)
    assert "more" not in disk["messages"].get(lost.id, "") and reply.id in disk["messages"] and disk["integrity"] == "ok"


def test_a_deleted_conversation_does_not_come_back_when_the_disk_frees(store):
    conversation = Conversation(title="t", messages=[Message.user("hello")])
    store.save_conversation(conversation)
    fill_disk(store)
    stream_reply(store, conversation, LONG_REPLY)
    store.writer.wait(10)
    store.delete_conversation(conversation.id)  # a delete needs no new page
    free_disk(store)
    store.retry_unwritten(10)
    assert store.load_conversation(conversation.id) is None and on_disk(store.path)["messages"] == {}


def test_keeping_an_earlier_version_on_a_full_disk_fails_whole_and_says_why(store):
    conversation = Conversation(title="t", messages=[Message.user("hello")])
    store.save_conversation(conversation)
    reply = stream_reply(store, conversation, "short")
    store.writer.wait(10)
    fill_disk(store)
    longer = Message.assistant("m")
    longer.blocks = [TextBlock(text=LONG_REPLY)]
    with pytest.raises(StorageUnavailableError):  # a regenerate's first step: keep the reply as an earlier version
        TailArchive(store).archive(conversation.id, 1, [reply, longer])
    assert store.health.problem.kind == "full"
    free_disk(store)
    store.retry_unwritten(10)
    assert reply.id in on_disk(store.path)["messages"] and on_disk(store.path)["integrity"] == "ok"
    assert TailArchive(store).tails(conversation.id) == []


def test_a_write_lock_held_past_busy_timeout_delays_writes_and_loses_none(tmp_path):
    """Another process (`ask`, a second app) holding the write lock longer than SQLite waits: SQLITE_BUSY, and the
    rows wait and are written after it lets go (before, the writer dropped them)."""
    path = tmp_path / "c.sqlite3"
    Store(path).close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    store = Store(path, pragmas=["busy_timeout=50"])
    store.writer.retry_interval = 0.1
    try:
        conversation = Conversation(title="t", messages=[Message.user("hello")])
        store.save_conversation(conversation)
        reply = stream_reply(store, conversation, "short reply")
        store.writer.wait(10)
        assert store.health.problem.kind == "busy"
        assert store.load_conversation(conversation.id).messages[-1].text == "short reply"
        other.execute("COMMIT")
        assert store.retry_unwritten(10) and store.health.problem is None
    finally:
        other.close()
        store.close()
    assert on_disk(path)["titles"] == {conversation.id: "t"} and reply.id in on_disk(path)["messages"]


def test_a_read_only_database_at_start_opens_reads_and_keeps_new_writes(tmp_path, monkeypatch):
    paths = AppPaths.resolve().ensure()
    seed = Store(paths.database)
    old = Conversation(title="old", messages=[Message.user("hello")])
    seed.save_conversation(old)
    cut = Message.assistant("m")
    cut.status = MessageStatus.STREAMING
    seed.save_message(old.id, 0, old.messages[0])
    seed.save_message(old.id, 1, cut)
    seed.close()
    monkeypatch.setenv(PRAGMAS_ENV, "query_only=ON")

    warnings: list[str] = []
    store = open_store(paths, warnings)  # the real start path (bootstrap), nothing raises
    store.writer.retry_interval = 3600
    assert store.mark_unfinished_interrupted() == 0  # marked at a later start
    assert store.health.problem.kind == "read_only" and "readonly" in store.health.problem.detail
    assert [m.id for m in store.load_conversation(old.id).messages] == [old.messages[0].id, cut.id]
    new = Conversation(title="new while read-only", messages=[Message.user("hi")])
    store.save_conversation(new)
    store.save_message(new.id, 0, new.messages[0])
    assert store.list_conversations()[0].title == "new while read-only"
    assert set(on_disk(paths.database)["titles"]) == {old.id}

    store.pragmas = []  # the user fixes the permissions
    store.archive_connection.execute("PRAGMA query_only=OFF")
    assert store.health.problem is not None  # nothing told it yet
    later = Conversation(title="later")
    store.save_conversation(later)  # the user acts: what waited is written first, then this
    assert store.writer.wait(10) and store.health.problem is None
    assert store.close() is True
    monkeypatch.delenv(PRAGMAS_ENV)
    disk = on_disk(paths.database)
    assert disk["integrity"] == "ok" and set(disk["titles"]) == {old.id, new.id, later.id}
    assert new.messages[0].id in disk["messages"]
    store = open_store(paths, [])
    assert store.mark_unfinished_interrupted() == 1  # the leftover of the crash is marked now
    store.close()


def test_a_disk_back_between_two_held_rows_writes_them_in_their_order(tmp_path, caplog):
    """The disk comes back after the writer's try of a conversation's header failed and before it reaches the message
    queued behind it (its next connection opens afresh): the message waits behind the header instead of being tried
    first (a FOREIGN KEY failure, and the row dropped: the cause of a test that failed under load)."""
    Store(tmp_path / "c.sqlite3").close()
    store = Store(tmp_path / "c.sqlite3", pragmas=["query_only=ON"])
    store.writer.retry_interval = 3600  # only the test retries
    both_queued = threading.Event()
    connect = store.writer._connect

    def disk_back_after_this_one():  # the writer's first connection cannot write; the next ones can
        assert both_queued.wait(10)
        store.pragmas = []
        store.writer._connect = connect
        db = connect()
        db.execute("PRAGMA query_only=ON")
        return db

    store.writer._connect = disk_back_after_this_one
    try:
        conversation = Conversation(title="t", messages=[Message.user("hello")])
        store.save_conversation(conversation)  # refused here: the writer has it
        store.save_message(conversation.id, 0, conversation.messages[0], background=True)
        both_queued.set()
        with caplog.at_level(logging.ERROR):
            assert store.writer.wait(10)
            assert len(store.writer.held()) == 2  # the header failed; the message waits behind it, untried
            assert store.retry_unwritten(10) and store.health.problem is None
        assert "a job failed" not in caplog.text
    finally:
        store.close()
    disk = on_disk(store.path)
    assert disk["titles"] == {conversation.id: "t"} and conversation.messages[0].id in disk["messages"]


def test_the_debug_hook_accepts_only_its_two_limits(caplog):
    assert debug_pragmas({PRAGMAS_ENV: "max_page_count=5, query_only=ON"}) == ["max_page_count=5", "query_only=ON"]
    with caplog.at_level(logging.WARNING):
        assert debug_pragmas({PRAGMAS_ENV: "journal_mode=OFF; max_page_count=1; x=1);DROP TABLE t"}) == ["max_page_count=1"]
    assert "ignored" in caplog.text
    assert debug_pragmas({}) == []


def _mount_tmpfs(folder: Path, size: str) -> bool:
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", f"dc-{uuid.uuid4().hex[:8]}", str(folder)],
                          capture_output=True, check=False)
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    folder = tmp_path / "small"
    if not _mount_tmpfs(folder, "2m"):
        pytest.skip("no tmpfs can be mounted here (needs root and CAP_SYS_ADMIN); the max_page_count tests cover it")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_really_full_file_system_keeps_the_reply_until_space_is_freed(small_disk):
    store = Store(small_disk / "c.sqlite3")
    store.writer.retry_interval = 0.1
    try:
        conversation = Conversation(title="t", messages=[Message.user("hello")])
        store.save_conversation(conversation)
        store.writer.wait(10)
        ballast = small_disk / "ballast"
        with open(ballast, "wb", buffering=0) as handle:  # fill the file system to its last block
            for size in (65536, 4096, 1):
                try:
                    while handle.write(b"\0" * size):
                        pass
                except OSError:
                    pass
        reply = stream_reply(store, conversation, LONG_REPLY)
        store.writer.wait(10)
        assert store.health.problem is not None and store.health.problem.kind in ("full", "io")
        assert store.load_conversation(conversation.id).messages[-1].text == LONG_REPLY
        ballast.unlink()  # the user frees space
        assert store.retry_unwritten(10)
        assert store.health.problem is None
    finally:
        store.close()
    disk = on_disk(small_disk / "c.sqlite3")
    assert disk["integrity"] == "ok" and LONG_REPLY.splitlines()[-1] in disk["messages"][reply.id]
