"""A project of one suite and a JSONL file of another pipeline's answers, as `harness evaluate` reads them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def answers_project(root: Path, suite: tuple[str, str], answers: tuple[str, list[dict[str, Any]]]) -> Path:
    """`root` holding `suites/<suite[0]>` with the text `suite[1]` and `<answers[0]>` with one JSON
    line a row of `answers[1]`."""
    (root / "suites").mkdir()
    (root / "suites" / suite[0]).write_text(suite[1], encoding="utf-8")
    (root / answers[0]).write_text("".join(json.dumps(row) + "\n" for row in answers[1]), encoding="utf-8")
    return root
