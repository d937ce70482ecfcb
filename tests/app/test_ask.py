"""`desktop-copilot ask` as a user runs it: a subprocess against the loopback Anthropic server."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.loopback import (
    anthropic_error,
    anthropic_sse,
    anthropic_text_reply,
    anthropic_tool_reply,
    corpus_chunks,
    sse_response,
)

KEY = "sk-ant-ask-test-5150"


def ask_env(loopback, **extra):
    env = dict(os.environ, ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=loopback.url, PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def ask(loopback, *args, env=None, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "desktop_copilot", "ask", *args],
        env=env or ask_env(loopback), capture_output=True, text=True, encoding="utf-8", timeout=timeout,
    )


def stored_messages():
    db = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "data" / "conversations.sqlite3"
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT role, status, blocks, error FROM messages ORDER BY rowid").fetchall()


def split_bytes(chunks: list[bytes], size: int) -> list[bytes]:
    data = b"".join(chunks)
    return [data[i:i + size] for i in range(0, len(data), size)]


def test_streams_cjk_and_emoji_split_across_deltas_and_chunks(loopback):
    text = "你好，世界 🌍👋🏽 Grüße"
    events = anthropic_text_reply(text, pieces=len(text))
    loopback.enqueue("/v1/messages", sse_response(split_bytes(anthropic_sse(events), 3)))
    result = ask(loopback, "say hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout == text + "\n"
    assert [(r[0], r[1]) for r in stored_messages()] == [("user", "completed"), ("assistant", "completed")]


def test_no_key_is_a_usage_error_that_says_how_to_set_one(loopback):
    env = ask_env(loopback)
    env.pop("ANTHROPIC_API_KEY")
    result = ask(loopback, "hi", env=env)
    assert result.returncode == 2
    assert "ANTHROPIC_API_KEY" in result.stderr and "keys set anthropic" in result.stderr
    assert loopback.requests == []


def test_json_prints_one_unified_event_per_line(loopback):
    loopback.enqueue("/v1/messages", sse_response(corpus_chunks("anthropic_thinking_01.sse")))
    result = ask(loopback, "--json", "--thinking-budget", "1024", "think")
    assert result.returncode == 0, result.stderr
    kinds = [json.loads(line)["type"] for line in result.stdout.splitlines()]
    assert kinds[0] == "message_created" and kinds[-1] == "run_finished"
    assert {"start", "thinking_start", "thinking_delta", "thinking_end", "text_delta", "done"} <= set(kinds)
    assert loopback.requests[0].json()["thinking"] == {"type": "enabled", "budget_tokens": 1024}


def test_show_thinking_goes_to_stderr(loopback):
    loopback.enqueue("/v1/messages", sse_response(corpus_chunks("anthropic_thinking_01.sse")))
    result = ask(loopback, "--show-thinking", "think")
    assert result.returncode == 0
    assert "[thinking]" in result.stderr and "[thinking]" not in result.stdout


def test_midstream_error_exits_3_with_partial_text_printed_and_saved(loopback):
    events = anthropic_text_reply("partial answer that never ends", pieces=3)[:4]
    chunks = anthropic_sse(events) + [b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n']
    loopback.enqueue("/v1/messages", sse_response(chunks))
    result = ask(loopback, "go")
    assert result.returncode == 3
    assert result.stdout.startswith("partial answer")
    assert "Overloaded" in result.stderr
    role, status, blocks, error = stored_messages()[-1]
    assert (role, status) == ("assistant", "failed")
    assert json.loads(blocks)[0]["text"] == result.stdout.rstrip("\n")


def test_dropped_connection_exits_3_with_partial_text_saved_as_interrupted(loopback):
    events = anthropic_text_reply("alpha beta gamma delta", pieces=4)[:5]
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(events), drop=True))
    result = ask(loopback, "go")
    assert result.returncode == 3
    partial = result.stdout.rstrip("\n")
    assert partial and "alpha beta gamma delta".startswith(partial) and partial != "alpha beta gamma delta"
    role, status, blocks, error = stored_messages()[-1]
    assert status == "interrupted" and json.loads(blocks)[0]["text"] == partial
    assert "connection closed" in error


def test_529_with_retry_after_is_retried(loopback):
    loopback.enqueue(
        "/v1/messages",
        anthropic_error(529, "overloaded_error", "Overloaded", headers={"retry-after": "1"}),
        sse_response(anthropic_text_reply("made it")),
    )
    started = time.monotonic()
    result = ask(loopback, "go")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "made it"
    assert len(loopback.requests) == 2 and time.monotonic() - started >= 1.0


def test_401_exits_3_with_a_clear_message_and_no_key_in_it(loopback):
    loopback.enqueue("/v1/messages", anthropic_error(401, "authentication_error", "invalid x-api-key"))
    result = ask(loopback, "go")
    assert result.returncode == 3
    assert "rejected the key" in result.stderr and KEY not in result.stderr


def test_round_limit_exits_4(loopback):
    for i in range(2):
        loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([(f"toolu_{i}", "nothing", {"n": i})])))
    result = ask(loopback, "--max-tool-rounds", "1", "go")
    assert result.returncode == 4
    assert "1 tool rounds" in result.stderr


def test_loop_detection_exits_4_with_a_clear_message(loopback):
    for i in range(3):
        loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([(f"toolu_{i}", "nothing", {"n": 1})])))
    result = ask(loopback, "go")
    assert result.returncode == 4
    assert "3 times in a row" in result.stderr


def test_continue_replays_history_after_a_tool_round(loopback):
    loopback.enqueue(
        "/v1/messages",
        sse_response(corpus_chunks("anthropic_thinking_tool_use_01.sse")),
        sse_response(corpus_chunks("anthropic_thinking_tool_use_01_turn2.sse")),
        sse_response(anthropic_text_reply("Still hot.")),
    )
    assert ask(loopback, "--thinking-budget", "2000", "weather in Florence?").returncode == 0
    result = ask(loopback, "-c", "and tomorrow?")
    assert result.returncode == 0, result.stderr
    messages = loopback.requests[2].json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[1]["content"][0]["type"] == "thinking" and messages[1]["content"][0]["signature"]
    assert messages[2]["content"][0]["type"] == "tool_result"
    assert messages[4]["content"] == [{"type": "text", "text": "and tomorrow?"}]


def test_continue_after_an_interruption_sends_a_valid_history(loopback):
    cut = anthropic_tool_reply([("toolu_cut", "nothing", {"n": 1})], text="Let me check.")[:8]
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(cut), drop=True), sse_response(anthropic_text_reply("ok")))
    assert ask(loopback, "go").returncode == 3
    assert ask(loopback, "-c", "again").returncode == 0
    messages = loopback.requests[1].json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    for i, message in enumerate(messages):
        uses = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        if uses:
            results = [b["tool_use_id"] for b in messages[i + 1]["content"] if b["type"] == "tool_result"]
            assert results == uses


def test_continue_without_history_is_a_usage_error(loopback):
    result = ask(loopback, "-c", "hi")
    assert result.returncode == 2 and "no saved conversation" in result.stderr


def test_no_save_leaves_no_messages(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("ephemeral")))
    assert ask(loopback, "--no-save", "hi").returncode == 0
    db = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "data" / "conversations.sqlite3"
    assert not db.exists() or stored_messages() == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_exits_4_and_saves_the_partial_reply(loopback):
    events = anthropic_text_reply("slow words arrive one by one", pieces=6)
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(events), delay=0.3))
    process = subprocess.Popen(
        [sys.executable, "-m", "desktop_copilot", "ask", "go"], env=ask_env(loopback),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    first = process.stdout.read(4)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 4, err
    assert (first + out).strip().startswith("slow")
    assert stored_messages()[-1][1] == "stopped"


def test_a_data_folder_that_cannot_be_made_still_answers_and_says_nothing_is_saved(loopback, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "data").write_text("a file where the data folder goes")  # unusable even for root
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Still answered.")))
    result = ask(loopback, "hello", env=ask_env(loopback, DESKTOP_COPILOT_HOME=str(home)))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Still answered.\n"
    assert "cannot be opened or created" in result.stderr and "this conversation is not saved" in result.stderr
    assert (home / "data").is_file()
