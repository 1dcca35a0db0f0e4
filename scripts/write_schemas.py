"""Write harness/schemas/*.schema.json from the run-artifact models (harness/artifacts.py).

Run it after changing a model or the metric registry; tests/test_artifacts.py fails while the
shipped schema files differ from what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness.artifacts import json_schemas  # noqa: E402


def main() -> int:
    folder = REPO / "harness" / "schemas"
    for name, text in json_schemas().items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
