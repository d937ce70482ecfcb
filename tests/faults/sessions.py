"""Sessions for the fault suite: the real session, store and runtime talking to the loopback server, with the
demo MCP server's tools and a user who allows every call."""

from __future__ import annotations

import pytest

from desktop_copilot.core.approval.decisions import ApprovalAnswer, Decision
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.mcp.manager import McpManager, ServerState
from desktop_copilot.core.mcp.server_config import McpServerConfig
from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.storage.store import Store
from tests.support.faults import WIRES, WireScript

ANTHROPIC = WIRES[0]


class Approving:
    """The user's answer to every approval card: allow once."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, requests):
        self.asked += [request.tool_name for request in requests]
        return [ApprovalAnswer(Decision.ALLOW_ONCE) for _ in requests]


async def ready(manager: McpManager) -> McpManager:
    manager.start()
    await manager.wait_ready(30.0)
    assert all(status.state is ServerState.READY for status in manager.statuses()), manager.statuses()
    return manager


def wire_runtime(loopback, wire: WireScript, deadline: float) -> Runtime:
    """A runtime whose new conversations talk to `wire`, with every wire's key and endpoint on the loopback server
    and `deadline` seconds for the first byte and between reads."""
    keys = KeyLookup([EnvironmentKeys({w.key_env: f"fault-key-{w.provider}-0042" for w in WIRES if w.key_env})])
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(provider=wire.provider, model=wire.model), keys)
    runtime.settings = Settings(base_urls={w.provider: loopback.url + w.url_suffix for w in WIRES},
                                first_byte_timeout=deadline, stream_idle_timeout=deadline)
    return runtime


@pytest.fixture
def mcp_session(loopback, tmp_path):
    """A session talking to `wire` on the loopback server with the demo MCP server's tools."""
    made: list[tuple[ChatSession, McpManager]] = []

    async def make(config: McpServerConfig, wire: WireScript = ANTHROPIC) -> ChatSession:
        runtime = wire_runtime(loopback, wire, 10.0)
        manager = await ready(McpManager.from_configs([config]))
        runtime.registry.add_provider(manager)
        session = ChatSession(runtime, Conversation(provider=wire.provider, model=wire.model), Store(tmp_path / "tools.sqlite3"))
        session.approver = Approving()
        made.append((session, manager))
        return session

    yield make
    for session, manager in made:
        manager.stop()
        session.store.close()


