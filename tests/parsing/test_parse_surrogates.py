"""Lone surrogates in model text survive every encoding step (issue 13.1, parse side)."""

from __future__ import annotations

import json

import pytest

from harness.checks import check_citations, check_completion, check_map_response
from harness.cli import main
from harness.parsing import parse_result_to_json
from harness.formats.answer import parse

LONE = "\ud800"


def _utf8(value: object) -> None:
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # raises on a lone surrogate


@pytest.mark.parametrize("fmt", ["auto", "graphrag", "lightrag", "json", "claims", "report"])
def test_python_string_with_a_lone_surrogate(fmt: str) -> None:
    text = f'("entity"<|>A{LONE}<|>person<|>x{LONE})\n("entity")\n{LONE}<|COMPLETE|>'
    _utf8(parse_result_to_json(parse(text, fmt)))


def test_lone_surrogate_is_replaced_by_the_replacement_character() -> None:
    r = parse(f'("entity"<|>A{LONE}<|>person<|>x)\n<|COMPLETE|>')
    assert [e.name for e in r.graph.entities] == ["A\ufffd"]


def test_json_escaped_lone_surrogate_in_a_json_answer() -> None:
    r = parse('[{"name": "A\\ud800", "type": "person", "description": "x\\udc00y"}]', "json")
    assert [(e.name, e.description) for e in r.graph.entities] == [("A\ufffd", "x\ufffdy")]
    _utf8(parse_result_to_json(r))


def test_json_escaped_pair_is_kept() -> None:
    r = parse('[{"name": "A\\ud83d\\ude00", "type": "person", "description": "x"}]', "json")
    assert r.graph.entities[0].name == "A\U0001F600"


def test_json_escaped_lone_surrogate_in_a_report() -> None:
    text = json.dumps({"title": "T" + LONE, "summary": "S", "rating": 1, "rating_explanation": "r", "findings": []})
    _utf8(parse_result_to_json(parse(text, "report")))


def test_checks_survive_lone_surrogates() -> None:
    report = json.dumps({"title": "T" + LONE, "summary": "S" + LONE, "rating": 1, "rating_explanation": LONE,
                         "findings": [{"summary": LONE, "explanation": "[Data: " + LONE + " (1)]"}]})
    _utf8(check_citations(report).to_json())
    _utf8([i.model_dump() for i in parse(report, "report").format_report.issues])
    _utf8(check_citations("[Data: Entities (1" + LONE + ")] " + LONE).to_json())
    _utf8([i.model_dump() for i in check_map_response('{"points": [{"description": "a\\ud800", "score": "x\\ud800"}]}')])
    assert LONE not in check_completion("<|COMPLETE|> bye" + LONE).trailing_text


@pytest.mark.parametrize("args", [["--json"], ["--json", "--format", "report"], ["--format", "json", "--json"]])
def test_cli_parse_json_emits_utf8(tmp_path, capsys, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "answer.txt"
    report = '{"title": "T\\ud800", "summary": "S", "rating": 1, "rating_explanation": "r", "findings": []}'
    entities = '[{"name": "A\\ud800", "type": "person", "description": "x"}]'
    path.write_text(report if "report" in args else entities, encoding="utf-8")
    main(["parse", str(path), *args])
    out, err = capsys.readouterr()
    out.encode("utf-8")
    assert "Traceback" not in err
    json.loads(out)


def test_cli_parse_jsonl_emits_utf8(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "answers.jsonl"
    path.write_text('{"id": "a", "output": "(\\"entity\\"<|>A\\ud800<|>person<|>x)\\n<|COMPLETE|>"}\n', encoding="utf-8")
    assert main(["parse", "--jsonl", str(path)]) == 0
    out, _ = capsys.readouterr()
    out.encode("utf-8")
    assert json.loads(out)["entities"][0]["name"] == "A\ufffd"
