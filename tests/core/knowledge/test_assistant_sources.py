"""A conversation's assistant can keep search_knowledge to its own sources; other conversations search every
switched-on source; without a switched-on source the tool is not offered at all."""

from __future__ import annotations

import pytest

from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.assistants import Assistant, AssistantLibrary
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.knowledge.indexer import index_source
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store


@pytest.fixture
def runtime(tmp_path):
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url="http://127.0.0.1:9"),
                      KeyLookup([EnvironmentKeys({"ANTHROPIC_API_KEY": "sk-ant-test"})]))
    yield runtime
    if runtime._knowledge is not None:
        runtime._knowledge.close()


def _shelf(tmp_path, name: str, text: str):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "note.md").write_text(text)
    return folder


@pytest.mark.asyncio
async def test_an_assistants_own_sources_and_every_source_otherwise(runtime, tmp_path):
    session = ChatSession(runtime, Conversation(), Store(tmp_path / "db.sqlite3"))
    assert "search_knowledge" not in {t.name for t in (await session._prepare()).tools}  # no source yet

    library = runtime.knowledge_library()
    for name, text in (("work", "The quarterly report is due Friday."), ("home", "The quarterly rent is due Monday.")):
        index_source(library, library.add_source(_shelf(tmp_path, name, text)))
    assert runtime.has_knowledge(fresh=True)
    run = await session._prepare()
    assert "search_knowledge" in {t.name for t in run.tools} and run.tool_context.knowledge.own_sources is None

    assistants = AssistantLibrary.in_folder(runtime.paths.config_dir)
    helper = assistants.add(Assistant(name="Work helper", knowledge=frozenset({"work"})))
    session.conversation.assistant_id = helper.id
    run = await session._prepare()
    assert run.tool_context.knowledge.own_sources == frozenset({"work"})
    tool = next(t for t in run.tools if t.name == "search_knowledge")
    result = await tool.run(tool.validate({"query": "quarterly due"}), run.tool_context)
    assert {part["source"] for part in result.parts} == {"work"}

    library.set_enabled("work", False)
    library.set_enabled("home", False)
    assert not runtime.has_knowledge(fresh=True)
    assert "search_knowledge" not in {t.name for t in (await session._prepare()).tools}
