"""`harness evaluate`: another pipeline's answers scored into a normal run folder, under the
harness's conventions and Text2KGBench's, on a Text2KGBench-style fixture worked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main

SUITE = """\
name: astronauts
variants:
  benchmark:
    prompt: builtin:graphrag.extract_graph
ontology:
  name: astronaut
  entity_types: [Person, City, Country, University]
  relations:
    - {name: birthPlace, domain: Person, range: City}
    - {name: almaMater, domain: Person, range: University}
    - {name: country, domain: City, range: Country}
cases:
  - id: s1
    text: "Alan Bean was born in Wheeler, Texas."
    entities: [{name: Alan_Bean}, {name: "Wheeler,_Texas"}]
    relationships: [{source: Alan_Bean, target: "Wheeler,_Texas", type: birthPlace, directed: true}]
  - id: s2
    text: "Buzz Aldrin graduated from MIT."
    entities: [{name: Buzz_Aldrin}, {name: MIT}]
    relationships: [{source: Buzz_Aldrin, target: MIT, type: almaMater, directed: true}]
  - id: s3
    text: "Pete Conrad was born in Philadelphia."
    entities: [{name: Pete_Conrad}, {name: Philadelphia}]
    relationships: [{source: Pete_Conrad, target: Philadelphia, type: birthPlace, directed: true}]
  - id: s4
    text: "Gordon Cooper was born in Shawnee, Oklahoma."
    entities: [{name: Gordon_Cooper}, {name: "Shawnee,_Oklahoma"}]
    relationships: [{source: Gordon_Cooper, target: "Shawnee,_Oklahoma", type: birthPlace, directed: true}]
"""

# Text2KGBench's `rel(sub, obj)` answers: s1 right plus an object not in the sentence; s2 a
# hallucinated subject and a relation outside the ontology (and `response` for `output`); s1 given
# first with another answer (replaced by the later row, as in run_eval.py); s3 an empty answer; s9
# not a case; s4 has no row.
ROWS = [
    {"id": "s1", "output": "birthPlace(Alan Bean, Houston)"},
    {"id": "s2", "response": "almaMater(Edwin Smith, MIT)\nmember(Buzz Aldrin, NASA)"},
    {"id": "s1", "output": 'birthPlace(Alan Bean, "Wheeler, Texas")\nalmaMater(Alan Bean, UT Austin)'},
    {"id": "s3", "output": ""},
    {"id": "s9", "output": "birthPlace(Nobody, Nowhere)"},
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "astronauts.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "vicuna.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return tmp_path


def evaluate(capsys, project: Path, *args: str) -> tuple[int, str, str]:
    code = main(["evaluate", str(project / "suites" / "astronauts.yaml"), "--outputs", str(project / "vicuna.jsonl"),
                 "--reports", str(project / "reports"), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_text2kgbench_conventions_by_hand(project, capsys):
    code, out, err = evaluate(capsys, project, "--conventions", "text2kgbench", "--json", "--run-id", "t2k")
    assert code == 0, err
    result = json.loads(out)
    assert {k: result[k] for k in ("suite", "variant", "conventions", "cases")} == {
        "suite": "astronauts", "variant": "vicuna", "conventions": "text2kgbench", "cases": 4}
    # Per sentence (P, R, F1, onto_conf, rel_halluc, sub_halluc, obj_halluc):
    # s1: gold relations {birthPlace}: almaMater set aside; "alanbean|birthplace|wheeler,texas" is the
    #     gold triple without underscores -> P 1/1, R 1/1, F1 1; both relations in the ontology -> 1, 0;
    #     subjects "alanbean" found twice -> 0/2; objects "wheeler,texa" found, "utaustin" not -> 1/2
    # s2: kept (Edwin Smith, almaMater, MIT) != gold Buzz_Aldrin... -> 0, 0, 0; member not in the
    #     ontology -> 1/2, 1/2; "edwinsmith" not in the sentence -> 1/2; "nasa" not in it -> 1/2
    # s3: empty answer: nothing predicted -> 0, 0, 0; conformance 1, 0; hallucinations 0, 0
    # s4: no row: zero everywhere, conformance included
    # averages over 4 sentences: P = R = F1 = (1+0+0+0)/4 = 0.25; onto_conf (1+0.5+1+0)/4 = 0.625;
    # rel_halluc (0+0.5+0+0)/4 = 0.125; sub_halluc (0+0.5+0+0)/4 = 0.125; obj_halluc (0.5+0.5+0+0)/4 = 0.25
    assert result["metrics"] == {"precision": 0.25, "recall": 0.25, "f1": 0.25, "onto_conf": 0.625,
                                 "rel_halluc": 0.125, "sub_halluc": 0.125, "obj_halluc": 0.25}
    summary = json.loads((project / "reports" / "astronauts" / "t2k" / "summary.json").read_text())
    assert summary["conventions"] == {"name": "text2kgbench", "variant": "vicuna", "cases": 4,
                                      "metrics": result["metrics"], "rows_with_triples": 0}
    assert summary["outputs"]["missing_cases"] == ["s4"]
    assert "case 's4' has no row; contributes zero to every figure" in err
    report = (project / "reports" / "astronauts" / "t2k" / "report.md").read_text()
    assert "text2kgbench" in report and "0.625" in report


def test_harness_conventions_by_hand_and_the_run_folder(project, capsys):
    code, out, err = evaluate(capsys, project, "--json", "--run-id", "own")
    assert code == 0, err
    result = json.loads(out)
    assert result["conventions"] == "harness" and result["cases"] == 4
    metrics = result["metrics"]
    # entities: predicted Alan Bean, Wheeler, Texas, UT Austin (s1), Edwin Smith, MIT, Buzz Aldrin,
    # NASA (s2), none for s3 and s4 = 7; gold 2 per case = 8; names match after underscores fold to
    # spaces: Alan Bean, Wheeler Texas, MIT, Buzz Aldrin = 4 -> precision 4/7, recall 4/8
    assert metrics["entity_precision"] == pytest.approx(4 / 7)
    assert metrics["entity_recall"] == pytest.approx(0.5)
    # relationships on endpoints: predicted 2 + 2 = 4, gold 4, only (Alan Bean, Wheeler Texas) -> 1/4, 1/4
    assert metrics["relationship_precision"] == pytest.approx(0.25)
    assert metrics["relationship_recall"] == pytest.approx(0.25)
    assert metrics["example_leaks"] is None  # the prompt of another pipeline is not known: n/a
    run = project / "reports" / "astronauts" / "own"
    assert {"results.jsonl", "summary.json", "gate.json", "report.md", "report.html", "junit.xml"} <= {
        p.name for p in run.iterdir()}
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert [(r["variant"], r["case_id"]) for r in rows] == [("vicuna", c) for c in ("s1", "s2", "s3", "s4")]
    assert rows[0]["graph"]["relationships"][0]["type"] == "birthPlace"
    assert rows[3]["rounds"][0]["output"] == ""  # no row: scored as an empty answer
    summary = json.loads((run / "summary.json").read_text())
    assert list(summary["variants"]) == ["vicuna"] and "conventions" not in summary
    assert summary["outputs"] == {"file": str(project / "vicuna.jsonl"), "conventions": "harness", "rows": 5,
                                  "unknown_ids": ["s9"], "duplicate_ids": ["s1"], "missing_cases": ["s4"]}
    assert result["notes"] == [
        f"{project / 'vicuna.jsonl'}:5: id 's9' is not a case of the suite; row not scored",
        f"{project / 'vicuna.jsonl'}:1: id 's1' given again at line 3; only the last row is scored",
        f"{project / 'vicuna.jsonl'}: case 's4' has no row; scored as an empty answer",
    ]
    for note in result["notes"]:
        assert f"harness: note: {note}" in err


def test_a_rows_own_triples_are_what_text2kgbench_scores(project, capsys):
    # Text2KGBench's responses files carry the triples its authors read from each answer, and
    # run_eval.py scores those: s2's row now says (Buzz Aldrin, almaMater, MIT), right and grounded
    rows = [ROWS[0], {**ROWS[1], "triples": [["Buzz Aldrin", "almaMater", "MIT"]]}, *ROWS[2:]]
    (project / "vicuna.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = evaluate(capsys, project, "--conventions", "text2kgbench", "--json", "--run-id", "own-triples")
    assert code == 0, err
    # s2 becomes P = R = F1 = 1, conformance 1, hallucinations 0 (s1, s3, s4 as before):
    # P = R = F1 = (1+1+0+0)/4 = 0.5; onto_conf (1+1+1+0)/4 = 0.75; rel_halluc 0; sub_halluc 0;
    # obj_halluc (0.5+0+0+0)/4 = 0.125
    assert json.loads(out)["metrics"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "onto_conf": 0.75,
                                          "rel_halluc": 0.0, "sub_halluc": 0.0, "obj_halluc": 0.125}
    summary = json.loads((project / "reports" / "astronauts" / "own-triples" / "summary.json").read_text())
    assert summary["conventions"]["rows_with_triples"] == 1
    # the harness's own figures still read the answer: s2's relationship is still missed
    assert summary["variants"]["vicuna"]["metrics"]["metrics"]["relationship_recall"]["micro"] == pytest.approx(0.25)


@pytest.mark.slow
def test_variant_name_and_gate(project, capsys):
    code, out, err = evaluate(capsys, project, "--variant", "alpaca", "--gate", "--run-id", "g")
    assert code == 0, err
    assert "alpaca" in out and "gate: PASS" in out
    # a suite variant's name: that variant's prompt and format (GraphRAG's), so the function-style
    # answers do not parse as records there, unless --format says how to read them
    code, out, err = evaluate(capsys, project, "--variant", "benchmark", "--format", "function", "--json")
    assert code == 0, err
    assert json.loads(out)["metrics"]["relationship_recall"] == pytest.approx(0.25)


def test_plain_output_prints_the_conventions_line(project, capsys):
    code, out, err = evaluate(capsys, project, "--conventions", "text2kgbench")
    assert code == 0, err
    assert ("text2kgbench conventions, 4 sentences: precision 0.250  recall 0.250  f1 0.250  onto_conf 0.625  "
            "rel_halluc 0.125  sub_halluc 0.125  obj_halluc 0.250") in out


@pytest.mark.parametrize(("content", "message"), [
    ('{"id": "s1", "output": "x"}\n{"id": "s2", "output": \n', "vicuna.jsonl:2: not JSON"),
    ('["s1", "x"]\n', "vicuna.jsonl:1: a row is a JSON object"),
    ('{"output": "x"}\n', "vicuna.jsonl:1: the row needs a string `id`"),
    ('{"id": "s1", "output": 3}\n', "vicuna.jsonl:1: the row needs a string `output` (or `response`)"),
    ('{"id": "s1", "output": "x", "triples": [["a", "b"]]}\n', "vicuna.jsonl:1: `triples` must be a list of"),
    ('{"id": "s1", "output": "x", "rounds": ["x"]}\n', "vicuna.jsonl:1: the row of 's1' gives both `output` and `rounds`"),
    ('{"id": "s1", "response": "x", "rounds": ["x"]}\n',
     "vicuna.jsonl:1: the row of 's1' gives both `response` and `rounds`"),
    ('{"id": "s1", "rounds": []}\n', "vicuna.jsonl:1: `rounds` of 's1' must be a non-empty list of strings"),
    ('{"id": "s1", "rounds": "x"}\n', "vicuna.jsonl:1: `rounds` of 's1' must be a non-empty list of strings"),
    ('{"id": "s1", "rounds": ["x", null]}\n', "vicuna.jsonl:1: `rounds` of 's1' must be a non-empty list of strings"),
])
def test_malformed_rows_are_one_line_errors(project, capsys, content, message):
    (project / "vicuna.jsonl").write_text(content, encoding="utf-8")
    code, out, err = evaluate(capsys, project)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_bad_options_are_one_line_errors(project, capsys):
    code, _, err = evaluate(capsys, project, "--conventions", "webnlg")
    assert code == 2 and "--conventions: 'webnlg' is not one of harness, text2kgbench" in err
    code, _, err = evaluate(capsys, project, "--format", "nope")
    assert code == 2 and "--format: 'nope' is not one of" in err
    code, _, err = evaluate(capsys, project, "--variant", "a/b")
    assert code == 2 and "--variant" in err
    suite = project / "suites" / "astronauts.yaml"
    suite.write_text(SUITE.split("ontology:")[0] + "cases:" + SUITE.split("cases:")[1], encoding="utf-8")
    code, _, err = evaluate(capsys, project, "--conventions", "text2kgbench")
    assert code == 2 and "--conventions text2kgbench needs the suite's `ontology:`" in err


# GraphRAG answers of a conversation with gleaning: each round closed by its own completion
# delimiter, as GraphRAG's model writes them. s1's first answer names the entities, its
# continuation the relationship; s2 answers in one round.
FIRST = ('("entity"<|>ALAN BEAN<|>PERSON<|>an astronaut)##'
         '("entity"<|>WHEELER, TEXAS<|>CITY<|>his birthplace)<|COMPLETE|>')
MORE = '("relationship"<|>ALAN BEAN<|>WHEELER, TEXAS<|>Alan Bean was born in Wheeler, Texas<|>9)<|COMPLETE|>'
S2 = '("entity"<|>BUZZ ALDRIN<|>PERSON<|>an astronaut)<|COMPLETE|>'


def _conversation_rows(project: Path, s1: dict) -> None:
    rows = [{"id": "s1", **s1}, {"id": "s2", "output": S2}]
    (project / "vicuna.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_a_row_of_rounds_is_read_as_a_recorded_conversation(project, capsys):
    from harness.model import Round
    from harness.runner import evaluate_case, plan_variant
    from harness.suites import load_suite

    _conversation_rows(project, {"rounds": [FIRST, MORE]})
    code, out, err = evaluate(capsys, project, "--variant", "benchmark", "--json", "--run-id", "conv")
    assert code == 0, err
    rows = [json.loads(line) for line in
            (project / "reports" / "astronauts" / "conv" / "results.jsonl").read_text().splitlines()]
    s1 = rows[0]
    assert [(r["index"], r["kind"], r["output"]) for r in s1["rounds"]] == [(0, "extract", FIRST), (1, "continue", MORE)]
    # each round parsed on its own: every record kept, each round's completion delimiter in place
    assert s1["format_report"]["records_parsed"] == 3 and s1["format_report"]["records_dropped"] == 0
    assert s1["format_report"]["completion"] == "present" and not s1["format_report"]["issues"]
    assert [r["records_parsed"] for r in s1["round_reports"]] == [2, 1]
    assert [e["round"] for e in s1["graph"]["entities"]] == [0, 0]
    assert [r["round"] for r in s1["graph"]["relationships"]] == [1]
    # gleaning figures: the continuation is answer position 1, adding the relationship
    yields = s1["score"]["reference_free"]["rounds"]
    assert [(y["round"], y["entities"], y["relationships"]) for y in yields] == [(0, 2, 0), (1, 0, 1)]
    # the same row as the runner's own evaluation of those rounds (a replayed conversation's
    # extraction and continuation), apart from the hash of what was sent
    suite = load_suite(project / "suites" / "astronauts.yaml")
    plan = plan_variant(suite, "benchmark")
    case = next(c for c in suite.cases if c.id == "s1")
    replayed = evaluate_case(suite, plan, case, [Round(index=0, kind="extract", output=FIRST),
                                                 Round(index=1, kind="continue", output=MORE)], "")
    expected = json.loads(replayed.model_dump_json())
    assert {k: v for k, v in s1.items() if k != "request_hash"} == {
        k: v for k, v in expected.items() if k != "request_hash"}
    # s1's relationship is found: relationship recall 1/4 over the four cases
    assert json.loads(out)["metrics"]["relationship_recall"] == pytest.approx(0.25)


@pytest.mark.slow
def test_rounds_glued_into_one_output_are_format_errors_that_rounds_avoid(project, capsys):
    # gluing the rounds as GraphRAG does puts a completion delimiter in the middle of the answer
    _conversation_rows(project, {"output": FIRST + "\n" + MORE})
    code, _, err = evaluate(capsys, project, "--variant", "benchmark", "--run-id", "glued")
    assert code == 0, err
    glued = json.loads((project / "reports" / "astronauts" / "glued" / "results.jsonl").read_text().splitlines()[0])
    assert glued["format_report"]["completion"] == "misplaced"
    _conversation_rows(project, {"rounds": [FIRST, MORE]})
    code, _, err = evaluate(capsys, project, "--variant", "benchmark", "--run-id", "rounds")
    assert code == 0, err
    rounds = json.loads((project / "reports" / "astronauts" / "rounds" / "results.jsonl").read_text().splitlines()[0])
    assert rounds["format_report"]["completion"] == "present"


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_line_separator_inside_an_answer_is_text(project, capsys, separator):
    """Issue 28 item 16: the outputs were split with `str.splitlines`, which breaks inside a JSON
    string at U+2028 (valid there, raw), so a valid JSON Lines file was refused."""
    rows = [{**row, "output": row["output"] + separator + "note"} if "output" in row else row for row in ROWS]
    (project / "vicuna.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                          encoding="utf-8")
    code, out, err = evaluate(capsys, project, "--json")
    assert code in (0, 1) and "not JSON" not in err, err
    results = next((project / "reports" / "astronauts").glob("*/results.jsonl"))
    stored = [json.loads(line) for line in results.read_text(encoding="utf-8").split("\n") if line]
    assert any(row["rounds"][0]["output"].endswith(separator + "note") for row in stored)
