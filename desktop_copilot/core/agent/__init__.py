"""The agent loop: stream a reply, run its tool calls, repeat."""
