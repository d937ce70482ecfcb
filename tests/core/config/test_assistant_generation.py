"""An assistant's temperature and top-p: kept in assistants.json, forgiven when a hand-edited value is unusable,
copied into a conversation started from it, and sent on the wire (loopback Anthropic) unless the model thinks."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.assistants import Assistant, AssistantLibrary
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store
from tests.support.loopback import anthropic_text_reply, sse_response


def test_the_values_round_trip_through_assistants_json(tmp_path):
    library = AssistantLibrary.in_folder(tmp_path)
    poet = library.add(Assistant(name="Poet", temperature=1.3, top_p=0.8))
    plain = library.add(Assistant(name="Plain"))
    entries = json.loads((tmp_path / "assistants.json").read_text(encoding="utf-8"))["assistants"]
    assert (entries[0]["temperature"], entries[0]["top_p"]) == (1.3, 0.8)
    assert (entries[1]["temperature"], entries[1]["top_p"]) == (None, None)
    again = AssistantLibrary.in_folder(tmp_path)
    assert again.problem is None
    assert (again.get(poet.id).temperature, again.get(poet.id).top_p) == (1.3, 0.8)
    assert (again.get(plain.id).temperature, again.get(plain.id).top_p) == (None, None)


def test_a_file_written_before_the_fields_loads_with_the_model_default(tmp_path):
    path = tmp_path / "assistants.json"
    path.write_text(json.dumps({"version": 1, "assistants": [{"id": "asst_old", "name": "Old"}]}), encoding="utf-8")
    library = AssistantLibrary(path)
    assert library.problem is None and library.get("asst_old").temperature is None


def test_an_unusable_value_is_dropped_and_said_without_losing_the_assistant(tmp_path):
    path = tmp_path / "assistants.json"
    entries = [{"id": "asst_hot", "name": "Hot", "system": "Be bold.", "temperature": 5, "top_p": 0.5},
               {"id": "asst_odd", "name": "Odd", "top_p": "most"},
               {"id": "asst_fine", "name": "Fine", "temperature": 0.3}]
    path.write_text(json.dumps({"version": 1, "assistants": entries}), encoding="utf-8")
    library = AssistantLibrary(path)
    hot, odd, fine = (library.get(id_) for id_ in ("asst_hot", "asst_odd", "asst_fine"))
    assert (hot.system, hot.temperature, hot.top_p) == ("Be bold.", None, 0.5)  # only the bad value goes
    assert (odd.temperature, odd.top_p) == (None, None)
    assert fine.temperature == 0.3
    assert "“Hot”, “Odd”" in library.problem and "model's default" in library.problem
    assert path.exists() and not list(tmp_path.glob("assistants.json.broken-*"))  # nothing else was wrong with it


def test_an_entry_wrong_in_another_way_is_still_left_out(tmp_path):
    path = tmp_path / "assistants.json"
    path.write_text(json.dumps({"version": 1, "assistants": [{"id": "asst_x", "name": "", "temperature": 9}]}),
                    encoding="utf-8")
    library = AssistantLibrary(path)
    assert library.user == [] and "1 of its entries is not valid" in library.problem


def test_out_of_range_values_are_refused_in_words():
    with pytest.raises(ValidationError, match="from 0 to 2, not 2.5.*model's default"):
        Assistant(name="x", temperature=2.5)
    with pytest.raises(ValidationError, match="more than 0 and at most 1, not 1.2"):
        Assistant(name="x", top_p=1.2)


def test_a_conversation_takes_a_copy_of_them():
    assistant = Assistant(name="Careful", temperature=0.1, top_p=0.7)
    conversation = assistant.new_conversation()
    assert (conversation.temperature, conversation.top_p) == (0.1, 0.7)
    assert Assistant(name="Plain").new_conversation().temperature is None


def _session(loopback, tmp_path, conversation: Conversation) -> ChatSession:
    keys = KeyLookup([EnvironmentKeys({"ANTHROPIC_API_KEY": "sk-ant-test-0000"})])
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url=loopback.url), keys)
    return ChatSession(runtime, conversation, Store(tmp_path / "db.sqlite3"))


@pytest.mark.asyncio
async def test_anthropic_gets_them_without_thinking_and_not_with_it(loopback, tmp_path):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Steady.")), sse_response(anthropic_text_reply("Hm.")))
    conversation = Assistant(name="Careful", temperature=0.2, top_p=0.9, thinking=False).new_conversation()
    session = _session(loopback, tmp_path, conversation)
    try:
        assert (await session.send("Hello", lambda _event: None)).outcome == "completed"
        conversation.thinking_budget = 2048  # extended thinking refuses sampling options
        assert (await session.send("Think it over", lambda _event: None)).outcome == "completed"
    finally:
        await session.runtime.aclose()
        session.store.close()
    plain, thinking = (request.json() for request in loopback.requests_to("/v1/messages"))
    assert (plain["temperature"], plain["top_p"]) == (0.2, 0.9) and "thinking" not in plain
    assert thinking["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "temperature" not in thinking and "top_p" not in thinking
    store = Store(tmp_path / "db.sqlite3")
    header = store.load_conversation_header(conversation.id)
    store.close()
    assert (header.temperature, header.top_p) == (0.2, 0.9)  # stored with the conversation
