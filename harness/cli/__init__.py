"""The `harness` command line (main.py lists every command); `harness.cli:main` is its entry point."""

from __future__ import annotations

from .main import app, main

__all__ = ["app", "main"]
