"""`harness parse --json` of one answer file, as the format tests run it on their fixtures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from harness.cli import app


def parse_json(tmp_path: Path, name: str, text: str, *, exit_code: int = 0) -> dict[str, Any]:
    """The JSON `harness parse FILE --json` prints for `text` written to `tmp_path/name`, its exit
    code checked (1: the answer has format errors)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = CliRunner().invoke(app, ["parse", str(path), "--json"])
    assert out.exit_code == exit_code, out.output
    data: dict[str, Any] = json.loads(out.output)
    return data
