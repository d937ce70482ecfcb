"""SQLite storage of conversations and messages."""
