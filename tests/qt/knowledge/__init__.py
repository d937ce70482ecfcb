"""Knowledge in the window: indexing in the background, its status, the passage viewer."""
