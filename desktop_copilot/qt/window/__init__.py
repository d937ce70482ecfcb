"""The main window and what sits around the transcript: composer, error banner, reply notices, edit bar."""
