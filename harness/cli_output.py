"""What the CLI's `--json` options print: one JSON document on stdout."""

from __future__ import annotations

import json
import sys


def emit_json(data: object) -> None:
    """Write `data` to stdout as indented JSON, non-ASCII kept as is (names in any script stay readable)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
