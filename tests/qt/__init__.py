"""Tests of the Qt layer (pytest-qt, offscreen)."""
