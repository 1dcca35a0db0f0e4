"""`harness annotate` end to end on the podcast suite with its gold removed (no browser: the
reviewed file is written by hand here; tests/annotate/test_page_browser.py drives the page)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.suites import load_suite

from .helpers import replayed_run, run_cli, suite_without_gold


@pytest.fixture
def proposed(tmp_path, monkeypatch, capsys) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    suite = suite_without_gold(tmp_path)
    run_dir = replayed_run(capsys, suite)
    code, out, err = run_cli(capsys, "annotate", str(suite), "--from", str(run_dir))
    assert code == 0, err
    return suite, run_dir


def test_proposals_go_to_a_side_file_and_the_suite_keeps_its_text(proposed):
    suite, _ = proposed
    text = suite.read_text(encoding="utf-8")
    assert text.startswith("# the shipped suite, gold removed\n")  # the user's comment is still there
    assert text.endswith("gold_file: podcast.gold.yaml  # gold kept by harness annotate\n")
    loaded = load_suite(suite)
    assert all(case.pending and case.entities for case in loaded.cases)


def test_a_run_reports_the_pending_cases_and_leaves_them_out(proposed, capsys):
    suite, _ = proposed
    code, out, err = run_cli(capsys, "run", str(suite), "--record-mode", "none", "--run-id", "r2")
    assert "12 case(s) with proposed gold pending review (harness annotate): excluded from gold metrics" in out
    summary = json.loads(Path("reports/podcast/r2/summary.json").read_text(encoding="utf-8"))
    assert summary["pending_review"] == 12
    assert summary["variants"]["default"]["metrics"]["annotated"] == {"entities": 0, "relationships": 0}
    assert summary["variants"]["default"]["metrics"]["metrics"]["entity_recall"]["micro"] is None
    assert "12 case(s) have proposed gold pending review" in Path("reports/podcast/r2/report.md").read_text(encoding="utf-8")


def test_cases_with_gold_are_left_alone_unless_refresh(proposed, capsys, tmp_path):
    suite, run_dir = proposed
    reviewed = tmp_path / "reviewed.yaml"
    reviewed.write_text("cases:\n  - id: host-welcomes-guest\n    entities: [{name: Dana Whitfield}]\n", encoding="utf-8")
    assert run_cli(capsys, "annotate", str(suite), "--apply", str(reviewed))[0] == 0
    code, out, _ = run_cli(capsys, "annotate", str(suite), "--from", str(run_dir), "--case", "host-welcomes-guest")
    assert "left alone (they have gold; --refresh to propose anyway): host-welcomes-guest" in out
    assert "0 case(s) proposed" in out
    assert load_suite(suite).cases[0].review == "done"
    code, out, _ = run_cli(capsys, "annotate", str(suite), "--from", str(run_dir), "--case", "host-welcomes-guest",
                           "--refresh")
    assert "1 case(s) proposed" in out and load_suite(suite).cases[0].review == "pending"


def test_apply_reports_each_variants_recall_against_the_reviewed_gold(proposed, capsys, tmp_path):
    suite, run_dir = proposed
    reviewed = tmp_path / "reviewed.yaml"
    reviewed.write_text(
        "reviewer: Ana\nreviewed: '2026-11-24'\ncases:\n  - id: host-welcomes-guest\n"
        "    entities: [{name: Dana Whitfield, type: person}, {name: Nobody Known}]\n"
        "    relationships: [{source: Dana Whitfield, target: Nobody Known}]\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "annotate", str(suite), "--apply", str(reviewed))
    assert code == 0, err
    case = load_suite(suite).cases[0]
    assert (case.review, case.reviewer, case.reviewed, case.annotated) == ("done", "Ana", "2026-11-24", True)
    # every variant named Dana Whitfield (found_by: default, tuned, auto) and nobody wrote
    # "Nobody Known": entity recall 1/2 = 50.0%; the one gold edge needs Nobody Known: 0/1 = 0.0%
    # (the run is the one the proposals came from, kept in the side file's proposed_from)
    for variant in ("default", "tuned", "auto"):
        assert f"  {variant}: entity recall 50.0%" in out
    assert out.count("relationship recall 0.0%") == 3


@pytest.mark.parametrize(("content", "message"), [
    ("cases:\n  - id: host-welcomes-guest\n    relationships: [{source: A, target: B}]\n",
     "reviewed.yaml:3: cases[0].relationships[0].source: 'A' is not an entity of case 'host-welcomes-guest'"),
    ("cases:\n  - id: no-such-case\n", "reviewed.yaml: case 'no-such-case' is not a case of the suite"),
    ("suite: biomed\ncases:\n  - id: host-welcomes-guest\n", "reviewed gold of suite 'biomed', not 'podcast'"),
    ("cases: []\n", "reviewed.yaml: no case in the reviewed file"),
    ("{cases: [\n", "reviewed.yaml"),
])
def test_a_bad_reviewed_file_changes_nothing(proposed, capsys, tmp_path, content, message):
    suite, _ = proposed
    side = suite.parent / "podcast.gold.yaml"
    before = (suite.read_bytes(), side.read_bytes())
    reviewed = tmp_path / "reviewed.yaml"
    reviewed.write_text(content, encoding="utf-8")
    code, out, err = run_cli(capsys, "annotate", str(suite), "--apply", str(reviewed))
    assert code == 2 and message in err and err.count("\n") == 1
    assert (suite.read_bytes(), side.read_bytes()) == before


def test_bad_requests_are_one_line_exit_2(proposed, capsys, tmp_path):
    suite, run_dir = proposed
    cases = [
        (["--from", str(run_dir), "--variant", "nope"], "--variant: nope not in run"),
        (["--from", str(run_dir), "--case", "nope"], "--case: nope not a case of suite 'podcast'"),
        ([], "say what to do"),
        (["--apply", "x.yaml", "--review"], "--apply goes alone"),
        (["--apply", "missing.yaml"], "missing.yaml: no such reviewed gold file"),
    ]
    for argv, message in cases:
        code, out, err = run_cli(capsys, "annotate", str(suite), *argv)
        assert code == 2 and message in err and err.count("\n") == 1, (argv, err)


def test_agreement_between_two_reviewers(proposed, capsys, tmp_path):
    suite, _ = proposed
    first = tmp_path / "first.yaml"
    first.write_text(
        "cases:\n  - id: host-welcomes-guest\n    entities: [{name: A}, {name: B, aliases: [Bee]}, {name: C}]\n"
        "    relationships: [{source: A, target: B}, {source: B, target: C}]\n"
        "  - id: series-a-funding\n    entities: [{name: Quillstack}]\n", encoding="utf-8")
    assert run_cli(capsys, "annotate", str(suite), "--apply", str(first))[0] == 0
    second = tmp_path / "second.yaml"
    second.write_text(
        "cases:\n  - id: host-welcomes-guest\n    entities: [{name: A}, {name: Bee}, {name: D}]\n"
        "    relationships: [{source: A, target: Bee}, {source: A, target: D}]\n"
        "  - id: acquisition-deal\n    entities: [{name: X}]\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "annotate", str(suite), "--agreement", str(second))
    assert code == 0, err
    # entities: A = A, Bee = B's alias: 2 shared of 3 and 3, F1 = 2 * 2 / (3 + 3) = 66.7%
    # relationships: A-Bee is A-B, A-D is none: 1 shared of 2 and 2, F1 = 2 * 1 / (2 + 2) = 50.0%
    assert "host-welcomes-guest: entities 66.7% (2 shared of 3 / 3), relationships 50.0% (1 shared of 2 / 2)" in out
    assert "overall (1 case(s)): entities 66.7%, relationships 50.0%" in out
    assert "only in the suite's gold: series-a-funding" in out
    assert "(or without gold in the suite): acquisition-deal" in out
