"""Regression testing for knowledge-graph extraction prompts."""

__version__ = "0.1.0"
