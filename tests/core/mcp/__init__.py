"""Tests of the MCP client core against real servers."""
