"""The log file: rotation, levels and crash logging (every line redacted)."""
