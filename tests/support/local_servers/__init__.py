"""Emulators of the local model servers the app talks to (LM Studio, llama.cpp's llama-server, vLLM), faithful to
their wire behaviour: how each streams Chat Completions, lists models, answers a probe and refuses `tools`.

    with LocalServer("vllm", ["Qwen/Qwen3-8B"], tools="refuse") as server:
        server.reply(["Hel", "lo"], reasoning=["Let me ", "think"])
        ...  # point the app at server.base_url
        assert "tools" in server.chat_requests[0].json()
"""

from tests.support.local_servers.script import LocalModel, Reply, ToolCall
from tests.support.local_servers.server import LocalServer

__all__ = ["LocalModel", "LocalServer", "Reply", "ToolCall"]
