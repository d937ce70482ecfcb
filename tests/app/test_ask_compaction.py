"""`desktop-copilot ask -c` compacting as the window does, run as a user runs it (a subprocess against a loopback
Anthropic server, settings.json naming a small window): the note on stderr, the event in --json, a summary that cannot
be made, and an overflow compaction cannot cure (exit 3, in words)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from desktop_copilot.core.context.summary import SUMMARY_SYSTEM
from tests.app.test_ask import ask, ask_env, stored_messages
from tests.support.loopback import RecordedRequest, anthropic_error, anthropic_text_reply, sse_response

PROMPT = "Please keep this in mind: " + "the blue door opens on Tuesdays only. " * 84  # about 800 tokens
NOTE = re.compile(r"^note: compacted (\d+) messages \((\d+) → (\d+) tokens\)", re.M)


def small_window(window: int = 2000) -> None:
    """settings.json as Settings ▸ Model profiles writes it: claude-test has `window` tokens and writes 400 at most."""
    config = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config"
    config.mkdir(parents=True, exist_ok=True)
    settings = {"keep_turns": 1, "model_overrides": {"anthropic/claude-test": {"context_window": window, "output_limit": 400}}}
    (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def serve(loopback, *, summary=None, reply=None) -> list[dict]:
    """Summary requests get `summary` (a written summary by default), others `reply` (an answer by default)."""
    bodies: list[dict] = []

    def answer(request: RecordedRequest):
        body = request.json()
        bodies.append(body)
        if body.get("system") == SUMMARY_SYSTEM:
            return summary or sse_response(anthropic_text_reply("SUMMARY: the blue door opens on Tuesdays."))
        return reply or sse_response(anthropic_text_reply("Noted."))

    loopback.set_handler("/v1/messages", answer)
    return bodies


def env(loopback):
    return ask_env(loopback, DESKTOP_COPILOT_MODEL="claude-test")


def test_ask_c_compacts_and_says_so_each_time(loopback):
    small_window()
    bodies = serve(loopback)
    first = ask(loopback, PROMPT, env=env(loopback))
    assert first.returncode == 0, first.stderr
    assert not NOTE.search(first.stderr)
    notes = []
    for _ in range(2):
        result = ask(loopback, "-c", PROMPT.replace("blue", "red"), env=env(loopback))
        assert result.returncode == 0, result.stderr
        notes.append(NOTE.search(result.stderr).groups())
    assert [int(n) for n, *_ in notes] == [2, 4]  # the second takes the first one's summary over, with one more turn
    assert all(int(before) > int(after) for _, before, after in notes)
    last = [b for b in bodies if b.get("system") != SUMMARY_SYSTEM][-1]
    assert last["messages"][0]["content"][0]["text"].startswith("Summary of the earlier conversation (4 messages")
    assert len(stored_messages()) == 6  # every message is still in the database


def test_json_carries_the_compaction(loopback):
    small_window()
    serve(loopback)
    assert ask(loopback, PROMPT, env=env(loopback)).returncode == 0
    result = ask(loopback, "-c", "--json", PROMPT, env=env(loopback))
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    [compacted] = [e for e in events if e["type"] == "context_compacted"]
    assert compacted["compaction"]["kind"] == "summary" and compacted["compaction"]["messages"] == 2
    assert compacted["compaction"]["summary"] == "SUMMARY: the blue door opens on Tuesdays."


def test_a_summary_that_cannot_be_made_is_told_and_the_reply_still_comes(loopback):
    small_window()
    serve(loopback, summary=anthropic_error(400, "invalid_request_error", "no summaries today"))
    assert ask(loopback, PROMPT, env=env(loopback)).returncode == 0
    result = ask(loopback, "-c", PROMPT, env=env(loopback))
    assert result.returncode == 0, result.stderr
    assert "by leaving them out of requests" in result.stderr and "no summaries today" in result.stderr
    assert result.stdout == "Noted.\n"


def test_an_overflow_that_compaction_cannot_cure_exits_3_in_words(loopback):
    small_window(window=200_000)  # the profile says it fits; the server says it does not
    serve(loopback)
    assert ask(loopback, PROMPT, env=env(loopback)).returncode == 0
    serve(loopback, reply=anthropic_error(400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum"))
    result = ask(loopback, "-c", "a question", env=env(loopback))
    assert result.returncode == 3
    assert NOTE.search(result.stderr).group(1) == "2"  # compacted, and sent once more
    assert "error: The conversation is still longer than the model's context window after its older turns were compacted" \
        in result.stderr
    assert "prompt is too long" in result.stderr and "Compact now" in result.stderr and "New chat from a summary" in result.stderr
