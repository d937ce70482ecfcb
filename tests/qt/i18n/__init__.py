"""Tests of the interface translations (desktop_copilot/i18n)."""
