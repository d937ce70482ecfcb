"""Who lets a tool call run: the user's decisions, the grants they keep, and the hook that asks."""
