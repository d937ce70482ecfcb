"""Runtime resource files (app icon as SVG and PNGs), shipped as package data.

Generated from resources/icons/ by packaging/make_icons.py: do not edit them here.
Look them up with desktop_copilot.resources, never by a path of your own.
"""
