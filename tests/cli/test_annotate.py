"""`harness annotate` end to end on the podcast suite with its gold removed (no browser: the
reviewed file is written by hand here; tests/annotate/test_page_browser.py drives the page)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.suites import load_suite

from ..annotate.helpers import REPO, replayed_run, run_cli, suite_without_gold


def load_side(suite: Path):
    from harness.annotate.gold_file import read_gold_file

    return read_gold_file(suite.parent / "podcast.gold.yaml")


@pytest.fixture
def proposed(tmp_path, monkeypatch, capsys) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    suite = suite_without_gold(tmp_path)
    run_dir = replayed_run(capsys, suite)
    code, out, err = run_cli(capsys, "annotate", str(suite), "--from", str(run_dir))
    assert code == 0, err
    return suite, run_dir


@pytest.mark.slow
def test_proposals_go_to_a_side_file_and_the_suite_keeps_its_text(proposed):
    suite, _ = proposed
    text = suite.read_text(encoding="utf-8")
    assert text.startswith("# the shipped suite, gold removed\n")  # the user's comment is still there
    assert text.endswith("gold_file: podcast.gold.yaml  # gold kept by harness annotate\n")
    loaded = load_suite(suite)
    assert all(case.pending and case.entities for case in loaded.cases)


@pytest.mark.slow
def test_a_run_reports_the_pending_cases_and_leaves_them_out(proposed, capsys):
    suite, _ = proposed
    code, out, err = run_cli(capsys, "run", str(suite), "--record-mode", "none", "--run-id", "r2")
    assert "12 case(s) with proposed gold pending review (harness annotate): excluded from gold metrics" in out
    summary = json.loads(Path("reports/podcast/r2/summary.json").read_text(encoding="utf-8"))
    assert summary["pending_review"] == 12
    assert summary["variants"]["default"]["metrics"]["annotated"] == {"entities": 0, "relationships": 0}
    assert summary["variants"]["default"]["metrics"]["metrics"]["entity_recall"]["micro"] is None
    assert "12 case(s) have proposed gold pending review" in Path("reports/podcast/r2/report.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_reviewed_cases_are_never_re_proposed_refresh_or_not(proposed, capsys, tmp_path):
    # --refresh used to turn reviewed cases back into pending proposals, their reviewed gold gone
    suite, run_dir = proposed
    reviewed = tmp_path / "reviewed.yaml"
    reviewed.write_text("reviewer: Ana\ncases:\n  - id: host-welcomes-guest\n    entities: [{name: Dana Whitfield}]\n"
                        "  - id: series-a-funding\n    entities: [{name: Quillstack}]\n", encoding="utf-8")
    assert run_cli(capsys, "annotate", str(suite), "--apply", str(reviewed))[0] == 0
    side = suite.parent / "podcast.gold.yaml"
    done_before = {c.id: c for c in load_suite(suite).cases if c.review == "done"}
    assert set(done_before) == {"host-welcomes-guest", "series-a-funding"}
    for extra in ([], ["--refresh"]):
        code, out, err = run_cli(capsys, "annotate", str(suite), "--from", str(run_dir), *extra)
        assert code == 0, err
        assert ("kept as reviewed (a reviewed case is never re-proposed; --apply a new review to change it): "
                "host-welcomes-guest, series-a-funding") in out
        assert "10 case(s) proposed" in out
        loaded = {c.id: c for c in load_suite(suite).cases}
        assert {i: loaded[i] for i in done_before} == done_before  # reviewed gold, reviewer and state as they were
        assert not list(side.parent.glob("*.bak*"))  # nothing replaced: no backup needed


@pytest.mark.slow
def test_refresh_proposes_for_the_suites_own_gold_and_the_suite_file_keeps_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    suite = suite_without_gold(tmp_path)
    text = suite.read_text(encoding="utf-8").replace(
        "- id: host-welcomes-guest\n", "- id: host-welcomes-guest\n  entities: [{name: Dana Whitfield}]\n", 1)
    suite.write_text(text, encoding="utf-8")
    run_dir = replayed_run(capsys, suite)
    code, out, err = run_cli(capsys, "annotate", str(suite), "--from", str(run_dir), "--case", "host-welcomes-guest")
    assert code == 0, err
    assert "left alone (they have gold; --refresh to propose anyway): host-welcomes-guest" in out
    assert "0 case(s) proposed" in out
    code, out, err = run_cli(capsys, "annotate", str(suite), "--from", str(run_dir), "--case", "host-welcomes-guest",
                             "--refresh")
    assert code == 0, err
    assert "1 case(s) proposed" in out and load_suite(suite).cases[0].review == "pending"
    assert suite.read_text(encoding="utf-8").startswith(text)  # its own gold is still in the suite file


@pytest.mark.slow
def test_replacing_a_reviewed_case_backs_up_the_side_file_first(proposed, capsys, tmp_path):
    suite, _ = proposed
    side = suite.parent / "podcast.gold.yaml"
    reviews = []
    for number, name in enumerate(("Dana Whitfield", "Dana W.", "Dana")):
        reviews.append(tmp_path / f"reviewed{number}.yaml")
        reviews[-1].write_text(f"cases:\n  - id: host-welcomes-guest\n    entities: [{{name: {name}}}]\n",
                               encoding="utf-8")
    code, out, err = run_cli(capsys, "annotate", str(suite), "--apply", str(reviews[0]))
    assert code == 0 and "backup" not in out and "kept in" not in out  # a pending proposal reviewed: nothing lost
    first = side.read_bytes()
    code, out, err = run_cli(capsys, "annotate", str(suite), "--apply", str(reviews[1]))
    assert code == 0, err
    backup = suite.parent / "podcast.gold.yaml.bak"
    assert f"reviewed gold replaced for host-welcomes-guest: the previous podcast.gold.yaml is kept in {backup}" in out
    assert backup.read_bytes() == first
    second = side.read_bytes()
    code, out, err = run_cli(capsys, "annotate", str(suite), "--apply", str(reviews[2]))
    assert code == 0 and f"kept in {suite.parent / 'podcast.gold.yaml.bak2'}" in out
    assert backup.read_bytes() == first and (suite.parent / "podcast.gold.yaml.bak2").read_bytes() == second
    assert [e.name for e in load_suite(suite).cases[0].entities] == ["Dana"]


@pytest.mark.slow
def test_two_runs_are_merged_into_one_proposal(tmp_path, monkeypatch, capsys):
    # --from A --from B used to keep only B's answers
    monkeypatch.chdir(tmp_path)
    suite = suite_without_gold(tmp_path)
    for run_id, variant in (("only-default", "default"), ("only-tuned", "tuned")):
        code, _, err = run_cli(capsys, "run", str(suite), "--record-mode", "none", "--run-id", run_id,
                               "--variant", variant)
        assert code in (0, 1), err
    runs = [str(Path("reports/podcast") / r) for r in ("only-default", "only-tuned")]
    code, out, err = run_cli(capsys, "annotate", str(suite), "--from", runs[0], "--from", runs[1])
    assert code == 0, err
    assert "12 case(s) proposed from default, tuned of 2 runs" in out
    side = (suite.parent / "podcast.gold.yaml").read_text(encoding="utf-8")
    assert "  run: reports/podcast/only-default\n  other_runs: [reports/podcast/only-tuned]\n" in side
    voters = {v for case in load_side(suite).cases for e in case.entities for v in e.found_by}
    assert voters == {"default", "tuned"}
    # a variant both runs hold votes once per run, named by run: two answers, neither replacing the other
    replayed_run(capsys, suite, "all")
    code, out, err = run_cli(capsys, "annotate", str(suite), "--from", runs[0], "--from", "reports/podcast/all",
                             "--variant", "default")
    assert code == 0, err
    voters = {v for case in load_side(suite).cases for e in case.entities for v in e.found_by}
    assert voters == {"default@only-default", "default@all"}
    # a run of another suite among them is refused, naming it
    other = Path("reports/podcast/only-tuned")
    (other / "summary.json").unlink()  # an unfinished run: its rows name its suite
    results = other / "results.jsonl"
    results.write_text(re.sub(r'"suite": ?"podcast"', '"suite": "biomed"', results.read_text(encoding="utf-8")),
                       encoding="utf-8")
    code, out, err = run_cli(capsys, "annotate", str(suite), "--from", runs[0], "--from", runs[1])
    assert code == 2 and "a run of suite 'biomed', not 'podcast'" in err and err.count("\n") == 1


@pytest.mark.slow
def test_a_side_file_of_another_suite_is_refused_and_left_as_it_is(proposed, capsys):
    suite, run_dir = proposed
    side = suite.parent / "podcast.gold.yaml"
    side.write_text(side.read_text(encoding="utf-8").replace("suite: podcast\n", "suite: biomed\n"), encoding="utf-8")
    before = (suite.read_bytes(), side.read_bytes())
    code, out, err = run_cli(capsys, "annotate", str(suite), "--from", str(run_dir))
    assert code == 2 and err.count("\n") == 1
    assert f"{side}: gold of suite 'biomed', refused by suite 'podcast'" in err
    # the same file beside a suite that does not name it: not merged into this suite's gold either
    suite.write_text(suite.read_text(encoding="utf-8").replace(
        "gold_file: podcast.gold.yaml  # gold kept by harness annotate\n", ""), encoding="utf-8")
    code, out, err = run_cli(capsys, "annotate", str(suite), "--from", str(run_dir))
    assert code == 2 and f"{side}: gold of suite 'biomed', refused by suite 'podcast'" in err
    assert side.read_bytes() == before[1]


@pytest.mark.slow
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
@pytest.mark.slow
def test_a_bad_reviewed_file_changes_nothing(proposed, capsys, tmp_path, content, message):
    suite, _ = proposed
    side = suite.parent / "podcast.gold.yaml"
    before = (suite.read_bytes(), side.read_bytes())
    reviewed = tmp_path / "reviewed.yaml"
    reviewed.write_text(content, encoding="utf-8")
    code, out, err = run_cli(capsys, "annotate", str(suite), "--apply", str(reviewed))
    assert code == 2 and message in err and err.count("\n") == 1
    assert (suite.read_bytes(), side.read_bytes()) == before


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_proposals_into_a_suite_written_in_flow_style(project, suite, server, api_key, tmp_path, capsys):
    """Issue 28 item 22: `gold_file:` was appended as a line after the closing brace of a suite
    written as JSON (flow-style YAML), which then failed to load ("expected <document start>")."""
    import yaml

    from ..reports.helpers import record_cassettes

    record_cassettes(suite, server, tmp_path)
    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    project.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert run_cli(capsys, "run", str(project), "--run-id", "r")[0] == 0
    code, out, err = run_cli(capsys, "annotate", str(project), "--from", "reports/towns/r", "--refresh")
    assert code == 0, err
    loaded = load_suite(project)
    assert loaded.spec.gold_file == "towns.gold.yaml" and all(case.pending for case in loaded.cases)
    assert json.loads(project.read_text(encoding="utf-8"))["gold_file"] == "towns.gold.yaml"  # still JSON


@pytest.mark.parametrize("text", ['{"name": "s", "cases": [{"id": "a"}]}\n', '{"name": "s",\n "cases": [],\n}\n',
                                  "# note\n{}  # end\n", "name: s\ncases: []\n", "name: s  # no newline at the end"])
def test_the_gold_file_line_keeps_the_suite_yaml_and_its_style(text):
    import yaml

    from harness.cli.annotate import with_gold_file

    written = with_gold_file(text, "s.gold.yaml")
    before = yaml.safe_load(text) or {}
    assert yaml.safe_load(written) == {**before, "gold_file": "s.gold.yaml"}
    flow = "{" in text
    assert written.count("{") == text.count("{") if flow else written.startswith(text)  # one entry more, or one line


def test_a_suite_whose_kind_takes_no_entity_gold_is_refused(capsys, tmp_path):
    """annotate proposes entity/relationship gold: a kind whose cases take none (the registry's
    `gold`) is refused in one line, before any run is read."""
    code, out, err = run_cli(capsys, "annotate", str(REPO / "suites" / "podcast-summaries.yaml"),
                             "--from", str(tmp_path / "no-run"))
    assert code == 2 and err.count("\n") == 1, err
    assert "annotate proposes extraction gold; suite 'podcast-summaries' is a summarize_descriptions suite" in err
