"""`harness score` says when the prediction did not parse (no records, or records dropped),
in plain and --json output, instead of a silent 0/0; the exit code stays 0 (a score was given)."""

from __future__ import annotations

import json

from harness.cli import app
from typer.testing import CliRunner

GOLD = ("id: c1\ntext: Philz was founded in Berkeley.\nentities:\n  - {name: Philz, type: organization}\n"
        "  - {name: Berkeley, type: geo}\nrelationships:\n  - {source: Philz, target: Berkeley}\n")


def _score(tmp_path, answer: str, *extra: str) -> tuple[int, str]:
    gold = tmp_path / "gold.yaml"
    gold.write_text(GOLD, encoding="utf-8")
    pred = tmp_path / "pred.txt"
    pred.write_text(answer, encoding="utf-8")
    out = CliRunner().invoke(app, ["score", "--gold", str(gold), "--pred", str(pred), *extra])
    return out.exit_code, out.output


def test_a_prediction_that_did_not_parse_is_named_first(tmp_path) -> None:
    code, out = _score(tmp_path, "Philz was founded in Berkeley, I think.", "--format", "graphrag")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "prediction: 0 records parsed (no-records, format graphrag): Philz was founded in Berkeley, I think."
    assert lines[1].startswith("entities:      P n/a  R 0.000")  # 0 of 2 gold: nothing was read


def test_json_carries_the_parse_outcome(tmp_path) -> None:
    code, out = _score(tmp_path, "(Philz, founded in, Berkeley)\n(Philz, Berkeley)", "--json")
    assert code == 0
    data = json.loads(out)
    parse = data["parse"]
    assert (parse["format"], parse["records_parsed"], parse["records_dropped"]) == ("llamaindex", 1, 1)
    assert [(i["code"], i["dropped"]) for i in parse["issues"]] == [("triple-parts", True)]
    assert data["relationships"]["recall"] == 1.0  # the triple read scores: Philz -> Berkeley


def test_dropped_records_are_counted_by_code_and_a_clean_parse_says_nothing(tmp_path) -> None:
    _, out = _score(tmp_path, "(Philz, founded in, Berkeley)\n(Philz, Berkeley)\n(Philz, , x)")
    assert out.splitlines()[0] == ("prediction: 1 records parsed, 2 dropped (triple-parts, triple-part-empty, "
                                   "format llamaindex): first '(Philz, Berkeley)'")
    _, out = _score(tmp_path, "(Philz, founded in, Berkeley)")
    assert out.startswith("entities:")


def test_a_valid_empty_answer_is_named_too(tmp_path) -> None:
    _, out = _score(tmp_path, "No triples found.", "--format", "llamaindex")
    assert out.splitlines()[0] == "prediction: 0 records parsed (no-triples, format llamaindex): No triples found."
