"""The settings dialog and its pages (keys, models, tools)."""
