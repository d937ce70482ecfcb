"""`desktop-copilot knowledge …` and `ask` through search_knowledge, as a user runs them: subprocesses on a real
home folder, a corpus made here in English and Chinese, the Anthropic loopback server, and a loopback embedding server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.app.test_ask_mcp import ROOT, env_for, requests
from tests.support.embedding_server import EmbeddingServer
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response

CORPUS = {
    "garden/roses.md": "# Roses\n\nPrune roses in late winter, just above an outward-facing bud.\n",
    "kitchen/bread.md": "# Sourdough\n\nBake the loaf at 230 degrees for forty minutes, lid on for the first twenty.\n",
    "travel/火车.txt": "从上海到北京的高铁大约需要四个半小时，二等座票价五百多元。\n",
    "notes/tea.txt": "龙井是杭州西湖的绿茶，冲泡水温八十度左右。\n",
}


def run(*args, env=None, timeout=90):
    return subprocess.run([sys.executable, "-m", "desktop_copilot", *args], env=env or dict(os.environ, PYTHONIOENCODING="utf-8"),
                          capture_output=True, text=True, encoding="utf-8", timeout=timeout, cwd=ROOT, stdin=subprocess.DEVNULL)


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "corpus"
    for path, text in CORPUS.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    (root / ".gitignore").write_text("private/\n")
    (root / "private").mkdir()
    (root / "private" / "diary.md").write_text("Prune roses secretly.\n")
    return root


def search(query, *extra, env=None):
    result = run("knowledge", "search", query, "--json", *extra, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_add_list_search_switch_and_remove(corpus):
    added = run("knowledge", "add", str(corpus), "--name", "shelf")
    assert added.returncode == 0, added.stderr
    assert "Added “shelf”" in added.stdout and "shelf: 5 new" in added.stdout  # four notes and the .gitignore

    listed = json.loads(run("knowledge", "list", "--json").stdout)["sources"]
    assert [(s["name"], s["files"], s["on"]) for s in listed] == [("shelf", 5, True)]

    english = search("when should I prune roses")
    assert english["results"][0]["path"] == "garden/roses.md" and english["results"][0]["location"] == "lines 1–3"
    assert english["results"][0]["file"] == str(corpus / "garden" / "roses.md") and not english["hybrid"]
    assert all("private" not in r["path"] for r in english["results"])  # .gitignore honoured
    chinese = search("上海到北京高铁要多久")
    assert chinese["results"][0]["path"] == "travel/火车.txt"
    assert search("龙井水温", "--top", "1")["results"][0]["path"] == "notes/tea.txt"

    plain = run("knowledge", "search", "sourdough", "--source", "shelf")
    assert plain.returncode == 0 and "1. kitchen/bread.md  lines 1–3  [shelf]" in plain.stdout

    assert run("knowledge", "off", "shelf").returncode == 0
    assert search("roses")["results"] == []
    assert run("knowledge", "on", "shelf").returncode == 0

    (corpus / "garden" / "roses.md").unlink()
    reindexed = run("knowledge", "reindex", "shelf")
    assert "1 removed" in reindexed.stdout
    assert all(r["path"] != "garden/roses.md" for r in search("prune roses")["results"])

    unknown = run("knowledge", "remove", "nope")
    assert unknown.returncode == 2 and "No knowledge source is called “nope” (sources: shelf)" in unknown.stderr
    removed = run("knowledge", "remove", "shelf")
    assert removed.returncode == 0 and "untouched" in removed.stdout and corpus.exists()
    assert "No knowledge sources yet" in run("knowledge", "list").stdout


def test_files_left_out_are_listed_with_reasons(corpus):
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really a pdf")
    (corpus / ".env").write_text("TOKEN=abc\n")
    added = run("knowledge", "add", str(corpus))
    assert added.returncode == 0 and "2 left out" in added.stdout and "left out .env: may hold secrets" in added.stdout
    problems = {p["path"]: p for p in json.loads(run("knowledge", "list", "--json").stdout)["sources"][0]["problems"]}
    assert set(problems) == {"broken.pdf", ".env"} and problems["broken.pdf"]["status"] == "failed"


def test_ask_answers_through_search_knowledge_and_the_history_keeps_the_passages(loopback, corpus):
    assert run("knowledge", "add", str(corpus), "--name", "shelf").returncode == 0
    loopback.enqueue("/v1/messages",
                     sse_response(anthropic_tool_reply([("toolu_k", "search_knowledge", {"query": "bake sourdough temperature"})])),
                     sse_response(anthropic_text_reply("Bake it at 230 degrees [1].")))
    result = run("ask", "At what temperature do I bake my sourdough?", env=env_for(loopback))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith("Bake it at 230 degrees [1].")
    assert f"sources:\n  [1] kitchen/bread.md — lines 1–3 · shelf  ({corpus / 'kitchen' / 'bread.md'})" in result.stderr
    first, second = requests(loopback)
    assert "search_knowledge" in {t["name"] for t in first["tools"]}
    (tool_result,) = [b for b in second["messages"][-1]["content"] if b.get("type") == "tool_result"]
    text = tool_result["content"] if isinstance(tool_result["content"], str) else tool_result["content"][0]["text"]
    assert "[1] kitchen/bread.md · lines 1–3 · source “shelf”" in text and "230 degrees" in text
    shown = json.loads(run("history", "show", "--last", "--json").stdout)
    (call,) = [b for m in shown["messages"] for b in m["blocks"] if b["type"] == "tool_call"]
    (part,) = [p for p in call["result_parts"] if p["type"] == "knowledge_passage"][:1]
    assert part["number"] == 1 and part["path"] == "kitchen/bread.md" and part["file"] == str(corpus / "kitchen" / "bread.md")


def test_search_knowledge_is_not_offered_without_a_switched_on_source(loopback, corpus):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Hi.")), sse_response(anthropic_text_reply("Hi.")))
    assert run("ask", "hi", env=env_for(loopback)).returncode == 0
    assert run("knowledge", "add", str(corpus), "--name", "shelf", "--no-index").returncode == 0
    assert run("knowledge", "off", "shelf").returncode == 0
    assert run("ask", "hi", env=env_for(loopback)).returncode == 0
    assert all("search_knowledge" not in {t["name"] for t in body.get("tools", [])} for body in requests(loopback))


def test_with_an_embedding_model_passages_are_embedded_cached_and_searched_hybrid(corpus):
    with EmbeddingServer(key="sk-embed-test-0123456789") as server:
        env = dict(os.environ, PYTHONIOENCODING="utf-8", OPENAI_API_KEY="sk-embed-test-0123456789")
        config = {"knowledge_embedding": {"wire": "openai", "model": "text-embedding-3-small", "base_url": server.openai_url,
                                          "key_name": "openai"}}
        home = os.environ["DESKTOP_COPILOT_HOME"]
        os.makedirs(f"{home}/config", exist_ok=True)
        with open(f"{home}/config/settings.json", "w", encoding="utf-8") as handle:
            json.dump(config, handle)
        added = run("knowledge", "add", str(corpus), "--name", "shelf", env=env)
        assert added.returncode == 0, added.stderr
        assert "Embedded 5 passages with text-embedding-3-small" in added.stdout
        embedded = len(server.calls)
        again = run("knowledge", "reindex", "--full", env=env)  # every file read again: the same texts cost nothing
        assert again.returncode == 0 and "Embedded" not in again.stdout and len(server.calls) == embedded
        found = search("prune roses winter", env=env)
        assert found["hybrid"] and found["results"][0]["path"] == "garden/roses.md"
        leaked = [p for p in Path(home).rglob("*") if p.is_file() and b"sk-embed-test" in p.read_bytes()]
        assert leaked == []  # not in the settings, the database, the vectors or the logs
        server.fail_next(401, times=5)
    down = search("prune roses", env=env)  # the server is gone: words only, and said
    assert not down["hybrid"] and down["results"][0]["path"] == "garden/roses.md" and "Searched by words only" in down["note"]
