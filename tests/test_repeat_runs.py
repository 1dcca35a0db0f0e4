"""Repeated runs (`--repeat N`) end to end against the local OpenAI-compatible server: record three
different answers for the same request, replay them identically, and read the spread in the
summary, the comparison and the reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .support.fake_server import FakeOpenAIServer, Script
from harness.errors import CassetteMissingError
from harness.finish import finish_outcome
from harness.run.audit import audit_suites
from harness.run.schedule import RunOptions, check_outcome, run_suite
from harness.run.plan import plan_variant
from harness.suites import Suite, load_suite

from .conftest import write_project

# Case `fair` (gold: Tomas Berg, Oakfield Fair, Ida Moss; Tomas Berg -> Oakfield Fair,
# Ida Moss -> Oakfield Fair), no gleaning: one call per sample.
E = '("entity"<|>{}<|>{}<|>x)'
R = '("relationship"<|>{}<|>OAKFIELD FAIR<|>r<|>5)'
TOMAS, FAIR, IDA = E.format("TOMAS BERG", "person"), E.format("OAKFIELD FAIR", "event"), E.format("IDA MOSS", "person")
DONE = "\n<|COMPLETE|>"
SAMPLES = {
    # default: entity recall 1/3, 2/3, 3/3 over the samples; no relationship in any
    "default": [[TOMAS + DONE], ["##".join([TOMAS, FAIR]) + DONE], ["##".join([TOMAS, FAIR, IDA]) + DONE]],
    # tuned: entity recall 3/3, 3/3, 2/3; relationship recall 2/2, 1/2, 2/2
    "tuned": [
        ["##".join([TOMAS, FAIR, IDA, R.format("TOMAS BERG"), R.format("IDA MOSS")]) + DONE],
        ["##".join([IDA, TOMAS, FAIR, R.format("IDA MOSS")]) + DONE],
        ["##".join([TOMAS, FAIR, R.format("TOMAS BERG"), R.format("IDA MOSS")]) + DONE],
    ],
}


def strip_timings(value):
    """Without timings, and where a latency came from (measured when recording, recorded in a replay)."""
    if isinstance(value, dict):
        return {k: strip_timings(v) for k, v in value.items()
                if not k.endswith("_s") and k not in ("created_at", "run_id", "latency_from")}
    if isinstance(value, list):
        return [strip_timings(v) for v in value]
    return value


def sampled_script(suite: Suite) -> Script:
    script = Script()
    for variant in suite.variant_names():
        case = next(c for c in suite.cases if c.id == "fair")
        first_user = [m["content"] for m in plan_variant(suite, variant).render(case) if m["role"] == "user"][0]
        script.samples[first_user] = SAMPLES[variant]
    return script


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Suite:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return load_suite(write_project(tmp_path, max_gleanings=0))


def run(suite: Suite, reports: Path, *, mode: str = "none", repeat: int = 3, base_url: str | None = None,
        run_id: str | None = None, fresh: bool = True):
    options = RunOptions(record_mode=mode, reports_dir=reports, cases=["fair"], repeat=repeat, base_url=base_url,
                         run_id=run_id, fresh=fresh)
    return run_suite(suite, options)


def finished(outcome, mode: str = "none"):
    check_outcome(outcome)
    return finish_outcome(outcome, record_mode=mode)


@pytest.fixture
def recorded(suite: Suite, api_key: str, tmp_path: Path):
    with FakeOpenAIServer(sampled_script(suite)) as server:
        outcome = run(suite, tmp_path / "recorded", mode="once", base_url=server.base_url)
        assert server.calls == 2 * 3  # two variants, three samples, one call each
    return finished(outcome, "once")


def files_of(run_dir: Path) -> tuple[list, dict]:
    rows = [strip_timings(json.loads(line)) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return rows, strip_timings(json.loads((run_dir / "summary.json").read_text()))


@pytest.mark.slow
def test_each_sample_is_recorded_in_its_own_cassette_and_replays_identically(suite, recorded, tmp_path, monkeypatch):
    folder = suite.cassette_dir()
    for variant in ("default", "tuned"):
        paths = [folder / variant / "fair.json", folder / variant / "sample-1" / "fair.json",
                 folder / variant / "sample-2" / "fair.json"]
        answers = sorted(json.loads(p.read_text())["interactions"][0]["response"]["body"]["string"]["json"]
                         ["choices"][0]["message"]["content"] for p in paths)
        assert answers == sorted(rounds[0] for rounds in SAMPLES[variant])  # three different answers, one each
    monkeypatch.delenv("OPENAI_API_KEY")  # replay needs no key and no server
    first = finished(run(suite, tmp_path / "one"))
    second = finished(run(suite, tmp_path / "two"))
    # identical apart from timings (keys ending in _s, created_at), as tests/golden compares runs
    assert files_of(first.run_dir) == files_of(second.run_dir)
    # the replay reproduces the recording: sample k replays sample k's cassette
    assert files_of(first.run_dir)[0] == files_of(recorded.run_dir)[0]
    rows = files_of(first.run_dir)[0]
    assert [(r["variant"], r.get("sample", 0)) for r in rows] == [
        ("default", 0), ("default", 1), ("default", 2), ("tuned", 0), ("tuned", 1), ("tuned", 2)]
    assert "sample" not in rows[0]  # sample 0 rows are written as without --repeat
    # the sample cassettes are neither orphans nor stale (only `fair` was recorded: the others are missing)
    assert {(f.kind, Path(f.path).name) for f in audit_suites([suite])} == {("missing", "mayor.json"),
                                                                           ("missing", "flood.json")}


@pytest.mark.slow
def test_summary_holds_the_spread_worked_by_hand(recorded):
    summary = recorded.summary
    default, tuned = summary.variants["default"], summary.variants["tuned"]
    assert default.repeats is not None and default.repeats.samples == 3
    recall = default.repeats.metrics["entity_recall"]
    # values {1/3, 2/3, 1}: median 2/3; mean 2/3, squared deviations 1/9 + 0 + 1/9 = 2/9, / (3 - 1) = 1/9,
    # std = 1/3
    assert sorted(recall.values) == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert (recall.min, recall.median, recall.max) == pytest.approx((1 / 3, 0.666667, 1.0))
    assert recall.std == pytest.approx(0.333333)
    rel = tuned.repeats.metrics["relationship_recall"]
    # values {1, 1/2, 1}: median 1; mean 5/6, squared deviations 1/36 + 4/36 + 1/36 = 1/6, / 2 = 1/12,
    # std = sqrt(1/12) = 0.288675
    assert sorted(rel.values) == [0.5, 1.0, 1.0]
    assert (rel.min, rel.median, rel.max, rel.std) == (0.5, 1.0, 1.0, 0.288675)
    # no relationship predicted by default: recall 0 in every sample, std 0
    assert default.repeats.metrics["relationship_recall"].std == 0.0
    # every registered metric has its spread
    from harness.metrics import metric_names

    assert list(default.repeats.metrics) == list(metric_names())
    # headline metrics pool every (case, sample) row: 1 + 2 + 3 of 3 + 3 + 3 gold entities = 6/9
    assert default.metric("entity_recall") == pytest.approx(6 / 9)
    assert default.cases == 3


@pytest.mark.slow
def test_comparison_says_which_differences_exceed_the_spread(recorded):
    comparison = recorded.summary.comparisons["tuned"]
    verdicts = comparison.repeat_spread
    assert verdicts is not None
    # entity recall: default [1/3, 1], tuned [2/3, 1] overlap: within the spread
    assert verdicts.metrics["entity_recall"].exceeds is False
    # relationship recall: default [0, 0], tuned [1/2, 1] do not overlap: beyond the spread
    assert verdicts.metrics["relationship_recall"].exceeds is True
    # the per-case value is the mean over samples: default (1/3 + 2/3 + 1) / 3 = 2/3, tuned
    # (1 + 1 + 2/3) / 3 = 8/9; delta 2/9
    assert comparison.metrics["entity_recall"].delta == pytest.approx(2 / 9)
    report = (recorded.run_dir / "report.md").read_text()
    assert "## Repeat spread" in report
    html = (recorded.run_dir / "report.html").read_text()
    assert "Repeat spread" in html


@pytest.mark.slow
def test_without_repeat_nothing_about_samples_is_written(recorded, suite, tmp_path):
    outcome = finished(run(suite, tmp_path / "single", repeat=1))
    summary = json.loads((outcome.run_dir / "summary.json").read_text())
    assert "repeats" not in summary["variants"]["default"]
    assert "repeat_spread" not in summary["comparisons"]["tuned"]
    assert all("sample" not in json.loads(line) for line in (outcome.run_dir / "results.jsonl").read_text().splitlines())
    assert "Repeat spread" not in (outcome.run_dir / "report.md").read_text()


@pytest.mark.slow
def test_a_missing_sample_cassette_is_a_cassette_miss_naming_the_sample(recorded, suite, tmp_path):
    outcome = run(suite, tmp_path / "four", repeat=4)
    assert outcome.missing == [] and len(outcome.missing_repeats) == 2
    with pytest.raises(CassetteMissingError, match=r"cassette missing for sample 3 of case 'fair' of variant 'default' "
                                                   r"\(and 1 more\); record the samples with: harness record .* --case fair "
                                                   r"--repeat 4 --record-mode once"):
        check_outcome(outcome)


def test_an_interrupted_recording_keeps_its_finished_samples(suite, api_key, tmp_path):
    script = sampled_script(suite)
    with FakeOpenAIServer(script) as server:
        first = run(suite, tmp_path / "reports", mode="once", base_url=server.base_url, run_id="r1")
        assert server.calls == 6
        # interrupted while sample 2 was being recorded: its rows and cassettes never made it
        results = first.run_dir / "results.jsonl"
        kept = [line for line in results.read_text().splitlines() if '"sample":2' not in line]
        results.write_text("\n".join(kept) + "\n")
        for variant in ("default", "tuned"):
            (suite.cassette_dir() / variant / "sample-2" / "fair.json").unlink()
        # the rerun hands out the third answers again, to sample 2 only
        script.started = {key: 2 for key in script.started}
        again = run(suite, tmp_path / "reports", mode="once", base_url=server.base_url, run_id="r1", fresh=False)
        assert server.calls == 6 + 2  # only sample 2 of each variant is called
    assert again.resumed == 4  # samples 0 and 1 of both variants
    assert [(r.variant, r.sample) for r in again.results] == [
        ("default", 0), ("default", 1), ("default", 2), ("tuned", 0), ("tuned", 1), ("tuned", 2)]
    assert (suite.cassette_dir() / "tuned" / "sample-2" / "fair.json").exists()


@pytest.mark.slow
def test_the_command_line_records_and_runs_repeats_and_compare_gives_the_verdict_both_ways(suite, api_key, tmp_path,
                                                                                            capsys):
    from harness.cli import main

    with FakeOpenAIServer(sampled_script(suite)) as server:
        assert main(["record", str(suite.path), "--case", "fair", "--repeat", "3", "--base-url", server.base_url,
                     "--reports", str(tmp_path / "rec")]) == 0
    capsys.readouterr()
    assert main(["run", str(suite.path), "--case", "fair", "--repeat", "3", "--reports", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    # the one console line: relationship recall, F1 and directed recall lie beyond the spread (worked above)
    assert ("repeats: 3 samples per case; differences beyond the repeat spread: tuned vs default: "
            "relationship_recall, relationship_f1, relationship_directed_recall") in out
    run_dir = next((tmp_path / "run" / "towns").iterdir())
    for a, b in (("default", "tuned"), ("tuned", "default")):  # the rule is symmetric
        assert main(["compare", str(run_dir), str(run_dir), "--variant-a", a, "--variant-b", b]) == 0
        lines = capsys.readouterr().out.splitlines()
        line = {name: next(x for x in lines if x.strip().startswith(name + " "))
                for name in ("entity_recall", "relationship_recall")}
        assert line["entity_recall"].endswith("spread: within")
        assert line["relationship_recall"].endswith("spread: exceeded")
    # without --repeat, the same cassettes give sample 0 only, and no spread is printed
    assert main(["run", str(suite.path), "--case", "fair", "--reports", str(tmp_path / "single")]) == 0
    assert "repeats:" not in capsys.readouterr().out
