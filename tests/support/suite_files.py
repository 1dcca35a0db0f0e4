"""Suite files written from a dict, as a test builds its project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def write_suite_file(root: Path, suite: dict[str, Any]) -> Path:
    """`root/suites/<suite's name>.yaml` holding `suite` as YAML, in its key order."""
    path = root / "suites" / f"{suite['name']}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path
