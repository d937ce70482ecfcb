"""Undo a reply's file changes (core/file_undo.py) on real files in a temporary folder and the real store: the file
tools keep each file's state before they write it (core/storage/file_snapshots.py), and undo puts it back, or refuses
with a diff when a file was changed since."""

from __future__ import annotations

import os
import stat

import pytest

from desktop_copilot.core.agent.execution import ToolExecutor
from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, ToolCallBlock
from desktop_copilot.core.file_undo import (
    ChangedSinceError,
    NothingToUndoError,
    check_undoable,
    last_changing_reply,
    reply_files,
    reply_message_ids,
    undo_reply,
)
from desktop_copilot.core.storage import file_snapshots
from desktop_copilot.core.storage.file_snapshots import SnapshotRecorder, snapshots_of
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.tools.base import ToolContext
from desktop_copilot.core.tools.workspace import EditFile, WriteFile


@pytest.fixture
def ws(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def store(tmp_path):
    made = Store(tmp_path / "data" / "conversations.sqlite3")
    yield made
    made.close()


class Chat:
    """A stored conversation whose replies call the file tools directly, as the executor runs them."""

    def __init__(self, store: Store, ws) -> None:
        self.store, self.ws = store, ws
        self.conversation = Conversation(title="files")
        store.save_conversation(self.conversation)
        self.recorder = SnapshotRecorder(store.path)
        self.calls = 0

    def message(self, message: Message) -> Message:
        self.conversation.messages.append(message)
        self.store.save_message(self.conversation.id, len(self.conversation.messages) - 1, message)
        return message

    def user(self, text: str = "change the files") -> Message:
        return self.message(Message.user(text))

    def reply(self) -> Message:
        reply = Message.assistant("claude-test")
        reply.status = MessageStatus.COMPLETED
        return self.message(reply)

    def context(self, reply: Message) -> ToolContext:
        self.calls += 1
        return ToolContext({}, None, {}, workspace=self.ws, conversation_id=self.conversation.id, message_id=reply.id,
                           tool_call_id=f"toolu_{self.calls}", snapshots=self.recorder)

    async def write(self, reply: Message, path: str, content: str) -> str:
        tool = WriteFile()
        return await tool.run(tool.validate({"path": path, "content": content}), self.context(reply))

    async def edit(self, reply: Message, path: str, old: str, new: str) -> str:
        tool = EditFile()
        return await tool.run(tool.validate({"path": path, "old_text": old, "new_text": new}), self.context(reply))

    def index(self) -> list[tuple[str, str]]:
        return [(m.id, m.role.value) for m in self.conversation.messages]

    def reply_ids(self, reply: Message) -> list[str]:
        return reply_message_ids(self.index(), reply.id)

    def undo(self, reply: Message):
        return undo_reply(self.store.connection, self.conversation.id, self.reply_ids(reply))


@pytest.fixture
def chat(store, ws):
    return Chat(store, ws)


@pytest.mark.asyncio
async def test_a_created_file_is_removed(chat, ws):
    chat.user()
    reply = chat.reply()
    await chat.write(reply, "notes/new.txt", "fresh\n")
    assert (ws / "notes" / "new.txt").read_text() == "fresh\n"
    files = check_undoable(chat.store.connection, chat.conversation.id, chat.reply_ids(reply))
    assert [(f.name, f.created, f.restorable) for f in files] == [("notes/new.txt", True, True)]

    result = chat.undo(reply)

    assert not (ws / "notes" / "new.txt").exists()
    assert [(f.name, f.created) for f in result.restored] == [("notes/new.txt", True)] and result.not_restored == []


@pytest.mark.asyncio
async def test_an_edited_file_gets_its_old_bytes_and_mode_back(chat, ws):
    original = b"first line\r\nsecond line\r\n\xe2\x9c\x93 done\r\n"
    (ws / "script.sh").write_bytes(original)
    os.chmod(ws / "script.sh", 0o750)
    chat.user()
    reply = chat.reply()
    await chat.edit(reply, "script.sh", "second line", "2nd line")
    assert (ws / "script.sh").read_bytes() == original.replace(b"second", b"2nd")

    chat.undo(reply)

    assert (ws / "script.sh").read_bytes() == original
    assert stat.S_IMODE((ws / "script.sh").stat().st_mode) == 0o750


@pytest.mark.asyncio
async def test_two_edits_in_one_reply_go_back_to_the_first_state_newest_change_first(chat, ws):
    (ws / "a.txt").write_text("alpha\nbeta\n")
    chat.user()
    first_round, second_round = chat.reply(), chat.reply()  # one reply: a tool round, then another
    await chat.edit(first_round, "a.txt", "alpha", "ALPHA")
    await chat.write(first_round, "b.txt", "created\n")
    await chat.edit(second_round, "a.txt", "beta", "BETA")
    assert (ws / "a.txt").read_text() == "ALPHA\nBETA\n"
    assert chat.reply_ids(second_round) == [first_round.id, second_round.id]
    files = reply_files(chat.store.connection, chat.conversation.id, chat.reply_ids(first_round))
    assert [(f.name, f.changes) for f in files] == [("a.txt", 2), ("b.txt", 1)]  # newest change first

    result = chat.undo(second_round)

    assert [f.name for f in result.restored] == ["a.txt", "b.txt"]
    assert (ws / "a.txt").read_text() == "alpha\nbeta\n" and not (ws / "b.txt").exists()


@pytest.mark.asyncio
async def test_a_file_changed_since_refuses_with_the_diff_and_changes_nothing(chat, ws):
    (ws / "kept.txt").write_text("one\n")
    chat.user()
    reply = chat.reply()
    await chat.write(reply, "kept.txt", "one\ntwo\n")
    await chat.write(reply, "other.txt", "made by the reply\n")
    (ws / "kept.txt").write_text("one\ntwo\nthree, by the user\n")  # changed after the reply wrote it

    with pytest.raises(ChangedSinceError):
        check_undoable(chat.store.connection, chat.conversation.id, chat.reply_ids(reply))  # before asking the user
    with pytest.raises(ChangedSinceError) as refused:
        chat.undo(reply)

    assert refused.value.names == ["kept.txt"]
    assert "kept.txt (as the reply left it)" in refused.value.diff and "+three, by the user" in refused.value.diff
    assert (ws / "kept.txt").read_text() == "one\ntwo\nthree, by the user\n"
    assert (ws / "other.txt").read_text() == "made by the reply\n"  # nothing was undone
    assert len(reply_files(chat.store.connection, chat.conversation.id, chat.reply_ids(reply))) == 2  # still to undo

    (ws / "kept.txt").unlink()  # removed since: also a change, shown as such
    with pytest.raises(ChangedSinceError) as refused:
        chat.undo(reply)
    assert "/dev/null (removed since)" in refused.value.diff and "-two" in refused.value.diff


@pytest.mark.asyncio
async def test_undo_twice_says_there_is_nothing_to_undo(chat, ws):
    chat.user()
    reply = chat.reply()
    await chat.write(reply, "x.txt", "x\n")
    chat.undo(reply)

    with pytest.raises(NothingToUndoError, match="undone already"):
        chat.undo(reply)
    assert reply_files(chat.store.connection, chat.conversation.id, chat.reply_ids(reply)) == []
    assert snapshots_of(chat.store.connection, chat.conversation.id, [reply.id])[0].before is None  # contents dropped


@pytest.mark.asyncio
async def test_a_reply_without_file_changes_has_nothing_to_undo_and_the_last_changing_reply_is_found(chat, ws):
    chat.user("first")
    changing = chat.reply()
    await chat.write(changing, "x.txt", "x\n")
    chat.user("second")
    talking = chat.reply()
    with pytest.raises(NothingToUndoError, match="changed no files"):
        chat.undo(talking)
    assert last_changing_reply(chat.store.connection, chat.conversation.id, chat.index()) == [changing.id]


@pytest.mark.asyncio
async def test_a_later_reply_changing_the_same_file_blocks_undoing_the_earlier_one_until_it_is_undone(chat, ws):
    chat.user("first")
    first = chat.reply()
    await chat.write(first, "x.txt", "one\n")
    chat.user("second")
    second = chat.reply()
    await chat.write(second, "x.txt", "two\n")

    with pytest.raises(ChangedSinceError):
        chat.undo(first)
    chat.undo(second)
    assert (ws / "x.txt").read_text() == "one\n"
    chat.undo(first)
    assert not (ws / "x.txt").exists()


@pytest.mark.asyncio
async def test_a_file_too_large_to_keep_is_said_and_left_while_the_others_are_restored(chat, ws, monkeypatch):
    monkeypatch.setattr(file_snapshots, "MAX_SNAPSHOT_BYTES", 10)
    (ws / "big.txt").write_text("more than ten bytes\n")
    chat.user()
    reply = chat.reply()
    await chat.edit(reply, "big.txt", "more", "MORE")
    await chat.write(reply, "small.txt", "tiny\n")
    files = check_undoable(chat.store.connection, chat.conversation.id, chat.reply_ids(reply))
    assert {f.name: f.restorable for f in files} == {"big.txt": False, "small.txt": True}

    result = chat.undo(reply)

    assert [f.name for f in result.not_restored] == ["big.txt"] and [f.name for f in result.restored] == ["small.txt"]
    assert (ws / "big.txt").read_text() == "MORE than ten bytes\n" and not (ws / "small.txt").exists()


@pytest.mark.asyncio
async def test_nothing_is_kept_without_a_recorder_or_a_stored_conversation(chat, store, ws):
    tool = WriteFile()
    await tool.run(tool.validate({"path": "a.txt", "content": "a"}), ToolContext({}, None, {}, workspace=ws))
    unsaved = ToolContext({}, None, {}, workspace=ws, conversation_id="conv_not_stored", message_id="msg_x",
                          snapshots=SnapshotRecorder(store.path))
    await tool.run(tool.validate({"path": "b.txt", "content": "b"}), unsaved)
    missing = ToolContext({}, None, {}, workspace=ws, conversation_id=chat.conversation.id, message_id="msg_x",
                          snapshots=SnapshotRecorder(ws / "no-database.sqlite3"))
    await tool.run(tool.validate({"path": "c.txt", "content": "c"}), missing)
    assert (ws / "a.txt").exists() and (ws / "b.txt").exists() and (ws / "c.txt").exists()
    assert store.connection.execute("SELECT COUNT(*) FROM file_snapshots").fetchone()[0] == 0
    assert not (ws / "no-database.sqlite3").exists()


@pytest.mark.asyncio
async def test_the_executor_keeps_each_change_under_its_reply_and_call(chat, ws):
    chat.user()
    reply = chat.reply()
    base = ToolContext({}, None, {}, workspace=ws, conversation_id=chat.conversation.id, snapshots=chat.recorder)
    executor = ToolExecutor([WriteFile()], base, lambda _message, _event: None)
    calls = [ToolCallBlock(id="toolu_a", name="write_file", arguments={"path": "a.txt", "content": "a"}),
             ToolCallBlock(id="toolu_b", name="write_file", arguments={"path": "b.txt", "content": "b"})]

    await executor.run_all(reply, calls)

    kept = snapshots_of(chat.store.connection, chat.conversation.id, [reply.id])
    assert sorted((s.name, s.message_id, s.tool_call_id) for s in kept) == [("a.txt", reply.id, "toolu_a"),
                                                                         ("b.txt", reply.id, "toolu_b")]
    assert base.message_id == "" and base.tool_call_id == ""  # each call had its own copy


@pytest.mark.asyncio
async def test_deleting_the_conversation_deletes_its_snapshots(chat, ws):
    chat.user()
    reply = chat.reply()
    await chat.write(reply, "x.txt", "x\n")
    chat.store.delete_conversation(chat.conversation.id)
    assert chat.store.connection.execute("SELECT COUNT(*) FROM file_snapshots").fetchone()[0] == 0


def test_a_reply_is_the_assistant_messages_between_user_messages():
    index = [("u1", "user"), ("a1", "assistant"), ("a2", "assistant"), ("u2", "user"), ("a3", "assistant")]
    assert reply_message_ids(index, "a2") == ["a1", "a2"]
    assert reply_message_ids(index, "a1") == ["a1", "a2"]
    assert reply_message_ids(index, "a3") == ["a3"]
    assert reply_message_ids(index, "gone") == ["gone"]  # an earlier version's message: a reply of its own


@pytest.mark.asyncio
async def test_changes_made_while_the_store_is_in_memory_are_undone_and_kept_once_the_file_opens(tmp_path, ws):
    """The database file could not be opened at start (store.in_memory): the tools' snapshots go to the memory the
    store stands on, undo works from there, and they reach the file with the rest when it opens."""
    from desktop_copilot.core.storage.in_memory import Unopened

    path = tmp_path / "data" / "conversations.sqlite3"
    store = Store.in_memory(path, Unopened("read_only", "attempt to write a readonly database", path.parent))
    try:
        chat = Chat(store, ws)
        chat.user()
        undone = chat.reply()
        await chat.write(undone, "a.txt", "first\n")
        chat.undo(undone)
        assert not (ws / "a.txt").exists() and not path.exists()
        chat.user("again")
        kept = chat.reply()
        await chat.write(kept, "b.txt", "second\n")

        assert store.save_to_disk()
        rows = snapshots_of(store.connection, chat.conversation.id, [undone.id, kept.id])
        assert [(s.name, s.undone_at is not None) for s in rows] == [("a.txt", True), ("b.txt", False)]
        await chat.write(kept, "c.txt", "third\n")  # to the file now
        result = chat.undo(kept)
        assert sorted(f.name for f in result.restored) == ["b.txt", "c.txt"] and not list(ws.iterdir())
    finally:
        store.close()
