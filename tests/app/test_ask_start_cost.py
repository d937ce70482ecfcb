"""What `ask` leaves for later to start and end sooner: the keyring stays closed when the environment holds every key
the run asks for, or when the keyring is known not to hold the others (a key only the keyring holds, the provider's or
a tool's, still works), and the reply's search row is written by the next store that indexes (`history search` finds
the reply)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.loopback import anthropic_sse, anthropic_text_reply, sse_response
from tests.support.memory_keyring import use_memory_keyring
from tests.support.ollama_support import text_reply as ollama_text_reply

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-start-cost-7311"
SECRET_SERVICE = os.environ.get("DESKTOP_COPILOT_SECRET_SERVICE") == "1"

_PROBE = """
import sys
from desktop_copilot.app import cli
code = cli.main(["ask", *sys.argv[1:]])
print(json.dumps({"code": code, "keyring": "keyring" in sys.modules}), file=sys.stderr)
"""


def probed_ask(*args: str, env: dict[str, str]) -> tuple[dict, subprocess.CompletedProcess]:
    """`ask` in a child process that says on its last stderr line whether the keyring package was imported."""
    result = subprocess.run([sys.executable, "-c", "import json" + _PROBE, *args], env=env, cwd=ROOT, capture_output=True,
                            text=True, encoding="utf-8", timeout=60)
    return json.loads(result.stderr.strip().splitlines()[-1]), result


def test_keys_the_environment_holds_for_the_whole_run_need_no_keyring(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(anthropic_text_reply("Hi there."))))
    env = dict(os.environ, ANTHROPIC_API_KEY=KEY, TAVILY_API_KEY="tvly-test-key", ANTHROPIC_BASE_URL=loopback.url,
               PYTHONIOENCODING="utf-8")
    probe, result = probed_ask("--provider", "anthropic", "hello", env=env)
    assert probe == {"code": 0, "keyring": False}, result.stderr
    assert result.stdout == "Hi there.\n"
    assert loopback.requests[0].headers.get("authorization") == f"Bearer {KEY}"


def test_keys_the_record_says_the_keyring_lacks_need_no_keyring(loopback):
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.keys.saved_names import SavedNames

    SavedNames(AppPaths.resolve().ensure().key_names_file).learn(set(), {"anthropic", "tavily"})  # as the window learnt
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(anthropic_text_reply("Hi there."))))
    env = dict(os.environ, ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=loopback.url, PYTHONIOENCODING="utf-8")
    env.pop("TAVILY_API_KEY", None)
    probe, result = probed_ask("--provider", "anthropic", "hello", env=env)
    assert probe == {"code": 0, "keyring": False}, result.stderr
    assert result.stdout == "Hi there.\n"


def test_without_the_key_in_the_environment_the_keyring_is_asked(loopback):
    env = dict(os.environ, ANTHROPIC_BASE_URL=loopback.url, PYTHONIOENCODING="utf-8",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    probe, result = probed_ask("--provider", "anthropic", "hello", env=env)
    assert probe["keyring"] is True and probe["code"] == 2
    assert "No usable keyring" in result.stderr and "No Anthropic API key" in result.stderr
    assert not loopback.requests


def test_a_key_only_the_keyring_holds_still_works(loopback, monkeypatch, capsys):
    from desktop_copilot.app import cli
    from desktop_copilot.core.keys.keyring_store import SERVICE

    backend = use_memory_keyring(monkeypatch)
    backend.set_password(SERVICE, "anthropic", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(anthropic_text_reply("From the keyring."))))
    assert cli.main(["ask", "--provider", "anthropic", "hello"]) == 0
    assert capsys.readouterr().out == "From the keyring.\n"
    assert loopback.requests[0].headers.get("authorization") == f"Bearer {KEY}"


def test_a_tool_key_only_the_keyring_holds_is_still_offered(loopback, monkeypatch, capsys):
    from desktop_copilot.app import cli
    from desktop_copilot.core.keys.keyring_store import SERVICE

    backend = use_memory_keyring(monkeypatch)
    backend.set_password(SERVICE, "tavily", "tvly-from-the-keyring")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(anthropic_text_reply("Searched."))))
    assert cli.main(["ask", "--provider", "anthropic", "hello"]) == 0
    assert capsys.readouterr().out == "Searched.\n"
    assert "tavily_search" in [tool["name"] for tool in json.loads(loopback.requests[0].body)["tools"]]


def _offered(request) -> list[str]:
    return sorted(tool["function"]["name"] for tool in request.json().get("tools", []))


def test_without_a_session_bus_tool_keys_are_looked_up_without_the_keyring(loopback):
    """keyring would find no keyring there (core/keys/secret_service_search.py): nothing to open for the tools' keys."""
    loopback.enqueue("/api/chat", ollama_text_reply("Hi there."))
    env = dict(os.environ, OLLAMA_HOST=loopback.url, PYTHONIOENCODING="utf-8")
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    probe, result = probed_ask("--provider", "ollama", "hello", env=env)
    assert probe == {"code": 0, "keyring": False}, result.stderr
    assert result.stdout == "Hi there.\n" and "tavily_search" not in _offered(loopback.requests[0])


@pytest.mark.skipif(not SECRET_SERVICE, reason="needs a real Secret Service: run through tests/run.sh")
def test_tool_keys_the_secret_service_lacks_are_looked_up_without_the_keyring(loopback):
    loopback.enqueue("/api/chat", ollama_text_reply("Hi there."))
    probe, result = probed_ask("--provider", "ollama", "hello", env=dict(os.environ, OLLAMA_HOST=loopback.url, PYTHONIOENCODING="utf-8"))
    assert probe == {"code": 0, "keyring": False}, result.stderr
    assert result.stdout == "Hi there.\n" and "tavily_search" not in _offered(loopback.requests[0])


@pytest.mark.skipif(not SECRET_SERVICE, reason="needs a real Secret Service: run through tests/run.sh")
def test_a_tool_key_the_secret_service_holds_is_read_from_the_keyring_and_offered(loopback):
    from keyring.backends.SecretService import Keyring

    from desktop_copilot.core.keys.keyring_store import SERVICE

    backend = Keyring()
    backend.set_password(SERVICE, "tavily", "tvly-in-the-secret-service")
    try:
        loopback.enqueue("/api/chat", ollama_text_reply("Searched."))
        probe, result = probed_ask("--provider", "ollama", "hello",
                                   env=dict(os.environ, OLLAMA_HOST=loopback.url, PYTHONIOENCODING="utf-8"))
    finally:
        backend.delete_password(SERVICE, "tavily")
    assert probe == {"code": 0, "keyring": True}, result.stderr
    assert result.stdout == "Searched.\n" and "tavily_search" in _offered(loopback.requests[0])


UNUSED = ("keyring", "rich", "click", "desktop_copilot.core.knowledge.library", "html.parser",
          "desktop_copilot.core.keys.key_check", "desktop_copilot.core.usage.pricing", "difflib")
"""What a run that calls no tool and searches nothing leaves unloaded: the keyring (no key it lacks is held there),
httpx's command-line tool (app/httpx_cli.py), the knowledge library (no knowledge database), web_fetch's tag stripper
(no page read), the key check (no key tested), the shipped price table (no cost shown), difflib (no file change shown);
nor does it compile the search's CJK patterns (core/storage/search.py: an ASCII title needs none) or the tokenizer's
(pydantic reads the models' list factories' signatures: core/empty_lists.py)."""


def test_a_run_without_tools_or_search_leaves_what_it_does_not_use_unloaded(loopback):
    loopback.enqueue("/api/chat", ollama_text_reply("Hi there."))
    env = dict(os.environ, OLLAMA_HOST=loopback.url, PYTHONIOENCODING="utf-8")
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    probe = """
import json, sys, runpy
sys.argv = ["desktop_copilot", "ask", "--provider", "ollama", "hello"]
try:
    runpy.run_module("desktop_copilot", run_name="__main__")
except SystemExit as exc:
    import tokenize
    from desktop_copilot.core.storage import search
    print(json.dumps({"code": exc.code, "loaded": [name for name in %r if name in sys.modules],
                      "search_patterns": search.cjk_char.cache_info().currsize + search._spaces_between_cjk.cache_info().currsize,
                      "tokenizer_patterns": tokenize._compile.cache_info().currsize}), file=sys.stderr)
""" % (UNUSED,)
    result = subprocess.run([sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True,
                            encoding="utf-8", timeout=60)
    assert json.loads(result.stderr.strip().splitlines()[-1]) == {"code": 0, "loaded": [], "search_patterns": 0,
                                                                  "tokenizer_patterns": 0}, result.stderr
    assert result.stdout == "Hi there.\n"


def test_the_reply_is_found_by_history_search_after_ask_ends(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(anthropic_text_reply("The 量子 harmonica reply."))))
    env = dict(os.environ, ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=loopback.url, PYTHONIOENCODING="utf-8")
    asked = subprocess.run([sys.executable, "-m", "desktop_copilot", "ask", "hello"], env=env, cwd=ROOT,
                           capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert asked.returncode == 0, asked.stderr
    db = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "data" / "conversations.sqlite3"
    import sqlite3

    with sqlite3.connect(db) as conn:  # left for later: listed as pending, not written at exit
        assert conn.execute("SELECT COUNT(*) FROM search_pending").fetchone()[0] >= 1
    conn.close()
    found = subprocess.run([sys.executable, "-m", "desktop_copilot", "history", "search", "harmonica"], env=env, cwd=ROOT,
                           capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert found.returncode == 0, found.stderr
    assert "harmonica" in found.stdout
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM search_pending").fetchone()[0] == 0
    conn.close()


@pytest.mark.parametrize("search_first", [True, False])
def test_a_store_that_defers_indexing_writes_the_rows_when_it_searches(tmp_path, search_first):
    from desktop_copilot.core.conversation.models import Conversation, Message
    from desktop_copilot.core.storage.store import Store

    store = Store(tmp_path / "c.sqlite3", defer_indexing=True)
    conversation = Conversation(title="t")
    store.save_conversation(conversation)
    store.save_message(conversation.id, 0, Message.user("a walrus in the text"))
    if search_first:
        assert [hit.message_id for hit in store.search("walrus")] != []
    store.close()
    reopened = Store(tmp_path / "c.sqlite3")
    assert [hit.message_id for hit in reopened.search("walrus")] != []
    reopened.close()
