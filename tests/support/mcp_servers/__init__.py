"""MCP servers for tests: a real server written with the SDK, and a helper that runs it over HTTP."""
