"""`ask` and the output limit (a reply cut off at max_tokens, --max-tokens, DESKTOP_COPILOT_MAX_TOKENS) and
refusals: subprocesses against the loopback Anthropic server."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from tests.app.test_ask import ask, ask_env
from tests.support.loopback import anthropic_sse, anthropic_text_reply, sse_response

CODE = "def fibonacci(n):\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fib"


def last_reply() -> tuple[str, str, str | None]:
    db = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "data" / "conversations.sqlite3"
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT status, stop_reason, error FROM messages ORDER BY rowid DESC LIMIT 1").fetchone()


def cut_off(text: str = CODE, **kw) -> object:
    return sse_response(anthropic_text_reply(text, pieces=4, stop_reason="max_tokens", **kw))


def test_a_cut_off_reply_warns_names_the_limit_and_says_how_to_continue(loopback):
    loopback.enqueue("/v1/messages", cut_off())
    result = ask(loopback, "--max-tokens", "50000", "write fibonacci")
    assert result.returncode == 4, result.stderr
    assert result.stdout == CODE + "\n"
    assert ("warning: the reply was cut off at the output limit (50000 tokens). "
            'Run `desktop-copilot ask -c --max-tokens 100000 "continue"` to continue it.') in result.stderr
    assert loopback.requests[0].json()["max_tokens"] == 50_000
    assert last_reply() == ("completed", "max_tokens", None)


def test_the_suggested_continue_carries_on_with_the_whole_history(loopback):
    loopback.enqueue("/v1/messages", cut_off(), sse_response(anthropic_text_reply("onacci(n - 2)")))
    assert ask(loopback, "write fibonacci").returncode == 4
    result = ask(loopback, "-c", "--max-tokens", "64000", "continue")
    assert result.returncode == 0, result.stderr
    assert "cut off" not in result.stderr
    body = loopback.requests[1].json()
    assert body["max_tokens"] == 64_000
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"][0]["text"] == CODE


def test_the_default_limit_is_32000_and_the_environment_can_raise_it(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("a")), sse_response(anthropic_text_reply("b")),
                     sse_response(anthropic_text_reply("c")))
    assert ask(loopback, "one").returncode == 0
    env = ask_env(loopback, DESKTOP_COPILOT_MAX_TOKENS="40000")
    assert ask(loopback, "two", env=env).returncode == 0
    assert ask(loopback, "--max-tokens", "50000", "three", env=env).returncode == 0
    assert [r.json()["max_tokens"] for r in loopback.requests] == [32_000, 40_000, 50_000]


@pytest.mark.parametrize("value", ["0", "-5", "lots", "1.5"])
def test_an_unusable_max_tokens_is_a_usage_error(loopback, value):
    result = ask(loopback, f"--max-tokens={value}", "hi")
    assert result.returncode == 2
    assert "--max-tokens" in result.stderr and "not a positive whole number of tokens" in result.stderr
    assert loopback.requests == []


def test_an_unusable_environment_limit_is_a_usage_error(loopback):
    result = ask(loopback, "hi", env=ask_env(loopback, DESKTOP_COPILOT_MAX_TOKENS="32k"))
    assert result.returncode == 2
    assert "DESKTOP_COPILOT_MAX_TOKENS" in result.stderr and "positive whole number" in result.stderr
    assert loopback.requests == []


def test_an_older_model_is_asked_for_no_more_than_it_accepts(loopback):
    model = "claude-3-5-haiku-20241022"
    loopback.enqueue("/v1/messages", cut_off(model=model, output_tokens=8192))
    result = ask(loopback, "--model", model, "--max-tokens", "50000", "write fibonacci")
    assert result.returncode == 4
    assert loopback.requests[0].json()["max_tokens"] == 8192
    assert f"{model} writes at most 8192 tokens per reply" in result.stderr
    assert (f"cut off at the output limit (8192 tokens, the most {model} can write). "
            'Run `desktop-copilot ask -c "continue"`') in result.stderr


def test_without_saving_the_warning_suggests_asking_again_with_more(loopback):
    loopback.enqueue("/v1/messages", cut_off())
    result = ask(loopback, "--no-save", "write fibonacci")
    assert result.returncode == 4
    assert "(32000 tokens). Ask again with a higher limit (--max-tokens 64000)." in result.stderr


def refusal_stream() -> list[bytes]:
    events = anthropic_text_reply("", stop_reason="refusal")
    events[-2]["delta"]["stop_details"] = {"type": "refusal", "category": "cyber",
                                           "explanation": "This looks like exploit development."}
    return anthropic_sse(events)


def test_a_refusal_is_an_error_in_words_with_exit_3(loopback):
    loopback.enqueue("/v1/messages", sse_response(refusal_stream()))
    result = ask(loopback, "write an exploit")
    # Needs the core's refusal support (RunFinished(outcome="refused"), message.error from stop_details).
    assert result.returncode == 3, result.stderr
    assert "error: Claude declined to answer this request (policy category: cyber)." in result.stderr
    assert "exploit development" in result.stderr
    status, stop_reason, error = last_reply()
    assert (status, stop_reason) == ("completed", "refusal") and "cyber" in error
