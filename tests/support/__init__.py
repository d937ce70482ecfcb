"""Test helpers shared by tests and benchmarks (no pytest imports here)."""
