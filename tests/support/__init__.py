"""Helpers shared by tests (and benchmarks): growth measurement, local servers."""
