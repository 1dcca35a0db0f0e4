"""docs/format-codes.md documents every code, and every code the code emits is defined."""

from __future__ import annotations

import re
from pathlib import Path

from harness.parsing.codes import FORMAT_CODES, codes_markdown_table

ROOT = Path(__file__).resolve().parents[2]


def test_doc_table_matches_codes() -> None:
    doc = (ROOT / "docs" / "format-codes.md").read_text(encoding="utf-8")
    assert codes_markdown_table() in doc


def test_every_emitted_code_is_defined() -> None:
    used: set[str] = set()
    for folder in ("harness/parsing", "harness/checks", "harness/formats"):
        for path in (ROOT / folder).glob("*.py"):
            source = path.read_text(encoding="utf-8")
            used |= set(re.findall(r"(?:note|drop|issue)\(\s*\"([a-z-]+)\"", source))
            used |= set(re.findall(r"codes\.append\(\"([a-z-]+)\"\)", source))
    assert used, "no codes found: the pattern is stale"
    assert used <= set(FORMAT_CODES), used - set(FORMAT_CODES)
