"""Shared look of the window: the theme (colours, fonts), painting helpers and plain-text labels."""
