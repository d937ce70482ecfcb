"""A full run that sets every key (keys CLI and the settings dialog), sends a message with a tool round
trip through the window and through `ask`, then finds no key value in any file under DESKTOP_COPILOT_HOME,
the log folder included (the log is checked to hold the run's requests, so the scan is not vacuous).

With DESKTOP_COPILOT_SECRET_SERVICE=1 (tests/run.sh) the keys go to the real Secret Service and `ask` runs
as a separate process; otherwise an in-memory keyring is used and `ask` runs in this process."""

from __future__ import annotations

import os
import re
import secrets
import sqlite3
from pathlib import Path

import pytest

from tests.qt.conftest import make_window, qasync_loop, run_async  # noqa: F401 - fixtures are used by name
from tests.support.log_support import read_log
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response, tavily_results
from tests.support.secret_session import (  # noqa: F401 - fixtures are used by name
    SECRET_SERVICE,
    app_log,
    keyring_entries,
    run_ask,
    run_cli,
    save_in_dialog,
)
from tests.support.settings_support import anthropic_models, files_containing, open_dialog


@pytest.fixture
def key_values(keyring_entries):  # noqa: F811
    """Fresh key values; the keyring is the real Secret Service (cleaned afterwards) or an in-memory one."""
    values = {"anthropic": f"sk-ant-api03-nodisk-{secrets.token_hex(16)}", "tavily": f"tvly-nodisk-{secrets.token_hex(16)}"}
    keyring_entries.update(values)
    return values


def enqueue_tool_round_trip(loopback, query: str, tag: str) -> None:
    loopback.enqueue(
        "/v1/messages",
        sse_response(anthropic_tool_reply([(f"toolu_{tag}", "tavily_search", {"query": query})], msg_id=f"msg_{tag}_1")),
        sse_response(anthropic_text_reply(f"Cloudy ({tag}).", msg_id=f"msg_{tag}_2")),
    )
    loopback.enqueue("/search", tavily_results(query, [("HK Observatory", "https://www.hko.gov.hk", "Cloudy")]))


def test_a_full_run_leaves_no_key_in_any_file(qtbot, make_window, loopback, key_values, monkeypatch, capsys, app_log):  # noqa: F811
    from desktop_copilot.core.bootstrap import build_runtime

    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    monkeypatch.setenv("TAVILY_BASE_URL", loopback.url)
    home = Path(os.environ["DESKTOP_COPILOT_HOME"])
    if SECRET_SERVICE:  # one key through the command line, into the real keyring
        result = run_cli("keys", "set", "anthropic", stdin=key_values["anthropic"] + "\n", timeout=60)
        assert result.returncode == 0 and "Secret Service" in result.stdout, result.stderr

    window = make_window(build_runtime(check_keyring=False))
    dialog = open_dialog(qtbot, window)
    assert dialog.keys_page.status.usable
    assert ("Secret Service" in dialog.keys_page.status.backend) is SECRET_SERVICE
    if not SECRET_SERVICE:
        save_in_dialog(qtbot, dialog, "anthropic", key_values["anthropic"])
    save_in_dialog(qtbot, dialog, "tavily", key_values["tavily"])
    loopback.enqueue("/v1/models", anthropic_models(["claude-sonnet-4-5", "claude-haiku-4-5"]))
    row = dialog.providers_page.rows["anthropic"]
    row.test_button.click()
    qtbot.waitUntil(lambda: "Works" in row.result.text(), timeout=30000)
    dialog.models_page.thinking_switch.click()
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)

    enqueue_tool_round_trip(loopback, "weather in Hong Kong", "window")
    assert window.send("What is the weather in Hong Kong?")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=15000)
    assert window.banner.isHidden(), window.banner.text()

    enqueue_tool_round_trip(loopback, "weather in Florence", "ask")
    output = run_ask(qtbot, capsys, "What is the weather in Florence?")
    assert "Cloudy (ask)." in output

    messages = loopback.requests_to("/v1/messages")
    assert len(messages) == 4 and all(r.headers["authorization"] == f"Bearer {key_values['anthropic']}" for r in messages)
    assert all([t["name"] for t in r.json()["tools"]] == ["tavily_search", "web_fetch"] for r in messages)
    searches = loopback.requests_to("/search")
    assert len(searches) == 2 and all(r.headers["authorization"] == f"Bearer {key_values['tavily']}" for r in searches)
    for value in key_values.values():
        assert value not in output

    files = [p.relative_to(home).as_posix() for p in home.rglob("*") if p.is_file()]
    assert "config/settings.json" in files and "data/conversations.sqlite3" in files
    with sqlite3.connect(home / "data" / "conversations.sqlite3") as db:  # the run was stored: the scan means something
        assert db.execute("SELECT count(*) FROM messages WHERE blocks LIKE '%tavily_search%'").fetchone()[0] == 2
    log_text = read_log(app_log)  # the log got written: the scan below covers real lines
    assert "logs/desktop-copilot.log" in files
    assert len(re.findall(r"anthropic request: model=\S+ status=200 ", log_text)) == 4
    assert "anthropic models list: 2 models" in log_text and log_text.count("tool run: name=tavily_search") == 2
    assert "Hong Kong" not in log_text and "Cloudy" not in log_text  # nor the conversation, even at DEBUG
    for name, value in key_values.items():
        assert files_containing(home, value) == [], f"the {name} key was found on disk"
