"""The conversation as data: messages and their blocks, statuses, the unified event stream, the pure accumulator and what history goes back to a provider."""
