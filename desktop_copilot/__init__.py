"""Desktop Copilot: a native desktop chat client for Claude."""

__version__ = "0.1.0"
