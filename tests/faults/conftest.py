"""The fault suite's fixtures: the Qt ones (a qasync loop and the real window) and the MCP-backed session."""

from tests.faults.sessions import mcp_session
from tests.qt.conftest import loopback_env, make_window, qasync_loop
from tests.qt.window.test_tool_approval_window import mcp_window

__all__ = ["loopback_env", "make_window", "mcp_session", "mcp_window", "qasync_loop"]
