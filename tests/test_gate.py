"""The gate: thresholds, regression against the accepted baseline, verdicts and exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.artifacts import RunSummary, Verdict
from harness.model import CaseResult
from harness.gate import judge, make_baseline
from harness.runfolder import read_baseline as load_baseline
from .support.fake_server import FakeOpenAIServer
from harness.cli.finished import gate_outcomes
from harness.gate_settings import Regression
from harness.suites import Suite

from .conftest import script_for
from .reports.helpers import harness, record_cassettes, replay, set_suite, worse_script


def evaluate(summary: RunSummary, rows: list[CaseResult], **options: Any) -> Verdict:
    """The verdict alone, as `harness run --gate` gets it from `judge`."""
    return judge(summary, rows, **options).verdict



@pytest.fixture
def recorded(suite, server, api_key, tmp_path):
    record_cassettes(suite, server, tmp_path)
    return suite


def reports(tmp_path: Path) -> Path:
    return tmp_path / "reports"


# --------------------------------------------------------------------------- thresholds


@pytest.mark.slow
def test_a_passing_run_exits_0_and_lists_every_rule(recorded, tmp_path, capsys):
    outcome, _ = replay(recorded, reports(tmp_path), "ok")
    code, out, err = harness(capsys, "gate", str(outcome.run_dir))
    assert code == 0, err
    assert "towns (ok): gate PASS" in out
    assert "PASS  default: entity recall 50.0% meets the threshold 50.0%" in out
    assert "PASS  tuned: entity recall 90.0% meets the threshold 50.0%" in out
    assert "no baseline" in out
    verdict = json.loads((outcome.run_dir / "gate.json").read_text())
    assert verdict["status"] == "pass" and verdict["counts"]["fail"] == 0


@pytest.mark.slow
def test_a_broken_threshold_exits_1_naming_the_rule(recorded, project, tmp_path, capsys):
    suite = set_suite(project, thresholds={"entity_recall": 0.5, "format_errors": 0.3,
                                           "variants": {"default": {"entity_recall": 0.75},
                                                        "tuned": {"format_errors": 0.5}}})
    outcome, _ = replay(suite, reports(tmp_path), "strict")
    code, out, err = harness(capsys, "gate", str(outcome.run_dir))
    assert code == 1
    assert "FAIL  default: entity recall 50.0% is below the threshold 75.0%" in out
    assert "PASS  tuned: entity recall 90.0% meets the threshold 50.0%" in out  # the override is default's only
    assert "FAIL  default: share of cases with a format error 33.3% is above the limit 30.0%" in out
    assert "PASS  tuned: share of cases with a format error 33.3% is within the limit 50.0%" in out
    md = (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    assert "**Gate: ❌ FAIL**" in md and "| ❌ fail | default | threshold | entity_recall | 50.0% | ≥ 75.0% |" in md


def test_completion_rate_and_f1_thresholds(recorded, project, tmp_path):
    suite = set_suite(project, thresholds={"completion_rate": 0.99, "relationship_f1": 0.1})
    outcome, summary = replay(suite, reports(tmp_path), "more")
    verdict = evaluate(summary, outcome.results)
    rules = {(r.variant, r.metric): r for r in verdict.rules}
    assert rules[("default", "completion_rate")].status == "fail"
    assert rules[("default", "completion_rate")].limit == 0.99
    assert rules[("tuned", "relationship_f1")].status == "pass"


@pytest.mark.slow
def test_run_with_gate_exits_1_with_the_failing_rule(recorded, project, tmp_path, capsys):
    """`harness run --gate`: cli.run.evaluate_suites writes the outputs, gate_outcomes decides the exit code."""
    from harness.cli.run import evaluate_suites

    set_suite(project, thresholds={"relationship_recall": 0.9})
    outcomes = evaluate_suites([project], command="run", record_mode="none", variants=None, cases=None,
                               reports=reports(tmp_path), run_id="gated", fresh=True)
    capsys.readouterr()
    assert gate_outcomes(outcomes) == 1
    out = capsys.readouterr().out
    assert "FAIL  default: relationship recall (endpoints) 16.7% is below the threshold 90.0%" in out
    set_suite(project, thresholds={"relationship_recall": 0.1})
    outcomes = evaluate_suites([project], command="run", record_mode="none", variants=None, cases=None,
                               reports=reports(tmp_path), run_id="gated2", fresh=True)
    assert gate_outcomes(outcomes) == 0


@pytest.mark.slow
def test_cli_run_gate_option(recorded, project, tmp_path, capsys):
    """`harness run --gate` is documented: without the option this exits 2 (no such option) and fails."""
    from harness.cli import main

    set_suite(project, thresholds={"relationship_recall": 0.9})
    code = main(["run", str(project), "--reports", str(reports(tmp_path)), "--gate"])
    out, err = capsys.readouterr()
    assert code == 1, err
    assert "FAIL  default: relationship recall (endpoints) 16.7% is below the threshold 90.0%" in out
    set_suite(project, thresholds={"relationship_recall": 0.1})
    assert main(["run", str(project), "--reports", str(reports(tmp_path)), "--gate", "--fresh"]) == 0


# --------------------------------------------------------------------------- regression against the baseline


def test_baseline_update_writes_the_baseline_atomically(recorded, tmp_path, capsys):
    outcome, _ = replay(recorded, reports(tmp_path), "accepted")
    code, out, err = harness(capsys, "baseline", "update", str(outcome.run_dir))
    assert code == 0, err
    path = reports(tmp_path) / "baselines" / "towns.json"
    assert str(path) in out
    data = load_baseline(path, suite="towns")
    assert data.run_id == "accepted" and data.variants.keys() == {"default", "tuned"}
    assert set(data.cases["tuned"]) == {"mayor", "flood", "fair"}
    assert data.cases["default"]["flood"].entity_recall == pytest.approx(1 / 3)
    assert data.cases["default"]["flood"].missed_entities == ["Arn", "Red Lantern Society"]
    assert not list(path.parent.glob(".*tmp"))


@pytest.mark.slow
def test_a_regression_against_the_baseline_exits_1(recorded, project, tmp_path, capsys, monkeypatch):
    accepted, _ = replay(recorded, reports(tmp_path), "accepted")
    assert harness(capsys, "baseline", "update", str(accepted.run_dir))[0] == 0
    # tuned now answers like default: it loses entities and relationships in every case
    with FakeOpenAIServer(worse_script(recorded, script_for(recorded))) as srv:
        record_cassettes(recorded, srv, tmp_path, mode="rewrite")
    worse, _ = replay(recorded, reports(tmp_path), "worse")
    code, out, err = harness(capsys, "gate", str(worse.run_dir))
    assert code == 1, err
    # three cases cannot tell a 41.7 pt drop from chance (p = 0.25): the suite-level rule warns,
    # and the per-case rule is what fails
    assert "WARN  tuned: entity recall fell 41.7 pt against the baseline over 3 paired cases" in out
    assert "3 cases cannot tell a drop from chance (at least 6 are needed)" in out
    assert "FAIL  tuned: entity recall per case: 3 case(s) dropped by more than 20.0 pt: flood (-66.7 pt), fair (-33.3 pt), mayor (-25.0 pt)" in out
    assert "PASS  default: entity recall held 0.0 pt against the baseline over 3 paired cases" in out
    verdict = json.loads((worse.run_dir / "gate.json").read_text())
    case_rule = next(r for r in verdict["rules"] if r["rule"] == "case_regression" and r["variant"] == "tuned"
                     and r["metric"] == "entity_recall")
    flood = next(c for c in case_rule["cases"] if c["case_id"] == "flood")
    assert flood["newly_missed_entities"] == ["Arn", "Red Lantern Society"]
    # the report shows it too, and what the case lost
    md = (worse.run_dir / "report.md").read_text(encoding="utf-8")
    assert "`tuned` / `flood`: entity_recall 100.0% → 33.3%; newly missed entities: Arn, Red Lantern Society" in md
    # the same run against itself as baseline passes
    code, out, _ = harness(capsys, "gate", str(worse.run_dir), "--baseline", str(accepted.run_dir.parent.parent / "baselines"))
    assert code == 1
    assert harness(capsys, "baseline", "update", str(worse.run_dir))[0] == 0
    assert harness(capsys, "gate", str(worse.run_dir))[0] == 0


def test_a_drop_within_noise_warns(recorded, tmp_path):
    outcome, summary = replay(recorded, reports(tmp_path), "noisy")
    baseline = make_baseline(summary, outcome.results, run_dir=outcome.run_dir)
    cases = baseline.cases["tuned"]
    # run - baseline per case: -0.5, +0.3, 0: a mean drop of 6.7 pt, but the interval spans zero
    cases["mayor"].entity_recall += 0.5
    cases["flood"].entity_recall -= 0.3
    config = summary.gate_config.model_copy(update={"regression": Regression(max_drop=0.05, case_max_drop=0.9,
                                                                             metrics=["entity_recall"])})
    verdict = evaluate(summary, outcome.results, baseline=baseline, baseline_file="b.json", config=config)
    rule = next(r for r in verdict.rules if r.rule == "regression" and r.variant == "tuned")
    assert rule.status == "warn" and rule.value == pytest.approx(-0.2 / 3)
    assert rule.interval[0] < 0 < rule.interval[1]
    assert "noise" in rule.message
    assert verdict.status == "warn" and verdict.exit_code == 0


def test_a_small_drop_passes_and_every_rule_has_value_and_limit(recorded, tmp_path):
    outcome, summary = replay(recorded, reports(tmp_path), "small")
    baseline = make_baseline(summary, outcome.results, run_dir=outcome.run_dir)
    baseline.cases["tuned"]["fair"].entity_recall += 0.1  # 3.3 pt mean drop, under max_drop
    verdict = evaluate(summary, outcome.results, baseline=baseline, baseline_file="b.json")
    assert verdict.status == "pass"
    for rule in verdict.rules:
        assert rule.value is not None and rule.limit is not None, rule
    assert {r.rule for r in verdict.rules} == {"threshold", "regression", "case_regression"}


@pytest.mark.slow
def test_missing_cases_against_the_baseline_warn(recorded, tmp_path):
    outcome, summary = replay(recorded, reports(tmp_path), "full")
    baseline = make_baseline(summary, outcome.results, run_dir=outcome.run_dir)
    partial, partial_summary = replay(recorded, reports(tmp_path), "partial", cases=["mayor", "fair"])
    verdict = evaluate(partial_summary, partial.results, baseline=baseline, baseline_file="b.json")
    coverage = [r for r in verdict.rules if r.rule == "coverage"]
    assert coverage and all(r.status == "warn" for r in coverage)
    assert "flood" in coverage[0].message


# --------------------------------------------------------------------------- bad input: exit 2, one line


@pytest.mark.slow
def test_bad_inputs_exit_2_with_one_line(recorded, tmp_path, capsys):
    outcome, _ = replay(recorded, reports(tmp_path), "r")
    cases = []
    not_json = tmp_path / "broken.json"
    not_json.write_text("{nope", encoding="utf-8")
    other_suite = tmp_path / "other.json"
    baseline = json.loads((outcome.run_dir / "summary.json").read_text())
    other_suite.write_text(json.dumps({**baseline, "suite": "podcast", "cases": {}, "baseline_schema_version": 1}))
    not_baseline = tmp_path / "plain.json"
    not_baseline.write_text("[1, 2]")
    cases.append((["gate", str(tmp_path / "nowhere")], "no such run folder"))
    cases.append((["gate", str(tmp_path)], "no results.jsonl here"))
    cases.append((["gate", str(outcome.run_dir), "--baseline", str(not_json)], "broken.json: not JSON"))
    cases.append((["gate", str(outcome.run_dir), "--baseline", str(other_suite)], "baseline of suite 'podcast'"))
    cases.append((["gate", str(outcome.run_dir), "--baseline", str(not_baseline)], "not a baseline file"))
    cases.append((["gate", str(outcome.run_dir), "--baseline", str(tmp_path / "absent.json")], "baseline file not found"))
    cases.append((["baseline", "update", str(tmp_path / "nowhere")], "no such run folder"))
    for argv, message in cases:
        code, out, err = harness(capsys, *argv)
        assert code == 2, (argv, out, err)
        assert message in err and len(err.strip().splitlines()) == 1, (argv, err)


def test_an_unfinished_run_is_bad_input(recorded, tmp_path, capsys):
    outcome, _ = replay(recorded, reports(tmp_path), "r")
    (outcome.run_dir / "summary.json").unlink()
    code, _, err = harness(capsys, "gate", str(outcome.run_dir))
    assert code == 2 and "unfinished" in err


def test_a_broken_default_baseline_does_not_stop_a_run_but_fails_the_gate(recorded, tmp_path, capsys):
    path = reports(tmp_path) / "baselines" / "towns.json"
    path.parent.mkdir(parents=True)
    path.write_text("garbage", encoding="utf-8")
    outcome, _ = replay(recorded, reports(tmp_path), "r")  # reports are written, with a note
    assert "baseline not used" in (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    code, _, err = harness(capsys, "gate", str(outcome.run_dir))
    assert code == 2 and "towns.json: not JSON" in err


@pytest.mark.slow
def test_gate_json_output(recorded, tmp_path, capsys):
    outcome, _ = replay(recorded, reports(tmp_path), "j")
    code, out, _ = harness(capsys, "gate", str(outcome.run_dir), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["status"] == "pass" and data["verdicts"][0]["suite"] == "towns"
    assert all({"value", "limit", "status"} <= set(r) for r in data["verdicts"][0]["rules"])


# --------------------------------------------------------------------------- cases without gold (issue 12.1)

SHIPPED_THRESHOLDS = {"entity_recall": 0.5, "relationship_recall": 0.3, "format_errors": 0.25}  # suites/podcast.yaml
RECALL_FIGURE = re.compile(r"recall( \(micro\))?:? \d+(\.\d+)?%")  # "entity recall 100.0%"


def strip_gold(project: Path) -> Suite:
    """The suite as `harness import graphrag` writes it: every case with empty gold lists."""
    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    cases = [{"id": c["id"], "text": c["text"], "entities": [], "relationships": []} for c in data["cases"]]
    return set_suite(project, cases=cases, thresholds=SHIPPED_THRESHOLDS)


@pytest.mark.slow
def test_a_suite_without_gold_fails_the_gate_and_shows_no_recall(recorded, project, tmp_path, capsys):
    from harness.cli import main

    strip_gold(project)
    code = main(["run", str(project), "--reports", str(reports(tmp_path)), "--run-id", "nogold", "--gate"])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert not RECALL_FIGURE.search(out), out
    # no gold at all: the console shows the compact reference-free columns, no recall column
    header = next(line for line in out.splitlines() if "variant" in line and "grounded" in line)
    assert [c.strip() for c in header.split("┃")[2:7]] == ["grounded", "types ok", "duplicates", "dangling", "leaks"]
    assert "recall" not in header
    assert "gate: PASS" not in out
    assert "entity recall over 0 of 3 annotated cases: n/a" in out
    assert "FAIL  default: entity recall is n/a" in out and "no case has gold entities" in out
    run_dir = reports(tmp_path) / "towns" / "nogold"
    summary = json.loads((run_dir / "summary.json").read_text())
    metrics = summary["variants"]["tuned"]["metrics"]
    assert metrics["annotated"] == {"entities": 0, "relationships": 0}
    for name in ("entity_recall", "entity_precision", "entity_f1", "relationship_recall", "relationship_f1"):
        assert metrics["metrics"][name]["micro"] is None and metrics["metrics"][name]["macro"] is None, name
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    junit = (run_dir / "junit.xml").read_text(encoding="utf-8")
    for text in (md, html):
        assert "n/a" in text and not RECALL_FIGURE.search(text.replace("Entity recall", "entity recall"))
    assert "| Entity recall | **n/a** · n/a |" in md
    for name in ("entity_recall", "relationship_recall", "entity_f1", "relationship_f1"):
        assert f'name="{name}" value="n/a"' in junit and f'name="{name}" value="1.000000"' not in junit
    code, out, _ = harness(capsys, "gate", str(run_dir))
    assert code == 1 and not RECALL_FIGURE.search(out)


# --------------------------------------------------------------------------- gate and compare agree (issue 12.6)


def test_two_cases_that_both_dropped_are_not_called_a_real_regression(recorded, tmp_path):
    """Two cases that both lost 40 pt: the bootstrap interval is the point [-40, -40], but the exact
    sign-flip p-value is 0.5, the p-value `compare` prints; the gate must not call that real."""
    from harness.compare import compare

    outcome, summary = replay(recorded, reports(tmp_path), "two", cases=["mayor", "fair"])
    baseline = make_baseline(summary, outcome.results, run_dir=outcome.run_dir)
    for case in baseline.cases["tuned"].values():
        case.entity_recall += 0.4
    config = summary.gate_config.model_copy(update={"regression": Regression(max_drop=0.05, case_max_drop=0.9,
                                                                             metrics=["entity_recall"])})
    verdict = evaluate(summary, outcome.results, baseline=baseline, baseline_file="b.json", config=config)
    rule = next(r for r in verdict.rules if r.rule == "regression" and r.variant == "tuned")
    assert rule.value == pytest.approx(-0.4) and rule.interval == pytest.approx([-0.4, -0.4])
    assert rule.p_value == pytest.approx(0.5)
    assert rule.status == "warn", rule.message
    assert "2 cases cannot tell a drop from chance (at least 6 are needed)" in rule.message
    assert verdict.exit_code == 0
    # the same numbers as `harness compare` on the same paired values
    tuned = [r for r in outcome.results if r.variant == "tuned"]
    lowered = [r.model_copy(update={"score": r.score.model_copy(update={"entities": r.score.entities.model_copy(
        update={"recall": r.score.entities.recall + 0.4})}), "metrics": None}) for r in tuned]  # another score: measured again
    delta = compare(lowered, tuned).metrics["entity_recall"]
    assert (delta.ci_low, delta.ci_high, delta.p_value) == pytest.approx((*rule.interval, rule.p_value))
    assert delta.significant is False


def test_threshold_failures_read_as_sentences(recorded, project, tmp_path):
    suite = set_suite(project, thresholds={"entity_recall": 0.75, "format_errors": 0.1})
    outcome, summary = replay(suite, reports(tmp_path), "sentences")
    verdict = evaluate(summary, outcome.results)
    messages = {(r.variant, r.metric): r.message for r in verdict.rules}
    assert messages[("default", "entity_recall")] == "entity recall 50.0% is below the threshold 75.0%"
    assert messages[("tuned", "entity_recall")] == "entity recall 90.0% meets the threshold 75.0%"
    assert messages[("default", "format_errors")] == "share of cases with a format error 33.3% is above the limit 10.0%"


# --------------------------------------------------------------------------- reference-free metrics (issue 15)


def _rf_row(variant: str, case_id: str, **figures: Any) -> CaseResult:
    """A scored row of a case without gold whose reference-free figures are given (0 unless set)."""
    from harness.model import ExtractedGraph, GoldCase, ReferenceFreeScores
    from harness.scoring import score_case

    score = score_case(GoldCase(id=case_id, text="x"), ExtractedGraph())
    score.reference_free = ReferenceFreeScores(**{"entities": 0, "relationships": 0, "grounded": 0, **figures})
    return CaseResult(suite="s", variant=variant, case_id=case_id, score=score)


def _rf_summary(rows: list[CaseResult]) -> RunSummary:
    from harness.summary import variant_summary

    names = list(dict.fromkeys(r.variant for r in rows))
    variants = {v: variant_summary([r for r in rows if r.variant == v], prompt="p", model="m", prices={}) for v in names}
    return RunSummary(harness_version="t", suite="s", suite_file="s.yaml", run_id="r", created_at="now",
                      record_mode="none", baseline=names[0], variants=variants, ratios={}, comparisons={},
                      timings={})


def _config(**settings: Any):
    from harness.artifacts import GateConfig
    from harness.gate_settings import Thresholds

    return GateConfig(thresholds=Thresholds.model_validate(settings.get("thresholds", {})),
                      regression=Regression.model_validate(settings.get("regression", {})))


def test_count_thresholds_check_the_mean_per_case_and_each_case() -> None:
    # v: leaks 0, 1, 2 (mean 1.0, total 3); dangling 0, 0, 4; distinct entities 3, 5, 1 (mean 3.0)
    rows = [_rf_row("v", "a", example_leaks=0, dangling=0, entities=3),
            _rf_row("v", "b", example_leaks=1, dangling=0, entities=5),
            _rf_row("v", "c", example_leaks=2, dangling=4, entities=1)]
    summary = _rf_summary(rows)
    config = _config(thresholds={"example_leaks": 1, "dangling": 1, "distinct_entities": 3, "grounded_rate": 0.5})
    judgement = judge(summary, rows, config=config)
    rules = {r.metric: r for r in judgement.verdict.rules if r.rule == "threshold"}
    assert rules["example_leaks"].status == "pass" and rules["example_leaks"].value == 1.0  # (0 + 1 + 2) / 3 <= 1
    assert rules["example_leaks"].message == ("example leaks 1 per case over 3 cases (total 3) is within the limit 1")
    assert rules["dangling"].status == "fail" and rules["dangling"].value == pytest.approx(4 / 3)  # 1.33 > 1
    assert "dangling relationships 1.33 per case over 3 cases (total 4) is above the limit 1" in rules["dangling"].message
    assert rules["distinct_entities"].status == "pass"  # (3 + 5 + 1) / 3 = 3 >= 3
    # grounded_rate (the alias) is checked as grounding_rate: no entity predicted anywhere, so n/a, which fails
    assert rules["grounding_rate"].status == "fail" and "n/a" in rules["grounding_rate"].message
    assert judgement.verdict.status == "fail"
    # per case: only c breaks the leak limit (2 > 1; b's 1 is within it); c also has 4 dangling > 1 and 1 entity < 3.
    # The verdict fails dangling only, so c fails on dangling and warns on the two limits the variant meets on average
    checks = judgement.checks
    assert checks[("v", "a")].passed and checks[("v", "b")].passed
    assert checks[("v", "c")].failures == ["dangling relationships 4 is above the limit 1"]
    assert checks[("v", "c")].warnings == ["distinct entities 1 is below the threshold 3",  # thresholds: order
                                          "example leaks 2 is above the limit 1"]
    assert checks[("v", "c")].undefined == ["grounding rate n/a"]  # nothing predicted: n/a, neither pass nor fail


def test_a_count_threshold_with_no_value_fails_and_the_case_is_unchecked() -> None:
    rows = [_rf_row("v", "a", example_leaks=None), _rf_row("v", "b", example_leaks=None)]  # no example text
    judgement = judge(_rf_summary(rows), rows, config=_config(thresholds={"example_leaks": 0}))
    rule = next(r for r in judgement.verdict.rules if r.metric == "example_leaks")
    assert rule.status == "fail" and rule.value is None
    assert rule.message.startswith("example leaks is n/a: no case of the variant has a value for it")
    check = judgement.checks[("v", "a")]
    assert check.passed and check.unchecked and check.undefined == ["example leaks n/a"]


def test_a_rise_of_a_lower_is_better_count_is_a_regression() -> None:
    # baseline: 1 dangling edge in each of 8 cases; now 3 in each (rise 2 per case, every case, p < 0.05)
    base_rows = [_rf_row("v", f"c{i}", dangling=1, entities=4) for i in range(8)]
    now_rows = [_rf_row("v", f"c{i}", dangling=3, entities=6) for i in range(8)]
    baseline = make_baseline(_rf_summary(base_rows), base_rows, run_dir=Path("base"))
    config = _config(regression={"metrics": ["dangling", "distinct_entities"], "max_drop": 0.5, "case_max_drop": 1})
    verdict = judge(_rf_summary(now_rows), now_rows, baseline=baseline, config=config).verdict
    rules = {(r.rule, r.metric): r for r in verdict.rules}
    dangling = rules[("regression", "dangling")]
    assert dangling.op == "rise <=" and dangling.value == 2.0 and dangling.limit == 0.5
    assert dangling.status == "fail", dangling.message
    assert dangling.message.startswith("dangling relationships rose 2 per case against the baseline over 8 paired cases")
    per_case = rules[("case_regression", "dangling")]
    assert per_case.status == "fail" and per_case.value == 2.0 and len(per_case.cases) == 8
    assert "8 case(s) rose by more than 1: c0 (+2)" in per_case.message
    # more distinct entities is better: a rise of 2 per case is no regression
    assert rules[("regression", "distinct_entities")].status == "pass"
    assert rules[("regression", "distinct_entities")].op == "drop <="
    assert rules[("case_regression", "distinct_entities")].status == "pass"
    checks = judge(_rf_summary(now_rows), now_rows, baseline=baseline, config=config).checks
    assert checks[("v", "c0")].failures == ["dangling relationships rose 2 against the baseline (1 → 3), "
                                           "more than the tolerated 1"]
    # and the other way round: fewer dangling edges is no regression
    back = judge(_rf_summary(base_rows), base_rows, baseline=make_baseline(_rf_summary(now_rows), now_rows,
                 run_dir=Path("now")), config=config).verdict
    assert {(r.rule, r.metric): r.status for r in back.rules}[("regression", "dangling")] == "pass"


@pytest.mark.slow
def test_a_gold_free_suite_is_gated_on_reference_free_thresholds(recorded, project, tmp_path, capsys):
    # towns without gold; distinct entities per case: default 3, 1, 1 (mean 5/3), tuned 4, 3, 2 (mean 3)
    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    cases = [{"id": c["id"], "text": c["text"]} for c in data["cases"]]
    set_suite(project, cases=cases, thresholds={"grounded_rate": 0.9, "example_leaks": 0, "distinct_entities": 2})
    code, out, err = harness(capsys, "run", str(project), "--reports", str(reports(tmp_path)), "--run-id", "free",
                             "--gate")
    assert code == 1, (out, err)
    assert "FAIL  default: distinct entities 1.67 per case over 3 cases (total 5) is below the threshold 2" in out
    assert "PASS  tuned: distinct entities 3 per case over 3 cases (total 9) meets the threshold 2" in out
    assert "PASS  tuned: grounding rate 100.0% meets the threshold 90.0%" in out  # the alias, under its name
    assert "PASS  tuned: example leaks 0 per case over 3 cases (total 0) is within the limit 0" in out
    run_dir = reports(tmp_path) / "towns" / "free"
    gate = json.loads((run_dir / "gate.json").read_text(encoding="utf-8"))
    assert {r["metric"] for r in gate["rules"] if r["rule"] == "threshold"} == {
        "grounding_rate", "example_leaks", "distinct_entities"}
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["gate_config"]["thresholds"]["grounding_rate"] == 0.9
    # the cases with fewer than 2 entities break the per-case rule (junit), the others pass
    junit = (run_dir / "junit.xml").read_text(encoding="utf-8")
    assert junit.count("distinct entities 1 is below the threshold 2") == 2  # default flood and fair
    assert '<property name="distinct_entities" value="3" />' in junit
    # the run reads back: `harness gate` on it gives the same verdict
    code, again, _ = harness(capsys, "gate", str(run_dir))
    assert code == 1 and "distinct entities 1.67 per case" in again


@pytest.mark.slow
def test_a_gold_free_suite_regresses_on_the_reference_free_set_by_default(recorded, project, tmp_path, capsys):
    # no gold and no `regression.metrics`: the default is what the run can stand on (grounded, types
    # ok, duplicates, dangling, leaks), not entity/relationship recall, which no case can have
    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    set_suite(project, cases=[{"id": c["id"], "text": c["text"]} for c in data["cases"]], thresholds={})
    assert harness(capsys, "run", str(project), "--reports", str(reports(tmp_path)), "--run-id", "one")[0] == 0
    run_dir = reports(tmp_path) / "towns" / "one"
    assert harness(capsys, "baseline", "update", str(run_dir))[0] == 0
    code, out, err = harness(capsys, "gate", str(run_dir))
    assert code == 0, (out, err)
    gate = json.loads((run_dir / "gate.json").read_text(encoding="utf-8"))
    watched = {r["metric"] for r in gate["rules"] if r["rule"] == "regression" and r["variant"] == "tuned"}
    assert watched == {"grounding_rate", "type_conformance", "duplicate_records", "dangling", "example_leaks"}
    assert "recall" not in out
    # an explicit list is the suite's choice, gold-based or not: recall then fails (undefined is no pass)
    set_suite(project, cases=[{"id": c["id"], "text": c["text"]} for c in data["cases"]], thresholds={},
              regression={"metrics": ["entity_recall"]})
    assert harness(capsys, "run", str(project), "--reports", str(reports(tmp_path)), "--run-id", "two")[0] == 0
    code, out, _ = harness(capsys, "gate", str(reports(tmp_path) / "towns" / "two"))
    assert code == 1 and "entity recall cannot be compared with the baseline" in out


# --------------------------------------------------------------------------- cost and latency (issue 30)


def _spend_rows(variant: str, latencies: list[float | None], prompt: int = 1000) -> list[CaseResult]:
    """Rows of one call each: `prompt` input tokens and 100 output tokens, with the latency given
    (None: a cassette recorded before latencies were kept)."""
    from harness.model import Round, Usage

    rows = []
    for i, latency in enumerate(latencies):
        row = _rf_row(variant, f"c{i}")
        row.rounds = [Round(index=0, kind="extract", output="x",
                            usage=Usage(prompt_tokens=prompt, completion_tokens=100, total_tokens=prompt + 100),
                            latency_s=latency, latency_from=None if latency is None else "recorded")]
        rows.append(row)
    return rows


def _spend_summary(rows: list[CaseResult]) -> RunSummary:
    from harness.llm.pricing import Price
    from harness.summary import variant_summary

    names = list(dict.fromkeys(r.variant for r in rows))
    prices = {"m": Price(input=1.0, output=10.0)}  # a call: 1000 * 1 + 100 * 10 = $0.002
    variants = {v: variant_summary([r for r in rows if r.variant == v], prompt="p", model="m", prices=prices)
                for v in names}
    return RunSummary(harness_version="t", suite="s", suite_file="s.yaml", run_id="r", created_at="now",
                      record_mode="none", baseline=names[0], variants=variants, ratios={}, comparisons={}, timings={})


def test_cost_and_latency_thresholds_fail_above_their_limits() -> None:
    rows = _spend_rows("v", [1.0, 2.0, 3.0, 4.0, 5.0])  # $2 per 1,000 chunks; p95 per chunk 4.8 s
    summary = _spend_summary(rows)
    rules = lambda **limits: {r.metric: r for r in judge(summary, rows, config=_config(thresholds=limits)).verdict.rules}  # noqa: E731
    failing = rules(max_cost_per_1k_chunks=1.99, p95_latency_s=4.7)
    assert failing["max_cost_per_1k_chunks"].status == "fail" and failing["max_cost_per_1k_chunks"].value == pytest.approx(2.0)
    assert failing["max_cost_per_1k_chunks"].message == "dollars per 1,000 chunks $2 is above the limit $1.99"
    assert failing["p95_latency_s"].status == "fail" and failing["p95_latency_s"].value == pytest.approx(4.8)
    assert failing["p95_latency_s"].message == "p95 latency per chunk 4.8 s is above the limit 4.7 s"
    passing = rules(max_cost_per_1k_chunks=2.0, p95_latency_s=4.8)
    assert passing["max_cost_per_1k_chunks"].status == passing["p95_latency_s"].status == "pass"


def test_an_unknown_cost_or_latency_never_passes_a_threshold() -> None:
    rows = _spend_rows("v", [None, None])  # cassettes without latencies
    summary = _spend_summary(rows)
    summary.variants["v"].cost = summary.variants["v"].cost.model_copy(update={"usd_per_1k_chunks": None})
    verdict = judge(summary, rows, config=_config(thresholds={"max_cost_per_1k_chunks": 100, "p95_latency_s": 100})).verdict
    rules = {r.metric: r for r in verdict.rules}
    assert rules["max_cost_per_1k_chunks"].status == rules["p95_latency_s"].status == "fail"
    assert rules["p95_latency_s"].message.startswith("p95 latency per chunk is n/a: no call's latency is known")
    assert verdict.status == "fail"


def test_per_variant_cost_limits_and_their_validation() -> None:
    from harness.gate_settings import Thresholds

    with pytest.raises(ValueError):
        Thresholds.model_validate({"max_cost_per_1k_chunks": -1})
    rows = _spend_rows("v", [1.0])
    verdict = judge(_spend_summary(rows), rows, config=_config(
        thresholds={"max_cost_per_1k_chunks": 10, "variants": {"v": {"max_cost_per_1k_chunks": 1}}})).verdict
    assert next(r for r in verdict.rules if r.metric == "max_cost_per_1k_chunks").status == "fail"


def test_a_rise_in_cost_or_latency_over_the_baseline_is_a_regression() -> None:
    base_rows = _spend_rows("v", [1.0, 1.0, 1.0])  # $2 per 1,000 chunks, p95 1 s
    base = make_baseline(_spend_summary(base_rows), base_rows, run_dir=Path("base"))
    now_rows = _spend_rows("v", [1.0, 1.0, 1.5], prompt=1300)  # $2.30 (+15%), p95 1.45 s (+45%)
    config = _config(regression={"metrics": [], "max_cost_rise": 0.10, "max_p95_latency_rise": 0.50})
    verdict = judge(_spend_summary(now_rows), now_rows, baseline=base, config=config).verdict
    rules = {r.metric: r for r in verdict.rules if r.rule == "regression"}
    cost, latency = rules["usd_per_1k_chunks"], rules["p95_chunk_s"]
    assert cost.status == "fail" and cost.value == pytest.approx(0.15) and cost.op == "rise <="
    assert cost.message == ("dollars per 1,000 chunks $2.3 against the baseline's $2: a rise of 15.0%, above the "
                            "tolerated 10%")
    assert latency.status == "pass" and latency.value == pytest.approx(0.45)
    # a baseline without latencies: the rise cannot be held to anything
    old_rows = _spend_rows("v", [None, None, None])
    old = make_baseline(_spend_summary(old_rows), old_rows, run_dir=Path("old"))
    rules = {r.metric: r for r in judge(_spend_summary(now_rows), now_rows, baseline=old, config=config).verdict.rules}
    assert rules["p95_chunk_s"].status == "fail" and "n/a in the baseline" in rules["p95_chunk_s"].message
