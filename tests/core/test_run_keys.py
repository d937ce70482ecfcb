"""A run reads its keys in one hop to the keyring thread, before anything is appended, and again for every run."""

from __future__ import annotations

import threading

import pytest

from desktop_copilot.core import runtime as runtime_module
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import MissingKeyError, Runtime
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.storage.store import Store
from tests.support.loopback import anthropic_text_reply, sse_response


class RecordingKeys:
    """A key source that remembers which key was asked for on which thread."""

    def __init__(self, environ: dict[str, str]) -> None:
        self.environ = environ
        self.asked: list[tuple[str, threading.Thread]] = []

    def get(self, name):
        self.asked.append((name, threading.current_thread()))
        return EnvironmentKeys(self.environ).get(name)


@pytest.fixture
def hops(monkeypatch):
    """How many times the runtime went to the keyring thread."""
    counted = []
    real = runtime_module.in_keyring_thread

    async def counting(func, *args):
        counted.append(func)
        return await real(func, *args)

    monkeypatch.setattr(runtime_module, "in_keyring_thread", counting)
    return counted


def _session(loopback, tmp_path, keys: RecordingKeys) -> ChatSession:
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url=loopback.url, tavily_base_url=loopback.url),
                      KeyLookup([keys]))
    return ChatSession(runtime, Conversation(), Store(tmp_path / "db.sqlite3"))


@pytest.mark.asyncio
async def test_send_without_a_key_fails_after_one_keyring_hop_before_appending_anything(loopback, tmp_path, hops):
    keys = RecordingKeys({})
    session = _session(loopback, tmp_path, keys)
    with pytest.raises(MissingKeyError, match="keys set anthropic"):
        await session.send("hello", lambda e: None)
    assert session.conversation.messages == [] and session.store.list_conversations() == []
    assert len(hops) == 1
    assert [name for name, _ in keys.asked] == ["anthropic", "tavily"]  # the provider's key and the tools'
    assert all(thread is not threading.main_thread() and thread.daemon for _, thread in keys.asked)
    assert loopback.requests == []
    session.store.close()


@pytest.mark.asyncio
async def test_keys_are_read_again_for_every_run(loopback, tmp_path, hops):
    environ = {"ANTHROPIC_API_KEY": "sk-ant-first-1111"}
    keys = RecordingKeys(environ)
    session = _session(loopback, tmp_path, keys)
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("one")), sse_response(anthropic_text_reply("two")))
    await session.send("first", lambda e: None)
    environ.update(ANTHROPIC_API_KEY="sk-ant-second-2222", TAVILY_API_KEY="tvly-now-set")  # e.g. `keys set` elsewhere
    await session.send("second", lambda e: None)
    await session.runtime.aclose()
    first, second = loopback.requests_to("/v1/messages")
    assert "sk-ant-first-1111" in str(first.headers) and "sk-ant-second-2222" in str(second.headers)
    assert [tool["name"] for tool in first.json()["tools"]] == ["web_fetch"]  # needs no key; no workspace folder is chosen
    assert [tool["name"] for tool in second.json()["tools"]] == ["tavily_search", "web_fetch"]
    assert len(hops) == 2 and len(keys.asked) == 4
    session.store.close()


@pytest.mark.asyncio
async def test_a_switched_off_tool_s_key_is_not_read(loopback, tmp_path, hops):
    keys = RecordingKeys({})
    session = _session(loopback, tmp_path, keys)
    session.runtime.switched_off_tools = {"tavily_search"}
    with pytest.raises(MissingKeyError):
        await session.regenerate(lambda e: None)
    assert [name for name, _ in keys.asked] == ["anthropic"]
    session.store.close()
