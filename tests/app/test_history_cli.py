"""`desktop-copilot history` as a user runs it: subprocesses against the profile's real SQLite file, one of them while
`ask` streams a reply into it from the loopback Anthropic server."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_copilot.core.conversation.models import (
    Compaction,
    Conversation,
    DocumentBlock,
    ImageBlock,
    Message,
    MessageStatus,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    TextFileBlock,
    ThinkingBlock,
    ToolApproval,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.core.storage.store import Store
from tests.support.history_seed import seed_app_store, seed_conversation
from tests.support.loopback import anthropic_text_reply, sse_response

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-history-test-8642"


def database() -> Path:
    return Path(os.environ["DESKTOP_COPILOT_HOME"]) / "data" / "conversations.sqlite3"


def history(*args: str, stdin: str | None = None, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "desktop_copilot", "history", *args], check=False, input=stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL, capture_output=True, text=True,
                          encoding="utf-8", env=env or dict(os.environ, PYTHONIOENCODING="utf-8"), cwd=ROOT,
                          timeout=timeout)


def stored_ids() -> list[str]:
    return seed_app_store(lambda store: [c.id for c in store.list_conversations()])


def store_whole(conversation: Conversation) -> Conversation:
    """Saves `conversation` with its messages and compactions, keeping its times; returns it."""

    def seed(store: Store) -> Conversation:
        store.save_conversation(conversation)
        for seq, message in enumerate(conversation.messages):
            store.save_message(conversation.id, seq, message)
        for seq, compaction in enumerate(conversation.compactions):
            store.save_compaction(conversation.id, seq, compaction)
        return conversation

    return seed_app_store(seed)


def rich_conversation() -> Conversation:
    """Every kind of part: attachments, thinking (plain and redacted), tool calls done, failed and denied, cited
    text, a compaction over the first turn, and a reply that failed."""
    question = Message.user("今天香港天气怎么样?", [
        ImageBlock(media_type="image/png", data="aGVsbG8=", name="sky.png", size=2048, width=800, height=600),
        DocumentBlock(data="JVBERi0=", name="forecast.pdf", size=3 * 1024 * 1024, pages=3),
        TextFileBlock(name="notes.txt", text="umbrella?", size=9),
    ])
    search = ToolCallBlock(id="toolu_1", name="tavily_search", arguments={"query": "Hong Kong weather"},
                           status=ToolCallStatus.DONE, result="Sunny, 28 °C.\n" * 60, started_at=10.0, ended_at=11.5)
    broken = ToolCallBlock(id="toolu_2", name="fetch_page", arguments={"url": "https://example.com"},
                           status=ToolCallStatus.DONE, result="HTTP 500", is_error=True)
    denied = ToolCallBlock(id="toolu_3", name="write_file", arguments={"path": "notes.md"}, status=ToolCallStatus.CANCELLED,
                           result="Not run: the user denied it.", is_error=True,
                           approval=ToolApproval(decision="deny", reason="not now"))
    answer = Message(role=Role.ASSISTANT, model="claude-sonnet-4-5", blocks=[
        ThinkingBlock(thinking="The user wants the weather.\nI should search.", signature="sig"),
        RedactedThinkingBlock(data="opaque"), search, broken, denied,
        TextBlock(text="It is sunny, 28 °C.", citations=[{"type": "web_search_result_location", "url": "https://hko.gov.hk/",
                                                          "title": "Hong Kong Observatory", "cited_text": "Sunny"}]),
    ])
    again = Message.user("And tomorrow?")
    failed = Message(role=Role.ASSISTANT, model="claude-sonnet-4-5", status=MessageStatus.FAILED, error="Overloaded",
                     blocks=[TextBlock(text="Tomorrow it")])
    conversation = Conversation(title="今天香港天气怎么样", provider="anthropic", model="claude-sonnet-4-5",
                                system="Answer briefly.", messages=[question, answer, again, failed])
    conversation.compactions = [Compaction(first_message_id=question.id, last_message_id=answer.id, messages=2,
                                           summary="The user asked about the weather; it is sunny.",
                                           tokens_before=5200, tokens_after=300)]
    return store_whole(conversation)


# --- list ------------------------------------------------------------------------------------------------------------


def test_list_shows_each_conversation_newest_first_and_as_json():
    def seed(store):
        older = seed_conversation(store, "Old notes", [("a", "b")], age_days=3, model="gpt-5")
        newer = seed_conversation(store, "今天香港天气怎么样", [("q1", "a1"), ("q2", "a2")], age_days=0.1)
        cut = seed_conversation(store, "Cut short", [("go", "partial")], age_days=1,
                                last_status=MessageStatus.INTERRUPTED, error="The connection closed.")
        return older, newer, cut

    older, newer, cut = seed_app_store(seed)

    result = history("list")
    assert result.returncode == 0, result.stderr
    head, *rows = result.stdout.splitlines()
    assert head.split() == ["ID", "UPDATED", "MSGS", "PROVIDER", "·", "MODEL", "TITLE"]
    assert [row.split()[0] for row in rows] == [newer.id[:13], cut.id[:13], older.id[:13]]
    assert rows[0].endswith("今天香港天气怎么样") and " 4  anthropic · claude-sonnet-4-5" in rows[0]
    assert rows[1].endswith("Cut short  [interrupted]") and "gpt-5" in rows[2]
    assert result.stderr == ""

    listed = json.loads(history("list", "--json").stdout)
    assert [item["id"] for item in listed] == [newer.id, cut.id, older.id]
    assert listed[0] == {"id": newer.id, "title": "今天香港天气怎么样", "provider": None, "model": "claude-sonnet-4-5-20250929",
                         "messages": 4, "last_status": "completed", "created_at": newer.created_at,
                         "updated_at": pytest.approx(newer.updated_at)}
    assert listed[1]["last_status"] == "interrupted"


def test_nothing_stored_is_a_one_line_note_with_exit_0_and_creates_no_database():
    for args, out in ((["list"], ""), (["list", "--json"], "[]\n"), (["show", "--last"], ""), (["show", "--last", "--json"], ""),
                      (["search", "weather"], ""), (["search", "weather", "--json"], "[]\n"), (["export", "--last"], "")):
        result = history(*args)
        assert (result.returncode, result.stdout) == (0, out), (args, result.stderr)
        assert result.stderr == "note: no conversations are stored yet.\n", args
    assert not database().exists()

    named = history("show", "conv_1234")
    assert named.returncode == 2 and named.stderr == "error: there is no conversation 'conv_1234': no conversations are stored yet.\n"


def test_the_command_loads_no_qt():
    seed_app_store(lambda store: seed_conversation(store, "hi", [("a", "b")]))
    code = ("import sys; from desktop_copilot.app.cli import main; code = main(['history', 'list']); "
            "assert not [m for m in sys.modules if m.startswith(('PySide6', 'qasync'))]; sys.exit(code)")
    result = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr


# --- show ------------------------------------------------------------------------------------------------------------


def test_show_prints_every_message_with_its_parts_and_status():
    conversation = rich_conversation()

    result = history("show", conversation.id)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith(f"今天香港天气怎么样\n{conversation.id}  ·  anthropic · claude-sonnet-4-5  ·  4 messages")
    assert "system: Answer briefly." in text
    expected_in_order = [
        "── compacted 2 messages (5,200 → 300 tokens): requests send this summary in their place ──",
        "[summary]\n│ The user asked about the weather; it is sunny.",
        "── You · ",
        "[attachment] sky.png (image/png, 2 KB, 800x600)",
        "[attachment] forecast.pdf (application/pdf, 3 MB, 3 pages)",
        "[attachment] notes.txt (text, 9 bytes)",
        "今天香港天气怎么样?",
        " · claude-sonnet-4-5 · completed ──",
        "[thinking]\n│ The user wants the weather.\n│ I should search.",
        "[thinking, redacted by the provider]",
        '[tool call] tavily_search (done, 1.5 s)\n  arguments: {"query": "Hong Kong weather"}\n  result: Sunny, 28 °C. Sunny',
        "[tool call] fetch_page (error)",
        "  result: HTTP 500",
        "[tool call] write_file (cancelled)",
        "  approval: deny: not now",
        "It is sunny, 28 °C.\n  [1] Hong Kong Observatory — https://hko.gov.hk/",
        "── end of the 2 compacted messages ──",
        "And tomorrow?",
        " · claude-sonnet-4-5 · failed ──\nTomorrow it\n[failed] Overloaded",
    ]
    positions = [text.find(piece) for piece in expected_in_order]
    assert -1 not in positions, [p for p, at in zip(expected_in_order, positions) if at == -1]
    assert positions == sorted(positions)
    assert "more characters)" in text  # the long tool result is an excerpt
    assert "aGVsbG8=" not in text and "JVBERi0=" not in text  # attachments are one line, not their bytes


def test_show_json_is_the_conversation_as_the_json_export_holds_it():
    conversation = rich_conversation()

    shown = history("show", conversation.id[:14], "--json")
    exported = history("export", conversation.id, "--format", "json")
    assert shown.returncode == exported.returncode == 0, shown.stderr + exported.stderr
    document = json.loads(exported.stdout)
    assert json.loads(shown.stdout) == document["conversations"][0]
    assert Conversation.model_validate(json.loads(shown.stdout)).model_dump() == conversation.model_dump() | {
        "updated_at": json.loads(shown.stdout)["updated_at"]}


# --- ids -------------------------------------------------------------------------------------------------------------


def test_a_unique_prefix_is_enough_and_an_ambiguous_or_unknown_one_is_an_error_in_words():
    def seed(store):
        for suffix, title in (("abc111", "First"), ("abc222", "Second"), ("xyz999", "Third")):
            store_whole_in(store, Conversation(id=f"conv_{suffix}", title=title, messages=[Message.user(title)]))

    seed_app_store(seed)

    for wanted in ("conv_xyz", "xyz", "conv_abc1", "abc2"):
        result = history("show", wanted, "--json")
        assert result.returncode == 0, (wanted, result.stderr)
    assert json.loads(history("show", "abc2", "--json").stdout)["title"] == "Second"

    ambiguous = history("show", "abc")
    assert ambiguous.returncode == 2 and ambiguous.stdout == ""
    assert ambiguous.stderr.startswith("error: 'abc' starts the ids of 2 conversations; give more of the id:\n")
    assert "conv_abc111  First" in ambiguous.stderr and "conv_abc222  Second" in ambiguous.stderr

    unknown = history("export", "nope")
    assert unknown.returncode == 2
    assert unknown.stderr == "error: no conversation's id starts with 'nope'; `desktop-copilot history list` shows them.\n"
    assert history("show").returncode == 2  # neither an id nor --last


def store_whole_in(store: Store, conversation: Conversation) -> None:
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)


# --- search ----------------------------------------------------------------------------------------------------------


def test_search_finds_chinese_and_latin_words_with_snippets():
    conversation = rich_conversation()
    other = seed_app_store(lambda store: seed_conversation(store, "Lunch", [("where to eat", "Try the noodles.")]))

    chinese = history("search", "天气")
    assert chinese.returncode == 0, chinese.stderr
    lines = chinese.stdout.splitlines()
    assert lines[0] == f"{conversation.id[:13]}  今天香港天气怎么样"
    assert "  title:     今天香港**天气**怎么样" in lines and any(line.startswith("  you:") and "**天气**" in line for line in lines)
    assert other.id[:13] not in chinese.stdout

    found = json.loads(history("search", "noodles", "--json").stdout)
    assert len(found) == 1 and found[0]["conversation_id"] == other.id and found[0]["role"] == "assistant"
    start, end = found[0]["matches"][0]
    assert found[0]["snippet"][start:end] == "noodles"

    nothing = history("search", "zebra")
    assert (nothing.returncode, nothing.stdout, nothing.stderr) == (0, "", "note: nothing stored matches 'zebra'.\n")


# --- export and import -----------------------------------------------------------------------------------------------


def test_export_goes_to_standard_output_or_atomically_to_a_file(tmp_path):
    conversation = rich_conversation()

    markdown = history("export", conversation.id)
    assert markdown.returncode == 0 and markdown.stdout.startswith("# 今天香港天气怎么样\n")
    assert "<summary>Thinking</summary>" in markdown.stdout and "*— Compacted 2 messages —*" in markdown.stdout

    target = tmp_path / "weather.json"
    target.write_text("an older export")
    written = history("export", "--last", "-o", str(target))  # .json: JSON unless --format says otherwise
    assert written.returncode == 0, written.stderr
    assert written.stdout == f"Exported “今天香港天气怎么样” (4 messages) as JSON to {target}.\n"
    assert json.loads(target.read_text())["conversations"][0]["id"] == conversation.id
    assert sorted(p.name for p in tmp_path.iterdir()) == ["weather.json"]  # no temporary file left beside it

    as_markdown = history("export", "--last", "--format", "md", "-o", str(tmp_path / "weather.md"))
    assert as_markdown.returncode == 0
    assert (tmp_path / "weather.md").read_text(encoding="utf-8") == markdown.stdout

    nowhere = history("export", "--last", "-o", str(tmp_path / "missing" / "x.md"))
    assert nowhere.returncode == 2 and "there is no folder" in nowhere.stderr
    assert not (tmp_path / "missing").exists()


def test_export_carries_the_other_versions_of_a_reply():
    """The answers of the models not picked (Ask several models) and replaced replies stay exported and searchable."""
    from desktop_copilot.core.storage.versions import TailArchive

    def seed(store: Store) -> str:
        conversation = seed_conversation(store, "Sky", [("Why is the sky blue?", "Rayleigh scattering.")])
        other = Message(role=Role.ASSISTANT, model="llama3.2", provider="ollama", blocks=[TextBlock(text="Dust and ozone.")])
        TailArchive(store).archive(conversation.id, 1, [other])  # an archived tail that was never the active reply
        return conversation.id

    conversation_id = seed_app_store(seed)
    markdown = history("export", conversation_id)
    assert markdown.returncode == 0, markdown.stderr
    active, versions = markdown.stdout.split("# Other versions")
    assert "Rayleigh scattering." in active and "Dust and ozone." not in active
    assert "### From message 2 · ollama/llama3.2" in versions and "Dust and ozone." in versions
    exported = json.loads(history("export", conversation_id, "--format", "json").stdout)["conversations"][0]
    assert [[m["blocks"][0]["text"] for m in v["messages"]] for v in exported["versions"]] == [["Dust and ozone."]]
    again = history("import", "-", stdin=json.dumps({"format": "desktop-copilot/conversations", "version": 1,
                                                     "conversations": [exported]}))
    assert again.returncode == 0 and "already here and kept as it was" in again.stdout  # an export with versions reads back


def test_import_restores_an_export_and_never_overwrites_a_stored_conversation(tmp_path):
    conversation = rich_conversation()
    export = tmp_path / "weather.json"
    assert history("export", conversation.id, "-o", str(export)).returncode == 0
    assert history("delete", conversation.id, "--yes").returncode == 0

    restored = history("import", str(export))
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout == f"Imported 1 conversation from {export}:\n  {conversation.id}  今天香港天气怎么样  (4 messages)\n"
    assert json.loads(history("show", conversation.id, "--json").stdout) == json.loads(export.read_text())["conversations"][0]

    changed = json.loads(export.read_text())
    changed["conversations"][0]["title"] = "Edited elsewhere"
    again = history("import", "-", stdin=json.dumps(changed))
    assert again.returncode == 0, again.stderr
    assert again.stdout == (f"Nothing was imported: 1 conversation was already here and kept as it was: {conversation.id}\n")
    assert json.loads(history("show", conversation.id, "--json").stdout)["title"] == "今天香港天气怎么样"

    for content, words in (("not json", "The file is not JSON"), ('{"format": "other"}', "This is not a Desktop Copilot export")):
        refused = history("import", "-", stdin=content)
        assert refused.returncode == 2 and words in refused.stderr, refused.stderr
    missing = history("import", str(tmp_path / "absent.json"))
    assert missing.returncode == 2 and "could not read" in missing.stderr and "No such file" in missing.stderr
    assert stored_ids() == [conversation.id]


# --- delete ----------------------------------------------------------------------------------------------------------


def answer_on_a_terminal(args: list[str], answer: bytes) -> tuple[int, str, str]:
    """`history …` with its stdin on a real pty; `answer` is typed once the question shows on stderr."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "desktop_copilot", "history", *args], stdin=terminal,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                               env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    os.close(terminal)
    seen, deadline = b"", time.monotonic() + 60
    while b"[y/N]" not in seen and process.poll() is None and time.monotonic() < deadline:
        if select.select([process.stderr], [], [], 0.2)[0]:
            seen += os.read(process.stderr.fileno(), 65536)
    os.write(controller, answer)
    out, err = process.communicate(timeout=60)
    os.close(controller)
    return process.returncode, out.decode(), (seen + err).decode()


def test_delete_asks_on_a_terminal_and_refuses_without_one_unless_yes():
    keep = seed_app_store(lambda store: seed_conversation(store, "Keep me", [("a", "b")]))
    doomed = seed_app_store(lambda store: seed_conversation(store, "Delete me", [("c", "d")]))

    refused = history("delete", doomed.id)
    assert refused.returncode == 2 and "there is no terminal to confirm on. Pass --yes" in refused.stderr
    code, out, err = answer_on_a_terminal(["delete", doomed.id[:12]], b"n\n")
    assert (code, out) == (0, "Nothing was deleted.\n"), err
    assert f"Delete “Delete me” ({doomed.id}, 2 messages, updated " in err and "This cannot be undone. [y/N]" in err
    assert sorted(stored_ids()) == sorted([keep.id, doomed.id])

    code, out, err = answer_on_a_terminal(["delete", doomed.id], b"y\n")
    assert code == 0 and out.startswith(f"Deleted “Delete me” ({doomed.id}, 2 messages"), err
    assert stored_ids() == [keep.id]
    assert history("search", "Delete").stdout == ""  # its search rows went with it

    assert history("delete", keep.id, "--yes").returncode == 0
    assert stored_ids() == []


def test_delete_refuses_while_a_reply_is_still_being_written():
    streaming = seed_app_store(lambda store: seed_conversation(store, "Busy", [("go", "half")], last_status=MessageStatus.STREAMING))

    result = history("delete", streaming.id, "--yes")
    assert result.returncode == 2 and "a reply is still being written to this conversation" in result.stderr
    assert stored_ids() == [streaming.id]


def test_output_cut_short_by_the_reader_is_not_an_error():
    seed_app_store(lambda store: seed_conversation(store, "Long", [(f"question {n}", "answer " * 2000) for n in range(40)]))
    process = subprocess.Popen([sys.executable, "-m", "desktop_copilot", "history", "show", "--last"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert process.stdout.readline() == b"Long\n"
    process.stdout.close()
    assert process.wait(timeout=60) == 0
    assert process.stderr.read() == b""


# --- beside a running `ask` ------------------------------------------------------------------------------------------


def test_show_last_json_follows_a_reply_that_ask_is_streaming_into_the_same_database(loopback, tmp_path):
    """The window and `ask` keep writing while `history` reads and writes: every run succeeds, sees the reply as far as
    it has arrived, and the reply ends whole in the database."""
    earlier = seed_app_store(lambda store: seed_conversation(store, "Earlier", [("a", "b")], age_days=1))
    export = tmp_path / "earlier.json"
    assert history("export", earlier.id, "-o", str(export)).returncode == 0
    assert history("delete", earlier.id, "--yes").returncode == 0
    another = seed_app_store(lambda store: seed_conversation(store, "Another", [("c", "d")], age_days=2))

    text = " ".join(f"word{n}" for n in range(80))
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply(text, pieces=80), delay=0.06))
    env = dict(os.environ, ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=loopback.url, PYTHONIOENCODING="utf-8")
    asking = subprocess.Popen([sys.executable, "-m", "desktop_copilot", "ask", "count for me"], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
    seen: list[dict] = []
    wrote_meanwhile: list[subprocess.CompletedProcess] = []
    try:
        while asking.poll() is None:
            shown = history("show", "--last", "--json", env=env)
            assert shown.returncode == 0, shown.stderr
            assert KEY not in shown.stdout + shown.stderr
            latest = json.loads(shown.stdout)
            seen.append(latest)
            replies = [m for m in latest["messages"] if m["role"] == "assistant"]
            if replies and replies[-1]["status"] == "streaming" and not wrote_meanwhile:
                wrote_meanwhile += [history("import", str(export), env=env),
                                    history("delete", "--yes", another.id, env=env)]
    finally:
        out, err = asking.communicate(timeout=60)
    assert asking.returncode == 0, err
    assert out == text + "\n"

    asked = [s for s in seen if s["title"] == "count for me"]
    streaming = [s["messages"][-1] for s in asked if s["messages"][-1]["role"] == "assistant"
                 and s["messages"][-1]["status"] == "streaming"]
    assert streaming, [s["title"] for s in seen]
    partials = ["".join(block["text"] for block in reply["blocks"] if block["type"] == "text") for reply in streaming]
    assert all(text.startswith(partial) for partial in partials)
    assert any(len(partial) < len(text) for partial in partials)  # seen part-way, as far as it had arrived
    assert [r.returncode for r in wrote_meanwhile] == [0, 0], [r.stderr for r in wrote_meanwhile]

    final = json.loads(history("show", "--last", "--json").stdout)
    assert final["title"] == "count for me" and [m["status"] for m in final["messages"]] == ["completed", "completed"]
    assert final["messages"][1]["blocks"] == [{"type": "text", "text": text, "citations": []}]
    assert sorted(c["title"] for c in json.loads(history("list", "--json").stdout)) == ["Earlier", "count for me"]
