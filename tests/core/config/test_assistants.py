"""Assistants: the built-in presets, the user's kept in assistants.json (atomic, forgiving of a damaged file),
and a conversation started from one sending its system prompt, thinking and only its tools (loopback Anthropic)."""

from __future__ import annotations

import json
import os

import pytest

from desktop_copilot.core.config.assistants import (
    ALL_TOOLS,
    BUILTIN_ASSISTANTS,
    Assistant,
    AssistantError,
    AssistantLibrary,
)
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.storage.store import Store
from tests.support.loopback import anthropic_text_reply, sse_response


def _library(tmp_path) -> AssistantLibrary:
    return AssistantLibrary.in_folder(tmp_path / "config")


# --- the presets -------------------------------------------------------------------


def test_builtin_presets_have_distinct_ids_and_names_and_cannot_be_changed(tmp_path):
    library = _library(tmp_path)
    ids = [a.id for a in BUILTIN_ASSISTANTS]
    assert len(set(ids)) == len(ids) and ids[0] == "default"
    assert {a.name for a in library.all()} >= {"Default", "Coder", "Translator 中英互译", "Writer"}
    assert all(a.builtin for a in BUILTIN_ASSISTANTS)
    coder = library.get("coder")
    with pytest.raises(AssistantError, match="Duplicate"):
        library.update(coder.model_copy(update={"name": "Mine"}))
    with pytest.raises(AssistantError, match="Duplicate"):
        library.delete("coder")
    assert not (tmp_path / "config" / "assistants.json").exists()  # nothing was written


def test_a_conversation_takes_a_copy_of_the_assistant_s_settings():
    translator = next(a for a in BUILTIN_ASSISTANTS if a.id == "translator")
    conversation = translator.new_conversation()
    assert conversation.assistant_id == "translator"
    assert "中文" in conversation.system and conversation.thinking_budget == 0 and conversation.tools == []
    assert conversation.messages == [] and conversation.provider is None and conversation.model is None

    mine = Assistant(name="Reviewer", system="  Review code.  ", provider="deepseek", model="deepseek-reasoner",
                     thinking=True, thinking_budget=2048, tools=frozenset({"web_fetch", "read_file"}))
    started = mine.new_conversation()
    assert (started.system, started.provider, started.model) == ("Review code.", "deepseek", "deepseek-reasoner")
    assert started.thinking_budget == 2048 and started.tools == ["read_file", "web_fetch"]
    default = next(a for a in BUILTIN_ASSISTANTS if a.id == "default").new_conversation()
    assert default.system is None and default.thinking_budget is None and default.tools is None  # as in Settings


def test_a_model_without_a_provider_is_not_given_to_the_conversation():
    conversation = Assistant(name="x", model="claude-opus-4-1").new_conversation()
    assert conversation.provider is None and conversation.model is None


@pytest.mark.parametrize("bad", [
    {"name": "   "},
    {"name": "x" * 81},
    {"name": "ok", "provider": "Not A Provider!"},
    {"name": "ok", "thinking_budget": 100},
    {"name": "ok", "tools": "some"},
    {"name": "ok", "system": "s" * 100_001},
])
def test_bad_values_are_refused_in_words(bad):
    with pytest.raises(ValueError):
        Assistant.model_validate(bad)


def test_a_name_with_line_breaks_becomes_one_line():
    assert Assistant(name="Two\nlines\t here").name == "Two lines here"


# --- assistants.json ---------------------------------------------------------------


def test_user_assistants_round_trip_through_the_file(tmp_path):
    library = _library(tmp_path)
    added = library.add(Assistant(name="研究助手", system="Cite sources.", tools=frozenset({"tavily_search"}), thinking=False))
    copy = library.duplicate("coder")
    assert copy.name == "Coder (copy)" and not copy.builtin and copy.id not in {"coder", added.id}
    assert copy.system == library.get("coder").system and copy.thinking is True
    library.update(copy.model_copy(update={"name": "My coder"}))

    path = tmp_path / "config" / "assistants.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["version"] == 1
    assert [entry["name"] for entry in document["assistants"]] == ["研究助手", "My coder"]
    assert document["assistants"][0]["tools"] == ["tavily_search"] and document["assistants"][1]["tools"] == ALL_TOOLS
    assert "builtin" not in document["assistants"][0]
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]  # the temporary file was renamed over

    again = _library(tmp_path)
    assert again.problem is None
    assert [a.model_dump() for a in again.user] == [a.model_dump() for a in library.user]
    again.delete(added.id)
    assert [a.name for a in _library(tmp_path).user] == ["My coder"]


def test_adding_an_assistant_with_a_taken_id_gets_a_fresh_one(tmp_path):
    library = _library(tmp_path)
    first = library.add(Assistant(id="same", name="One"))
    second = library.add(Assistant(id="same", name="Two"))
    builtin_copy = library.add(BUILTIN_ASSISTANTS[1])
    assert first.id == "same" and second.id != "same" and builtin_copy.id != BUILTIN_ASSISTANTS[1].id
    assert not builtin_copy.builtin


def test_a_damaged_file_is_kept_aside_and_said(tmp_path):
    path = tmp_path / "config" / "assistants.json"
    path.parent.mkdir(parents=True)
    path.write_text("{ not json", encoding="utf-8")
    library = AssistantLibrary(path)
    assert library.user == [] and library.problem and "kept as" in library.problem
    kept = [p for p in path.parent.iterdir() if p.name.startswith("assistants.json.broken-")]
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == "{ not json"
    assert [a.id for a in library.all()] == [a.id for a in BUILTIN_ASSISTANTS]


def test_valid_entries_of_a_partly_bad_file_are_kept(tmp_path):
    path = tmp_path / "assistants.json"
    good = Assistant(name="Good").model_dump(mode="json")
    path.write_text(json.dumps({"version": 1, "assistants": [good, {"name": ""}, {**good, "id": "coder"}]}), encoding="utf-8")
    library = AssistantLibrary(path)
    assert [a.name for a in library.user] == ["Good"]
    assert "2 of its entries are not valid" in library.problem
    assert not path.exists()  # moved aside, so the next save cannot lose what was in it
    library.add(Assistant(name="Another"))
    assert [a.name for a in AssistantLibrary(path).user] == ["Good", "Another"]


def test_a_failed_save_says_where_and_changes_nothing(tmp_path):
    folder = tmp_path / "config"
    library = AssistantLibrary.in_folder(folder)
    folder.write_text("a file where the folder should be")  # e.g. the disk changed under the app
    with pytest.raises(AssistantError, match=f"could not be saved to {folder}"):
        library.add(Assistant(name="Lost"))
    assert library.user == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs file permissions that bind the user")
def test_an_unreadable_file_is_never_overwritten(tmp_path):
    path = tmp_path / "assistants.json"
    path.write_text(json.dumps({"version": 1, "assistants": [Assistant(name="Keep").model_dump(mode="json")]}))
    path.chmod(0)
    try:
        library = AssistantLibrary(path)
        assert library.user == [] and "could not be read" in library.problem
        with pytest.raises(AssistantError, match="Fix or remove"):
            library.add(Assistant(name="New"))
    finally:
        path.chmod(0o600)
    assert "Keep" in path.read_text()


def test_of_finds_the_assistant_a_conversation_started_from(tmp_path):
    library = _library(tmp_path)
    mine = library.add(Assistant(name="Mine"))
    assert library.of(mine.new_conversation()) == mine
    assert library.of(Conversation()) is None
    library.delete(mine.id)
    assert library.of(mine.new_conversation()) is None  # deleted since: the conversation keeps its settings


# --- what a run sends --------------------------------------------------------------


def _session(loopback, tmp_path, conversation: Conversation, *, thinking_budget: int | None = None,
             environ: dict[str, str] | None = None) -> ChatSession:
    config = AppConfig(anthropic_base_url=loopback.url, tavily_base_url=loopback.url, thinking_budget=thinking_budget)
    keys = KeyLookup([EnvironmentKeys(environ or {"ANTHROPIC_API_KEY": "sk-ant-test-0000", "TAVILY_API_KEY": "tvly-test"})])
    runtime = Runtime(AppPaths.resolve().ensure(), config, keys)
    return ChatSession(runtime, conversation, Store(tmp_path / "db.sqlite3"))


def test_options_follow_the_conversation_s_thinking(tmp_path, loopback):
    def budget(conversation_budget, settings_budget):
        session = _session(loopback, tmp_path, Conversation(thinking_budget=conversation_budget), thinking_budget=settings_budget)
        session.store.close()
        return session.options("anthropic").thinking_budget

    assert budget(None, 4096) == 4096  # as in Settings
    assert budget(None, None) is None
    assert budget(0, 4096) is None  # the assistant turned it off
    assert budget(8192, None) == 8192  # the assistant turned it on


@pytest.mark.asyncio
async def test_prepare_run_offers_only_the_named_tools_that_can_run(tmp_path, loopback):
    session = _session(loopback, tmp_path, Conversation())
    runtime = session.runtime
    runtime.switched_off_tools = {"web_fetch"}
    try:
        assert [t.name for t in (await runtime.prepare_run("anthropic")).tools] == ["tavily_search"]
        assert [t.name for t in (await runtime.prepare_run("anthropic", {"web_fetch"})).tools] == ["web_fetch"]  # chosen wins
        assert (await runtime.prepare_run("anthropic", set())).tools == []
        assert [t.name for t in (await runtime.prepare_run("anthropic", {"read_file", "web_fetch", "gone"})).tools] == ["web_fetch"]
    finally:
        await runtime.aclose()
        session.store.close()


@pytest.mark.asyncio
async def test_a_conversation_from_an_assistant_sends_its_prompt_thinking_and_tools(tmp_path, loopback):
    assistant = Assistant(name="Researcher", system="Answer in one sentence.", thinking=True, thinking_budget=2048,
                          tools=frozenset({"tavily_search"}))
    session = _session(loopback, tmp_path, assistant.new_conversation())
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("One sentence.")), sse_response(anthropic_text_reply("Again.")))
    try:
        await session.send("Tell me about tides", lambda e: None)
        stored = session.store.load_conversation(session.conversation.id)
        assert stored.assistant_id == assistant.id and stored.tools == ["tavily_search"] and stored.thinking_budget == 2048
        await session.regenerate(lambda e: None)  # every run of the conversation keeps them
    finally:
        await session.runtime.aclose()
        session.store.close()
    for request in loopback.requests_to("/v1/messages"):
        body = request.json()
        system = body["system"] if isinstance(body["system"], str) else "".join(part["text"] for part in body["system"])
        assert system == "Answer in one sentence."
        assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert [tool["name"] for tool in body["tools"]] == ["tavily_search"]
