"""A conversation against its model's context window: token estimates, the size of the next request, compaction that keeps every word, trimming of old tool results and overflow recognition."""
