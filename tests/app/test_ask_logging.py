"""`desktop-copilot ask` as a subprocess against the loopback Anthropic server: what its log file says."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.app.test_ask import KEY, ask, ask_env
from tests.support.loopback import anthropic_error, anthropic_text_reply, sse_response

REQUEST_LINE = re.compile(
    r"INFO +\[\d+\] desktop_copilot\.requests: anthropic request: model=(?P<model>\S+) status=(?P<status>\d+) "
    r"retries=(?P<retries>\d+) first_event=(?P<first>[\d.]+)s total=(?P<total>[\d.]+)s outcome=(?P<outcome>\S+) "
    r"tokens_in=\d+ tokens_out=\d+"
)


def log_text() -> str:
    return (Path(os.environ["DESKTOP_COPILOT_HOME"]) / "logs" / "desktop-copilot.log").read_text(encoding="utf-8")


def test_a_reply_logs_one_request_line_with_timings_and_no_key_or_words(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("The secret garden blooms.")))
    result = ask(loopback, "--model", "claude-test-model", "tell me about my private garden")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The secret garden blooms.\n"
    assert "INFO" not in result.stderr and "request" not in result.stderr  # the log is in the file only
    text = log_text()
    lines = [m.groupdict() for m in REQUEST_LINE.finditer(text)]
    assert len(lines) == 1, text
    line = lines[0]
    assert (line["model"], line["status"], line["retries"], line["outcome"]) == ("claude-test-model", "200", "0", "end_turn")
    assert float(line["first"]) <= float(line["total"]) < 60
    assert "starting (ask)" in text and "stopping (ask), exit code 0" in text
    assert KEY not in text and "private garden" not in text and "secret garden" not in text


def test_a_retry_shows_in_the_log_and_the_request_line(loopback):
    loopback.enqueue(
        "/v1/messages",
        anthropic_error(529, "overloaded_error", "Overloaded", headers={"retry-after": "0"}),
        sse_response(anthropic_text_reply("made it")),
    )
    result = ask(loopback, "go")
    assert result.returncode == 0, result.stderr
    text = log_text()
    assert "busy_retry: retrying the request in 0.0 s (retry 1): HTTP 529" in text
    assert [m["retries"] for m in REQUEST_LINE.finditer(text)] == ["1"]


def test_a_rejected_key_echoed_by_the_server_is_masked_in_the_warning(loopback):
    loopback.set_handler("/v1/messages", lambda request: anthropic_error(
        401, "authentication_error", f"invalid x-api-key {request.headers['authorization']}"))
    result = ask(loopback, "go")
    assert result.returncode == 3
    text = log_text()
    assert re.search(r"WARNING .* anthropic request: model=\S+ status=401 retries=0 first_event=- total=[\d.]+s "
                     r"outcome=error error='The Anthropic API rejected the key \(401: invalid x-api-key Bearer ", text), text
    assert KEY not in text and KEY not in result.stderr


def test_debug_adds_request_sizes_but_never_the_words(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("fine")), sse_response(anthropic_text_reply("ok")))
    assert ask(loopback, "--debug", "my private question").returncode == 0
    assert ask(loopback, "again please", env=ask_env(loopback, DESKTOP_COPILOT_LOG="debug")).returncode == 0
    text = log_text()
    assert text.count("log level DEBUG") == 2
    assert "anthropic request starting: model=claude-sonnet-4-6 messages=1 tools=1 max_tokens=" in text, text
    assert "private question" not in text and "again please" not in text and "fine" not in text
