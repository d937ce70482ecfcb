"""Provider adapters: each turns a request into a stream of unified events."""
