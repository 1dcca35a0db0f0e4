"""`harness gate` and `harness compare` across pinned inputs: the gold, chunks, prompts and ontology
of the two sides compared, a verdict across changed gold refused (exit 2, one line) unless
--allow-changed-gold, and old summaries without fingerprints reported as unknown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.artifacts import SUMMARY_SCHEMA_VERSION
from harness.cli import main
from tests.support.answers_project import answers_project

SUITE = """\
name: pinned
variants:
  default:
    prompt: builtin:graphrag.extract_graph
regression:
  max_drop: 0.05
  metrics: [entity_recall]
cases:
  - id: c1
    text: "Ada was born in London."
    entities: [{name: Ada, type: person}, {name: London, type: geo}]
  - id: c2
    text: "Alan lived in Wilmslow."
    entities: [{name: Alan, type: person}, {name: Wilmslow, type: geo}]
  - id: c3
    text: "Grace worked in Arlington."
    entities: [{name: Grace, type: person}]
"""

ANSWER = '("entity"<|>{name}<|>PERSON<|>someone)\n<|COMPLETE|>'
OUTPUTS = [{"id": "c1", "output": ANSWER.format(name="Ada")}, {"id": "c2", "output": ANSWER.format(name="Alan")},
           {"id": "c3", "output": ANSWER.format(name="Grace")}]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return answers_project(tmp_path, ("pinned.yaml", SUITE), ("answers.jsonl", OUTPUTS))


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def evaluate(capsys, project: Path, run_id: str, suite: str | None = None) -> Path:
    if suite is not None:
        (project / "suites" / "pinned.yaml").write_text(suite, encoding="utf-8")
    code, _, err = cli(capsys, "evaluate", project / "suites" / "pinned.yaml", "--outputs", project / "answers.jsonl",
                       "--variant", "default", "--reports", project / "reports", "--run-id", run_id)
    assert code == 0, err
    return project / "reports" / "pinned" / run_id


def accept(capsys, run: Path) -> Path:
    code, _, err = cli(capsys, "baseline", "update", run)
    assert code == 0, err
    return run.parent.parent / "baselines" / "pinned.json"


def gate_json(run: Path) -> dict:
    return json.loads((run / "gate.json").read_text(encoding="utf-8"))


CHANGED_GOLD = SUITE.replace("[{name: Alan, type: person}, {name: Wilmslow, type: geo}]",
                             "[{name: Alan, type: person}]")
CHANGED_CHUNK = SUITE.replace("Grace worked in Arlington.", "Grace worked in Arlington, Virginia.")


def test_summary_and_baseline_record_the_fingerprints(project, capsys):
    run = evaluate(capsys, project, "one")
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    baseline = json.loads(accept(capsys, run).read_text(encoding="utf-8"))
    assert set(summary["inputs"]["gold"]) == {"c1", "c2", "c3"}
    assert set(summary["inputs"]["prompts"]) == {"default"}
    assert baseline["inputs"] == summary["inputs"]
    # an added key: the version stays the current one (docs/reports.md; 2 since case_diffs.jsonl, issue 31)
    assert summary["schema_version"] == SUMMARY_SCHEMA_VERSION == 2


def test_the_gate_against_unchanged_inputs_says_so(project, capsys):
    accept(capsys, evaluate(capsys, project, "one"))
    run = evaluate(capsys, project, "two")
    code, out, _ = cli(capsys, "gate", run)
    assert code == 0
    assert "inputs against the baseline: unchanged: suite, ontology, prompts, gold, chunks" in out
    assert gate_json(run)["inputs"]["gold"] == {"status": "same", "compared": 3, "changed": []}


def test_the_gate_refuses_a_baseline_scored_on_other_gold(project, capsys):
    accept(capsys, evaluate(capsys, project, "one"))
    run = evaluate(capsys, project, "two", CHANGED_GOLD)
    code, out, err = cli(capsys, "gate", run)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "gold changed for 1 of 3 case(s) (c2) since the baseline was scored" in lines[0]
    assert "--allow-changed-gold" in lines[0]
    assert "baselines/pinned.json" in lines[0]


def test_allow_changed_gold_gives_the_verdict_with_a_warning_and_records_it(project, capsys):
    accept(capsys, evaluate(capsys, project, "one"))
    run = evaluate(capsys, project, "two", CHANGED_GOLD)
    code, out, _ = cli(capsys, "gate", run, "--allow-changed-gold")
    assert code == 0
    assert "warning: verdict given across changed gold (--allow-changed-gold): gold changed for 1 of 3 case(s) (c2)" in out
    verdict = gate_json(run)
    assert verdict["inputs"]["allowed_changed_gold"] is True
    assert verdict["inputs"]["gold"]["changed"] == ["c2"]
    assert any(rule["rule"] == "regression" for rule in verdict["rules"])  # the regression rules were applied


def test_changed_chunks_are_said_and_not_refused(project, capsys):
    accept(capsys, evaluate(capsys, project, "one"))
    run = evaluate(capsys, project, "two", CHANGED_CHUNK)
    code, out, _ = cli(capsys, "gate", run)
    assert code == 0
    assert "chunks changed for 1 of 3 case(s) (c3)" in out
    assert gate_json(run)["inputs"]["chunks"]["changed"] == ["c3"]


def test_run_gate_refuses_and_plain_run_notes_it(project, capsys):
    """`harness evaluate --gate` (like `harness run --gate`) exits 2 on a baseline of other gold; without
    --gate the run is written and its reports say why the baseline was not used."""
    accept(capsys, evaluate(capsys, project, "one"))
    (project / "suites" / "pinned.yaml").write_text(CHANGED_GOLD, encoding="utf-8")
    args = ["evaluate", project / "suites" / "pinned.yaml", "--outputs", project / "answers.jsonl",
            "--variant", "default", "--reports", project / "reports"]
    code, _, err = cli(capsys, *args, "--run-id", "gated", "--gate")
    assert code == 2 and "gold changed for 1 of 3 case(s) (c2)" in err
    code, _, _ = cli(capsys, *args, "--run-id", "plain")
    assert code == 0
    verdict = gate_json(project / "reports" / "pinned" / "plain")
    assert verdict["baseline_file"] is None
    assert any(note.startswith("baseline not used: ") and "(c2)" in note for note in verdict["notes"])


def test_an_old_baseline_without_fingerprints_is_unknown_and_not_refused(project, capsys):
    path = accept(capsys, evaluate(capsys, project, "one"))
    old = json.loads(path.read_text(encoding="utf-8"))
    del old["inputs"]
    path.write_text(json.dumps(old), encoding="utf-8")
    run = evaluate(capsys, project, "two", CHANGED_GOLD)
    code, out, _ = cli(capsys, "gate", run)
    assert code == 0
    assert "inputs against the baseline: unknown — the baseline summary records no input fingerprints" in out
    assert "unchanged" not in out
    assert gate_json(run)["inputs"]["unknown"] == ["baseline"]


def test_compare_refuses_changed_gold_unless_allowed(project, capsys):
    one = evaluate(capsys, project, "one")
    two = evaluate(capsys, project, "two", CHANGED_GOLD)
    code, _, err = cli(capsys, "compare", one, two)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "gold changed for 1 of 3 case(s) (c2) since the run" in err and "no comparison across changed gold" in err
    code, out, err = cli(capsys, "compare", one, two, "--allow-changed-gold", "--json")
    assert code == 0
    assert "warning: comparison given across changed gold" in err
    document = json.loads(out)
    assert document["inputs"]["allowed_changed_gold"] is True and document["inputs"]["gold"]["changed"] == ["c2"]
    assert "default" in document["comparisons"]


def test_compare_says_what_changed_and_what_is_unknown(project, capsys):
    one = evaluate(capsys, project, "one")
    two = evaluate(capsys, project, "two", CHANGED_CHUNK)
    code, out, _ = cli(capsys, "compare", one, two)
    assert code == 0
    assert out.splitlines()[-1].startswith(f"inputs against the run {one}: chunks changed for 1 of 3 case(s) (c3)")
    summary = json.loads((one / "summary.json").read_text(encoding="utf-8"))
    del summary["inputs"]
    (one / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    code, out, _ = cli(capsys, "compare", one / "results.jsonl", two)
    assert code == 0
    assert "unknown — the RUN_A summary records no input fingerprints" in out.splitlines()[-1]
