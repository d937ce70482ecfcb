"""Knowledge sources in the window: background indexing and its status, the passage viewer (Settings ▸ Knowledge is in qt/settings)."""
