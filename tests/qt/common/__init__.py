"""Tests of qt/common: the themes and the theme switch."""
