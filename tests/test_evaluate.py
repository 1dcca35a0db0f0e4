"""`harness evaluate`: another pipeline's answers scored into a normal run folder, under the
harness's conventions and Text2KGBench's, on a Text2KGBench-style fixture worked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from tests.support.answers_project import answers_project

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
    return answers_project(tmp_path, ("astronauts.yaml", SUITE), ("vicuna.jsonl", ROWS))


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
    assert "case 's4' has no row; contributes zero to every Text2KGBench figure, and is left out of the harness's" in err
    report = (project / "reports" / "astronauts" / "t2k" / "report.md").read_text()
    assert "text2kgbench" in report and "0.625" in report


def test_harness_conventions_by_hand_and_the_run_folder(project, capsys):
    code, out, err = evaluate(capsys, project, "--json", "--run-id", "own")
    assert code == 0, err
    result = json.loads(out)
    assert result["conventions"] == "harness" and result["cases"] == 4
    # s4 has no row: missing, not an empty answer, so it stands in no figure (s3's empty answer does)
    assert result["scored"] == 3 and result["missing"] == ["s4"]
    metrics = result["metrics"]
    # entities: predicted Alan Bean, Wheeler, Texas, UT Austin (s1), Edwin Smith, MIT, Buzz Aldrin,
    # NASA (s2), none for s3 = 7; gold 2 per scored case = 6; names match after underscores fold to
    # spaces: Alan Bean, Wheeler Texas, MIT, Buzz Aldrin = 4 -> precision 4/7, recall 4/6
    assert metrics["entity_precision"] == pytest.approx(4 / 7)
    assert metrics["entity_recall"] == pytest.approx(4 / 6)
    # relationships on endpoints: predicted 2 + 2 = 4, gold 3, only (Alan Bean, Wheeler Texas) -> 1/4, 1/3
    assert metrics["relationship_precision"] == pytest.approx(0.25)
    assert metrics["relationship_recall"] == pytest.approx(1 / 3)
    assert metrics["example_leaks"] is None  # the prompt of another pipeline is not known: n/a
    run = project / "reports" / "astronauts" / "own"
    assert {"results.jsonl", "summary.json", "gate.json", "report.md", "report.html", "junit.xml"} <= {
        p.name for p in run.iterdir()}
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert [(r["variant"], r["case_id"]) for r in rows] == [("vicuna", c) for c in ("s1", "s2", "s3")]
    assert rows[0]["graph"]["relationships"][0]["type"] == "birthPlace"
    summary = json.loads((run / "summary.json").read_text())
    assert list(summary["variants"]) == ["vicuna"] and "conventions" not in summary
    variant = summary["variants"]["vicuna"]
    # format errors: s3's empty answer, of the 3 answered cases (the missing s4 is no format error)
    assert variant["cases"] == 3 and variant["format"]["cases_with_errors"] == 1
    assert variant["format"]["format_error_rate"] == pytest.approx(1 / 3, abs=1e-6)
    # no usage is known of another pipeline's calls: cost n/a, not $0
    assert variant["cost_usd"] is None
    report = (run / "report.md").read_text()
    assert "Cases without a row (1, not scored: n/a, left out of every figure of the harness's): s4" in report
    assert "$0.0000" not in report and "| tokens | n/a |" in report and "| cost (USD) | n/a |" in report
    assert summary["outputs"] == {"file": str(project / "vicuna.jsonl"), "conventions": "harness", "rows": 5,
                                  "unknown_ids": ["s9"], "duplicate_ids": ["s1"], "missing_cases": ["s4"]}
    assert result["notes"] == [
        f"{project / 'vicuna.jsonl'}:5: id 's9' is not a case of the suite; row not scored",
        f"{project / 'vicuna.jsonl'}:1: id 's1' given again at line 3; only the last row is scored",
        f"{project / 'vicuna.jsonl'}: case 's4' has no row; missing: not scored (n/a), left out of every figure",
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
    # the harness's own figures still read the answer: s2's relationship is still missed (s4, without
    # a row, is in none of them)
    assert summary["variants"]["vicuna"]["metrics"]["metrics"]["relationship_recall"]["micro"] == pytest.approx(1 / 3)


@pytest.mark.slow
def test_variant_name_and_gate(project, capsys):
    code, out, err = evaluate(capsys, project, "--variant", "alpaca", "--gate", "--run-id", "g")
    assert code == 0, err
    assert "alpaca" in out and "gate: PASS" in out
    # a suite variant's name: that variant's prompt and format (GraphRAG's), so the function-style
    # answers do not parse as records there, unless --format says how to read them
    code, out, err = evaluate(capsys, project, "--variant", "benchmark", "--format", "function", "--json")
    assert code == 0, err
    assert json.loads(out)["metrics"]["relationship_recall"] == pytest.approx(1 / 3)  # s4 has no row: not scored


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
    code, _, err = evaluate(capsys, project, "--conventions", "conll")
    assert code == 2 and "--conventions: 'conll' is not one of harness, text2kgbench, webnlg" in err
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
    from harness.run.evaluation import evaluate_case
    from harness.run.plan import plan_variant
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
    # s1's relationship is found: relationship recall 1/2 over the two cases with a row (s3 and s4
    # have none: missing, in no figure)
    assert json.loads(out)["metrics"]["relationship_recall"] == pytest.approx(0.5)
    assert json.loads(out)["missing"] == ["s3", "s4"]


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


def test_no_row_for_any_case_is_a_one_line_error(project, capsys):
    (project / "vicuna.jsonl").write_text('{"id": "s9", "output": "x"}\n', encoding="utf-8")
    code, out, err = evaluate(capsys, project)
    assert code == 2
    assert "vicuna.jsonl: no row answers a case of the suite astronauts (1 row(s); case ids look like 's1')" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("key_env", ["OPENAI_API_KEY", "ASTRO_LLM_CREDENTIAL"])
def test_a_key_in_the_outputs_is_written_nowhere(project, capsys, monkeypatch, key_env):
    """Issue 28, item 3: runs redact the key an endpoint echoes; `evaluate` writes another
    pipeline's answers, which may hold it too (plain, base64, as an entity's name). The suite's
    own `api_key_env` counts, whatever its name."""
    import base64

    key = "sk-eval-" + "Zx9Qw8Er7Ty6Ui5Op4As"
    monkeypatch.setenv(key_env, key)
    suite = project / "suites" / "astronauts.yaml"
    suite.write_text(SUITE.replace("variants:", f"model:\n  api_key_env: {key_env}\nvariants:", 1), encoding="utf-8")
    encoded = base64.b64encode(key.encode()).decode()
    rows = [{"id": "s1", "output": f"birthPlace(Alan Bean, Houston)\ndebug {key}"},
            {"id": "s2", "output": f"almaMater({key}, MIT)\nauth {encoded}"},
            {"id": key, "output": "member(Buzz Aldrin, NASA)"}]
    (project / "vicuna.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = evaluate(capsys, project, "--run-id", "k")
    assert code == 0, err
    written = "\n".join(p.read_text(encoding="utf-8") for p in (project / "reports").rglob("*")
                        if p.is_file() and p.suffix != ".png")
    for text in (written, out, err):
        assert key not in text and encoded[:-4] not in text
    assert "[REDACTED]" in written and "[REDACTED]" in err  # the unknown id's note is scrubbed too


# ---------------------------------------------------------------- issue 28: --examples

IMPORTED = """\
name: imported
variants:
  project:
    prompt: prompts/extract_graph.txt
thresholds: {grounded_rate: 0.85, example_leaks: 0, dangling: 0, type_conformance: 0.9}
cases:
  - id: c1
    text: "Maya Chen hosts the Circuit Breakers podcast."
"""
# an imported project's prompt: its types written in its text, an example naming the Marlow Valley Water Board
PROJECT_PROMPT = ("-Goal-\nFind entities of types [podcaster, show] and relationships.\n-Examples-\nText: The Marlow "
                  "Valley Water Board met.\nOutput: (\"entity\"{tuple_delimiter}MARLOW VALLEY WATER BOARD"
                  "{tuple_delimiter}organization{tuple_delimiter}a board)\n-Real Data-\nText: {input_text}\nOutput:")
CLEAN = ('("entity"<|>MAYA CHEN<|>podcaster<|>Host)##("entity"<|>CIRCUIT BREAKERS<|>show<|>A podcast)##'
         '("relationship"<|>MAYA CHEN<|>CIRCUIT BREAKERS<|>hosts<|>8)<|COMPLETE|>')
LEAKY = ('("entity"<|>MAYA CHEN<|>podcaster<|>Host)##'
         '("relationship"<|>MAYA CHEN<|>MARLOW VALLEY WATER BOARD<|>met<|>8)<|COMPLETE|>')


def _imported(tmp_path: Path, output: str) -> Path:
    (tmp_path / "suites").mkdir(exist_ok=True)
    (tmp_path / "prompts").mkdir(exist_ok=True)
    (tmp_path / "suites" / "imported.yaml").write_text(IMPORTED, encoding="utf-8")
    (tmp_path / "prompts" / "extract_graph.txt").write_text(PROJECT_PROMPT, encoding="utf-8")
    (tmp_path / "other.jsonl").write_text(json.dumps({"id": "c1", "output": output}) + "\n", encoding="utf-8")
    return tmp_path


def _evaluate_other(capsys, root: Path, *args: str) -> tuple[int, dict, str]:
    code = main(["evaluate", str(root / "suites" / "imported.yaml"), "--outputs", str(root / "other.jsonl"),
                 "--reports", str(root / "reports"), "--json", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, err


def test_examples_names_the_prompt_another_pipelines_outputs_answered(tmp_path, capsys):
    """An imported suite's thresholds on leaks and type conformance can pass for another pipeline's
    outputs once the prompt they answered is named."""
    root = _imported(tmp_path, CLEAN)
    code, result, err = _evaluate_other(capsys, root, "--gate", "--examples", str(root / "prompts" / "extract_graph.txt"))
    assert code == 0, err
    metrics = result["metrics"]
    # the prompt's own types (written in its text) and its example text
    assert (metrics["example_leaks"], metrics["type_conformance"], metrics["example_relationships"]) == (0, 1.0, 0)
    code, result, err = _evaluate_other(capsys, _imported(tmp_path, LEAKY), "--gate", "--examples",
                                        str(root / "prompts" / "extract_graph.txt"))
    assert code == 1 and result["metrics"]["example_relationships"] == 1  # the endpoint copied from the example
    # without it the prompt is not known: n/a, and a `<=` threshold on n/a never passes
    code, result, _ = _evaluate_other(capsys, _imported(tmp_path, CLEAN), "--gate")
    assert code == 1 and result["metrics"]["example_leaks"] is None


def test_examples_not_found_is_one_line(tmp_path, capsys):
    root = _imported(tmp_path, CLEAN)
    code, _, err = _evaluate_other(capsys, root, "--examples", str(root / "nowhere.txt"))
    assert code == 2 and err.startswith("harness: --examples: ") and err.count("\n") == 1


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


# --------------------------------------------------------------------------- one reading of triples (issue 32.5)

# The same triples, as Text2KGBench's responses files hold them: parts with the leading space its
# parser leaves after a comma, quotes kept, a trailing space. run_eval.py scores these strings as
# they are (a quoted object is not the gold's), so every door must hand them over unchanged.
DOOR_TRIPLES = {
    "s1": [["Alan Bean", "birthPlace", ' "Wheeler, Texas"'], ["Alan Bean", "almaMater", " UT Austin"]],
    "s2": [["Buzz Aldrin ", "almaMater", "MIT "], [" Buzz Aldrin", "member", "NASA"]],
    "s3": [["Pete Conrad", "birthPlace", "Philadelphia"], ['"Pete Conrad"', "birthPlace", " Philadelphia"]],
}


def _door_rows(door: str) -> list[dict]:
    if door == "field":  # the row's `triples`, beside an answer that says something else
        return [{"id": cid, "output": "(no answer text)", "triples": triples} for cid, triples in DOOR_TRIPLES.items()]
    if door == "json":
        return [{"id": cid, "output": json.dumps(triples)} for cid, triples in DOOR_TRIPLES.items()]
    # function calls, as Text2KGBench's prompts ask: `rel(sub, obj)`, a part quoted where its
    # content has outer spaces, a comma or a quote (in the other quote mark when it holds one)
    return [{"id": cid, "output": "\n".join(f"{p}({_call_part(s)}, {_call_part(o)})" for s, p, o in triples)}
            for cid, triples in DOOR_TRIPLES.items()]


def _call_part(part: str) -> str:
    if part == part.strip() and not any(ch in part for ch in ",()\"'"):
        return part
    return f"'{part}'" if '"' in part else f'"{part}"'


def test_the_same_triples_give_the_same_figures_through_every_door(project, capsys):
    figures = {}
    for door in ("field", "json", "function"):
        (project / "vicuna.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _door_rows(door)),
                                              encoding="utf-8")
        code, out, err = evaluate(capsys, project, "--conventions", "text2kgbench", "--json", "--run-id", door)
        assert code == 0, err
        figures[door] = json.loads(out)["metrics"]
    assert figures["json"] == figures["field"]
    assert figures["function"] == figures["field"]
    # worked by hand from the field's strings (s4 has no row: zero everywhere, conformance too).
    # s1: ' "Wheeler, Texas"' keeps its quotes: no hit; P = R = 0; both relations known; the quoted
    #     object and " UT Austin" are not in the sentence: obj_halluc 2/2.
    # s2: "MIT " -> "mit" hits: the member triple is set aside (not a gold relation): P = 1/1, R = 1,
    #     F1 = 1; conformance 1/2; subjects in the sentence; NASA is not: obj_halluc 1/2.
    # s3: both triples normalise to the gold one but '"Pete Conrad"' keeps quotes: 2 strings, 1 hit:
    #     P = 1/2, R = 1, F1 = 2/3; conformance 1; sub_halluc 1/2; objects found.
    assert figures["field"] == pytest.approx({
        "precision": (0 + 1 + 0.5) / 4, "recall": (0 + 1 + 1) / 4, "f1": (0 + 1 + 2 / 3) / 4,
        "onto_conf": (1 + 0.5 + 1) / 4, "rel_halluc": (0 + 0.5 + 0) / 4,
        "sub_halluc": (0 + 0 + 0.5) / 4, "obj_halluc": (1 + 0.5 + 0) / 4})
