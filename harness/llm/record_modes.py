"""Record modes: which calls are sent and recorded, and which are answered from cassettes.

Kept apart from llm/cassettes.py (vcrpy) so that commands can check a mode without loading vcrpy.
"""

from __future__ import annotations

import os

RECORD_MODES = ("none", "once", "rewrite", "all")


def default_record_mode(command: str) -> str:
    """`run` replays; `record` records what is missing, except on CI where nothing records."""
    if os.environ.get("CI"):
        return "none"
    return "none" if command == "run" else "once"
