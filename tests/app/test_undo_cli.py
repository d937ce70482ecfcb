"""`desktop-copilot undo` as a user runs it: `ask --yes` against the loopback Anthropic server writes workspace files
with `write_file` and `edit_file`, says how to undo them, and `undo --last --yes` puts them back; a file changed since
stops the undo with the diff, and a second undo has nothing to do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response

KEY = "sk-ant-undo-test-5150"


@pytest.fixture
def workspace(tmp_path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    (folder / "readme.md").write_text("# Project\n\nOld words.\n", encoding="utf-8")
    settings = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"workspace_folder": str(folder)}), encoding="utf-8")
    return folder


def run(loopback, command: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=loopback.url, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "desktop_copilot", command, *args], env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, encoding="utf-8", timeout=60, check=False)


def ask_to_change_files(loopback) -> subprocess.CompletedProcess:
    loopback.enqueue(
        "/v1/messages",
        sse_response(anthropic_tool_reply([
            ("toolu_1", "write_file", {"path": "notes/todo.txt", "content": "buy milk\n"}),
            ("toolu_2", "edit_file", {"path": "readme.md", "old_text": "Old words.", "new_text": "New words."}),
        ])),
        sse_response(anthropic_text_reply("I wrote the notes and updated the readme.")),
    )
    result = run(loopback, "ask", "--yes", "write my notes and update the readme")
    assert result.returncode == 0, result.stderr
    return result


def test_ask_says_how_to_undo_and_undo_last_puts_the_files_back(loopback, workspace):
    asked = ask_to_change_files(loopback)
    assert (workspace / "notes" / "todo.txt").read_text(encoding="utf-8") == "buy milk\n"
    assert (workspace / "readme.md").read_text(encoding="utf-8") == "# Project\n\nNew words.\n"
    assert "note: this reply changed 2 files; undo with `desktop-copilot undo --last`" in asked.stderr

    undone = run(loopback, "undo", "--last", "--yes")

    assert undone.returncode == 0, undone.stderr
    assert not (workspace / "notes" / "todo.txt").exists()
    assert (workspace / "readme.md").read_text(encoding="utf-8") == "# Project\n\nOld words.\n"
    assert "Removed " in undone.stdout and "Restored " in undone.stdout and "changes to 2 files." in undone.stdout

    again = run(loopback, "undo", "--last", "--yes")
    assert again.returncode == 0 and "note: nothing to undo: this reply's file changes were undone already." in again.stderr


def test_without_a_terminal_undo_needs_yes_and_changes_nothing(loopback, workspace):
    ask_to_change_files(loopback)

    refused = run(loopback, "undo", "--last")

    assert refused.returncode == 2 and "Pass --yes to undo" in refused.stderr
    assert (workspace / "notes" / "todo.txt").exists()
    assert (workspace / "readme.md").read_text(encoding="utf-8") == "# Project\n\nNew words.\n"


def test_a_file_changed_since_stops_the_undo_with_the_diff(loopback, workspace):
    ask_to_change_files(loopback)
    (workspace / "readme.md").write_text("# Project\n\nNew words.\nA line of my own.\n", encoding="utf-8")

    refused = run(loopback, "undo", "--last", "--yes")

    assert refused.returncode == 1
    assert "readme.md was changed after this reply wrote it" in refused.stderr
    assert "+A line of my own." in refused.stdout
    assert (workspace / "notes" / "todo.txt").exists()  # nothing was undone
    assert (workspace / "readme.md").read_text(encoding="utf-8").endswith("A line of my own.\n")


def test_undo_names_a_conversation_and_a_reply(loopback, workspace):
    ask_to_change_files(loopback)
    listed = json.loads(run(loopback, "history", "list", "--json").stdout)
    conversation_id = listed[0]["id"]
    shown = json.loads(run(loopback, "history", "show", conversation_id, "--json").stdout)
    reply_id = shown["messages"][-1]["id"]  # the last message of the reply (after its tool round)

    undone = run(loopback, "undo", conversation_id[:12], "--reply", reply_id, "--yes")

    assert undone.returncode == 0, undone.stderr
    assert not (workspace / "notes" / "todo.txt").exists()
    unknown = run(loopback, "undo", conversation_id, "--reply", "msg_nothing", "--yes")
    assert unknown.returncode == 2 and "has no message 'msg_nothing'" in unknown.stderr


def test_nothing_stored_is_said(loopback, workspace):
    result = run(loopback, "undo", "--last", "--yes")
    assert result.returncode == 0 and result.stderr.startswith("note: no conversations are stored yet.")
