"""The tuning report: `<name>.tuning.json` is a TuningReport dump, `<name>.tuning.md` reads from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.artifacts import read_artifact
from harness.errors import InputError
from harness.tune.report import TuningReport, report_markdown, write_tuning_report

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "prompts" / "podcast" / "auto.tuning.json"


def test_the_shipped_report_is_rewritten_byte_for_byte(tmp_path: Path) -> None:
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    path = write_tuning_report(TuningReport.model_validate(data), tmp_path / "auto.tuning")
    assert path.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")
    md = (tmp_path / "auto.tuning.md").read_text(encoding="utf-8")
    assert md == report_markdown(TuningReport.model_validate(data))
    assert md.startswith(f"# Tuning report: {data['name']}\n")
    for chunk in data["examples_kept"]:
        assert f"| {chunk} | kept | |" in md


def test_a_report_missing_a_key_is_one_line_of_bad_input(tmp_path: Path) -> None:
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    del data["usage"]
    with pytest.raises(InputError, match=r"auto.tuning.json: not a valid tuning report: usage: Field required"):
        read_artifact(TuningReport, data, tmp_path / "auto.tuning.json", "tuning report")
