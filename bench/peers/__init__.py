"""Peer comparisons: the issue-18 workload and the tools it is run through (promptfoo)."""
