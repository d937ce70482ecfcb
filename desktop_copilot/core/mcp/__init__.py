"""MCP servers as tool sources: their configuration, connections, and the tools they offer."""
