"""Thin Qt layer: list models, delegates, widgets and the async bridge to the core."""
