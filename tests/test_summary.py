"""summary.json: reproducible from the same cassettes apart from timings and stamps."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from .support.fake_server import FakeOpenAIServer
from harness.finish import finish_outcome
from harness.run.schedule import RunOptions, run_suite

from .conftest import script_for

STAMPS = {"created_at", "run_id"}


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if not k.endswith("_s") and k not in STAMPS}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


@pytest.mark.slow
def test_two_replays_write_the_same_summary_and_results(suite, api_key, tmp_path):
    with FakeOpenAIServer(script_for(suite)) as srv:
        run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "rec", base_url=srv.base_url))
    outputs = []
    for name in ("one", "two"):
        outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / name))
        finish_outcome(outcome, record_mode="none")
        summary = json.loads((outcome.run_dir / "summary.json").read_text())
        rows = [json.loads(line) for line in (outcome.run_dir / "results.jsonl").read_text().splitlines()]
        outputs.append((strip(summary), strip(rows)))
    assert outputs[0] == outputs[1]


@pytest.mark.slow
def test_summary_has_per_variant_usage_cost_and_ratios(suite, api_key, tmp_path):
    with FakeOpenAIServer(script_for(suite)) as srv:
        outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path, base_url=srv.base_url))
    summary = finish_outcome(outcome, record_mode="once").summary
    tuned = summary.variants["tuned"]
    assert tuned.usage.prompt_tokens > 0 and tuned.usage.completion_tokens > 0
    assert tuned.cost_usd is not None and tuned.cost_usd > 0  # gpt-4o-mini is in the price table
    assert summary.ratios["default"]["entities"] == 1.0
    assert summary.ratios["tuned"]["entities"] > 1.0
    assert tuned.records_from_gleaning >= 1
    assert "tuned" in summary.comparisons


@pytest.mark.slow
def test_estimated_usage_is_marked_in_the_summary(suite, api_key, tmp_path):
    import jsonschema

    from .support.fake_server import Faults

    from .conftest import REPO

    with FakeOpenAIServer(script_for(suite), Faults(report_usage=False)) as srv:
        outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path, base_url=srv.base_url))
    summary = finish_outcome(outcome, record_mode="once").summary
    usage = summary.variants["tuned"].usage
    assert usage.estimated is True and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert summary.variants["tuned"].cost_usd > 0
    schema = json.loads((REPO / "harness" / "schemas" / "summary.schema.json").read_text())
    jsonschema.validate(summary.to_json(), schema, cls=jsonschema.Draft202012Validator)


def test_format_rates_over_no_case_are_undefined_not_perfect():
    """A variant with no case (e.g. a shard that drew none) has no format-error share and no
    completion rate: n/a, not 0% errors."""
    from harness.summary import format_summary

    empty = format_summary([])
    assert empty.format_error_rate is None
    assert empty.completion_rate is None
    assert empty.cases_with_errors == 0


def test_a_format_threshold_with_nothing_to_stand_on_fails_the_gate():
    from harness.gate import threshold_rules
    from harness.summary import variant_summary
    from harness.gate_settings import Thresholds

    summary = SimpleNamespace(variants={"v": variant_summary([], prompt="p", model="m", prices={})})
    rules = threshold_rules(summary, Thresholds(format_errors=0.1, completion_rate=0.9))  # type: ignore[arg-type]
    assert [r.status for r in rules] == ["fail", "fail"]
    assert all("n/a" in r.message for r in rules)
