"""Run artifacts: summary.json, gate.json and baselines are model dumps, read back by validation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from harness.artifacts import (
    Baseline,
    BaselineCase,
    ComparisonSummary,
    RuleCase,
    RuleResult,
    RunSummary,
    VariantSummary,
    Verdict,
    json_schemas,
    read_artifact,
)
from harness.errors import InputError
from harness.metrics import metric_names
from harness.metrics.registry import key_figures
from tests.support.scripts import load_script

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"


def _timings_as_numbers(value):
    """Golden files hold "<timing>" where a run writes seconds."""
    if isinstance(value, dict):
        return {k: 0.5 if v == "<timing>" else _timings_as_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_timings_as_numbers(v) for v in value]
    return value


@pytest.mark.parametrize("suite", ["biomed", "news-es", "podcast"])
def test_golden_files_round_trip_key_for_key(suite: str) -> None:
    summary = _timings_as_numbers(json.loads((GOLDEN / suite / "summary.json").read_text(encoding="utf-8")))
    # json.dumps compares key order and int/float too: 1 and 1.0 print differently
    assert json.dumps(RunSummary.model_validate(summary).to_json()) == json.dumps(summary)
    gate = json.loads((GOLDEN / suite / "gate.json").read_text(encoding="utf-8"))
    assert json.dumps(Verdict.model_validate(gate).to_json()) == json.dumps(gate)


def test_shipped_baselines_are_read() -> None:
    for path in sorted((REPO / "reports" / "baselines").glob("*.json")):
        baseline = Baseline.model_validate(json.loads(path.read_text(encoding="utf-8")))
        case = next(iter(next(iter(baseline.cases.values())).values()))
        # each suite's first key figure: a summary or report suite has no entity gold (docs/suites.md, "Suite kinds")
        key = key_figures(baseline.suite_kind)[0].name
        assert isinstance(case.value(key), float), path
        assert case.value("no_such_metric") is None


def test_optional_keys_are_absent_not_null() -> None:
    assert RuleCase(case_id="c").to_json() == {"case_id": "c"}
    full = RuleCase(case_id="c", baseline=1.0, value=0.5, drop=0.5, newly_missed_entities=["A"],
                    newly_missed_relationships=[])
    assert list(full.to_json()) == ["case_id", "baseline", "value", "drop", "newly_missed_entities",
                                    "newly_missed_relationships"]
    rule = RuleResult(rule="coverage", variant="v", metric="cases", op=">=", value=1.0, limit=2.0, status="warn",
                      message="m", cases=[RuleCase(case_id="c")])
    assert rule.model_dump()["cases"] == [{"case_id": "c"}]
    summary = _timings_as_numbers(json.loads((GOLDEN / "biomed" / "summary.json").read_text(encoding="utf-8")))
    model = RunSummary.model_validate(summary)
    model.gate_config = None
    next(iter(model.variants.values())).entity_types = None
    dumped = model.to_json()
    assert "gate_config" not in dumped and "entity_types" not in next(iter(dumped["variants"].values()))


def test_ints_stay_ints_and_counts_are_recounted() -> None:
    variant = VariantSummary.model_validate(_timings_as_numbers(json.loads(
        (GOLDEN / "biomed" / "summary.json").read_text(encoding="utf-8")))["variants"]["default"])
    variant.cost_usd = 0
    variant.latency_total_s = 0
    dumped = json.dumps(variant.to_json())
    assert '"cost_usd": 0,' in dumped and '"latency_total_s": 0' in dumped
    verdict = Verdict(suite="s", run_id="r", status="fail", rules=[
        RuleResult(rule="threshold", variant="v", metric="entity_recall", op=">=", value=0.1, limit=0.5,
                   status="fail", message="m"),
    ])
    assert verdict.counts == {"pass": 0, "warn": 0, "fail": 1, "skip": 0}
    assert verdict.exit_code == 1 and verdict.failed() == verdict.rules


def test_baseline_cases_hold_every_registered_metric_then_what_was_missed() -> None:
    fields = list(BaselineCase.model_fields)
    assert fields == [*metric_names(), "missed_entities", "missed_relationships"]


def test_a_malformed_file_is_one_line_naming_the_file_and_the_key() -> None:
    with pytest.raises(InputError) as caught:
        read_artifact(Verdict, {"suite": "s", "run_id": "r", "status": "maybe"}, Path("x/gate.json"), "gate file")
    assert caught.value.message.startswith("x/gate.json: not a valid gate file: status:")
    assert "\n" not in caught.value.message
    summary = _timings_as_numbers(json.loads((GOLDEN / "biomed" / "summary.json").read_text(encoding="utf-8")))
    summary["variants"]["default"]["cases"] = "three"
    with pytest.raises(InputError, match=r"^s.json: not a valid run summary: variants.default.cases: "):
        read_artifact(RunSummary, summary, Path("s.json"), "run summary")
    with pytest.raises(InputError, match=r"c.json: not a valid comparison: a: Field required"):
        read_artifact(ComparisonSummary, {}, Path("c.json"), "comparison")


def test_a_summary_on_disk_is_read_into_the_model(tmp_path: Path) -> None:
    from harness.runfolder import SUMMARY, read_summary

    summary = _timings_as_numbers(json.loads((GOLDEN / "podcast" / "summary.json").read_text(encoding="utf-8")))
    (tmp_path / SUMMARY).write_text(json.dumps(summary), encoding="utf-8")
    loaded = read_summary(tmp_path)
    assert loaded.variants["default"].metric("entity_recall") == summary["variants"]["default"]["metrics"]["metrics"][
        "entity_recall"]["micro"]
    assert loaded.comparisons["tuned"].delta("entity_recall").metric == "entity_recall"
    summary["variants"]["default"]["surprise"] = 1
    (tmp_path / SUMMARY).write_text(json.dumps(summary), encoding="utf-8")
    with pytest.raises(InputError, match="summary.json: not a valid run summary: variants.default.surprise"):
        read_summary(tmp_path)


def test_shipped_schemas_are_the_generated_ones() -> None:
    for name, text in json_schemas().items():
        shipped = (REPO / "harness" / "schemas" / name).read_text(encoding="utf-8")
        assert shipped == text, f"harness/schemas/{name} is stale: run scripts/write_schemas.py"
        jsonschema.Draft202012Validator.check_schema(json.loads(text))


@pytest.mark.slow
def test_golden_files_validate_against_the_generated_schemas() -> None:
    schemas = {name: json.loads(text) for name, text in json_schemas().items()}
    for suite in ("biomed", "news-es", "podcast"):
        summary = _timings_as_numbers(json.loads((GOLDEN / suite / "summary.json").read_text(encoding="utf-8")))
        jsonschema.validate(summary, schemas["summary.schema.json"], cls=jsonschema.Draft202012Validator)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**summary, "surprise": 1}, schemas["summary.schema.json"],
                                cls=jsonschema.Draft202012Validator)
        gate = json.loads((GOLDEN / suite / "gate.json").read_text(encoding="utf-8"))
        jsonschema.validate(gate, schemas["gate.schema.json"], cls=jsonschema.Draft202012Validator)
    for path in (REPO / "reports" / "baselines").glob("*.json"):
        jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), schemas["baseline.schema.json"],
                            cls=jsonschema.Draft202012Validator)


def test_summary_frame_has_a_row_per_variant_and_metric_with_its_kind() -> None:
    summary = RunSummary.model_validate(_timings_as_numbers(json.loads(
        (GOLDEN / "podcast" / "summary.json").read_text(encoding="utf-8"))))
    frame = summary.to_frame()
    assert frame.index.names == ["variant", "metric"]
    assert len(frame) == len(summary.variants) * len(summary.variants["default"].metrics.metrics)
    row = frame.loc[("tuned", "distinct_entities")]
    agg = summary.variants["tuned"].metrics.metrics["distinct_entities"]
    assert (row["micro"], row["macro"], row["cases"]) == (agg.micro, agg.macro, agg.cases)
    assert row["kind"] == "count" and not frame.loc[("tuned", "dangling"), "higher_is_better"]
    assert frame.loc[("default", "grounding_rate"), "kind"] == "rate"


# Reading a run's files is done by light commands (merge, report, the pytest plugin): the run
# artifacts are values, and importing them must not pull the suite loader, scoring or their
# numerical libraries (it once loaded 98 harness modules with numpy, networkx and tiktoken).
_LOADED = ("import json, sys\nimport harness.artifacts\n"
           "print(json.dumps(sorted(m for m in sys.modules if m == 'harness' or m.startswith(('harness.', 'numpy', "
           "'networkx', 'tiktoken', 'scipy', 'pandas')))))")


def test_importing_the_artifacts_loads_only_the_value_layer(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    layers = load_script("layers")
    declared = layers.read_layers((root / "docs" / "architecture.md").read_text(encoding="utf-8"))
    done = subprocess.run([sys.executable, "-c", _LOADED], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    heavy = [m for m in loaded if not m.startswith("harness")]
    assert heavy == []
    above_values = [m for m in loaded if m.startswith("harness") and declared.of(m) != 0]
    assert above_values == []


V1_RUN = Path(__file__).resolve().parent / "fixtures" / "summary_v1" / "podcast" / "golden"


def test_a_version_1_summary_is_read_by_every_reader_and_reports_as_its_version_2_form(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A run written before case_diffs.jsonl (schema 1, tests/fixtures/summary_v1: the shipped
    podcast run as captured then) and the same run as schema 2 writes it: report, gate, baseline,
    compare and view read both, and the reports of both are the same."""
    import shutil

    from harness.cli import main
    from harness.runfolder import CASE_DIFFS, SUMMARY, bound_comparisons, read_summary, write_artifact

    monkeypatch.chdir(REPO)  # the summaries name suites/podcast.yaml
    runs = {}
    for version in (1, 2):
        run_dir = tmp_path / f"v{version}" / "podcast" / "golden"
        shutil.copytree(V1_RUN, run_dir)
        if version == 2:
            old = read_summary(run_dir)
            new = old.model_copy(update={"schema_version": 2,
                                         "comparisons": bound_comparisons(run_dir, old.comparisons)})
            write_artifact(run_dir / SUMMARY, new)
            assert (run_dir / CASE_DIFFS).exists() and (run_dir / SUMMARY).stat().st_size < (V1_RUN / SUMMARY).stat().st_size
        runs[version] = run_dir
    assert read_summary(runs[1]).schema_version == 1 and read_summary(runs[2]).schema_version == 2
    exits: dict[int, list[int]] = {}
    for version, run_dir in runs.items():
        reports = run_dir.parent.parent
        exits[version] = [main(["report", str(run_dir)]), main(["gate", str(run_dir)]),
                          main(["compare", str(run_dir), str(run_dir)]),
                          main(["baseline", "update", str(run_dir)]),
                          main(["view", str(reports), "--out", str(tmp_path / f"view{version}")])]
        capsys.readouterr()
        assert (reports / "baselines" / "podcast.json").exists()
    assert exits[1] == exits[2] and exits[1][0] == 0 and exits[1][2:] == [0, 0, 0], exits
    for name in ("report.md", "report.html", "gate.json"):
        assert (runs[1] / name).read_text(encoding="utf-8") == (runs[2] / name).read_text(encoding="utf-8"), name
    assert "Worst regressions" in (runs[1] / "report.md").read_text(encoding="utf-8")
