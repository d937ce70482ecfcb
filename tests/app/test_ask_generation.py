"""`ask --temperature T --top-p P` as a user runs it (a subprocess against a loopback Chat Completions server): the
values reach the request body and stay with the stored conversation for `-c`; a value out of range is refused in
words with exit 2, before anything is sent."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.chat_completions_support import chat_reply, chat_response

KEYS = {"DEEPSEEK_API_KEY": "sk-deepseek-test-5151"}


def run_ask(loopback, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, **KEYS, PYTHONIOENCODING="utf-8", DEEPSEEK_BASE_URL=loopback.url)
    return subprocess.run([sys.executable, "-m", "desktop_copilot", "ask", "--provider", "deepseek", "--model",
                           "deepseek-chat", *args], check=False, env=env, capture_output=True, text=True, encoding="utf-8", timeout=90)


def stored_options() -> list[tuple[float | None, float | None]]:
    db = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "data" / "conversations.sqlite3"
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT temperature, top_p FROM conversations").fetchall()
    conn.close()
    return rows


def sent(loopback, index: int) -> dict:
    return loopback.requests_to("/chat/completions")[index].json()


def test_the_options_reach_the_body_and_stay_with_the_conversation(loopback):
    loopback.enqueue("/chat/completions", *(chat_response(chat_reply(text)) for text in ("One.", "Two.", "Three.")))
    first = run_ask(loopback, "--temperature", "0.2", "--top-p", "0.9", "Say one word")
    assert first.returncode == 0, first.stderr
    assert "One." in first.stdout
    body = sent(loopback, 0)
    assert (body["model"], body["temperature"], body["top_p"]) == ("deepseek-chat", 0.2, 0.9)
    assert stored_options() == [(0.2, 0.9)]

    again = run_ask(loopback, "-c", "Another")  # the stored conversation keeps them
    assert again.returncode == 0, again.stderr
    assert (sent(loopback, 1)["temperature"], sent(loopback, 1)["top_p"]) == (0.2, 0.9)

    cleared = run_ask(loopback, "-c", "--temperature", "default", "A last one")
    assert cleared.returncode == 0, cleared.stderr
    assert "temperature" not in sent(loopback, 2) and sent(loopback, 2)["top_p"] == 0.9
    assert stored_options() == [(None, 0.9)]


@pytest.mark.parametrize(("args", "words"), [
    (("--temperature", "2.5"), "The temperature must be from 0 to 2, not 2.5"),
    (("--temperature", "-0.1"), "The temperature must be from 0 to 2, not -0.1"),
    (("--top-p", "0"), "Top-p must be more than 0 and at most 1, not 0"),
    (("--top-p", "1.5"), "Top-p must be more than 0 and at most 1, not 1.5"),
    (("--temperature", "warm"), "'warm' is not a number; give one such as 0.7"),
    (("--top-p", "nan"), "Top-p must be more than 0 and at most 1, not nan"),
])
def test_a_value_out_of_range_is_refused_in_words_with_exit_2(loopback, args, words):
    result = run_ask(loopback, *args, "hi")
    assert result.returncode == 2
    assert f"argument {args[0]}: {words}" in result.stderr
    assert "model's default" in result.stderr  # and what to do instead
    assert loopback.requests_to("/chat/completions") == []
