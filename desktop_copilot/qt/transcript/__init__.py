"""The transcript: a list model of rows, its row view and delegate, link handling and message jumps."""
