"""The conversation sidebar: list model and delegate, search results, history controller and File menu actions."""
