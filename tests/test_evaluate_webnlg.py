"""`harness evaluate --conventions webnlg`: the WebNLG+ 2020 text-to-RDF figures of the hand-written
fixtures (tests/fixtures/webnlg/, figures counted by hand in tests/scoring/conventions/test_webnlg.py),
the same whichever door the triples come by: the candidates converter's JSON lists, the challenge's
`s | p | o` lines, a row's own `triples`, or function-call text read in its format."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from harness.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "webnlg"
CANDIDATES = {"Id1": ("C", "A", "B"), "Id2": ("X", "p", "New_Hampshire"), "Id3": ("Trane", "location", "Ireland")}
HAND = {"strict": Fraction(1, 2), "exact": Fraction(7, 12), "partial": Fraction(5, 8), "ent_type": Fraction(7, 12)}


@pytest.fixture
def harness_cli():
    return main


def _rows(door: str) -> list[dict]:
    rows = []
    for case, (s, p, o) in CANDIDATES.items():
        if door == "json":
            rows.append({"id": case, "output": json.dumps([[s, p, o]])})
        elif door == "pipes":
            rows.append({"id": case, "output": f"{s} | {p} | {o}\n"})
        elif door == "field":
            rows.append({"id": case, "output": "", "triples": [[s, p, o]]})
        else:
            rows.append({"id": case, "output": f"{p}({s}, {o})"})
    return rows


def _evaluate(harness_cli, capsys, tmp_path: Path, rows: list[dict], *extra: str) -> dict:
    suite = tmp_path / "suites" / "webnlg.yaml"
    if not suite.exists():
        assert harness_cli(["import", "webnlg", str(FIXTURES / "refs.xml"), "--out", str(suite)]) == 0
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    capsys.readouterr()
    code = harness_cli(["evaluate", str(suite), "--outputs", str(outputs), "--conventions", "webnlg", "--json",
                        "--reports", str(tmp_path / "reports"), *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("door", ["json", "pipes", "field", "function"])
def test_every_door_gives_the_hand_counted_figures(harness_cli, tmp_path, capsys, door) -> None:
    extra = ("--format", "function") if door == "function" else ()
    result = _evaluate(harness_cli, capsys, tmp_path, _rows(door), *extra)
    metrics = result["metrics"]
    assert set(metrics) == {f"{m}_{f}" for m in HAND for f in ("precision", "recall", "f1")}
    for mode, value in HAND.items():
        for figure in ("precision", "recall", "f1"):
            assert Fraction(metrics[f"{mode}_{figure}"]).limit_denominator(1000) == value, (door, mode, figure)


def test_the_converted_candidates_xml_gives_the_same_figures(harness_cli, tmp_path, capsys) -> None:
    converted = tmp_path / "cands.jsonl"
    assert harness_cli(["import", "webnlg-candidates", str(FIXTURES / "cands.xml"), "--refs", str(FIXTURES / "refs.xml"),
                        "--out", str(converted)]) == 0
    rows = [json.loads(line) for line in converted.read_text(encoding="utf-8").splitlines()]
    metrics = _evaluate(harness_cli, capsys, tmp_path, rows)["metrics"]
    assert Fraction(metrics["partial_f1"]).limit_denominator(1000) == HAND["partial"]


def test_a_case_without_a_row_is_an_entry_without_a_triple(harness_cli, tmp_path, capsys) -> None:
    rows = [row for row in _rows("json") if row["id"] != "Id2"]
    result = _evaluate(harness_cli, capsys, tmp_path, rows)
    assert result["missing"] == ["Id2"]
    # Id2's pair now scores zero: strict (1/3 + 0 + 1 + 0) / 4
    assert Fraction(result["metrics"]["strict_precision"]).limit_denominator(1000) == Fraction(1, 3)
    assert any("WebNLG figures" in note for note in result["notes"])
