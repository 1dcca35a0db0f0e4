"""Each round keeps the provider's finish_reason, recorded and replayed alike, and an answer cut
off at the token limit (finish_reason `length`) is its own finding, `truncated`, not only a
missing completion delimiter (issue 27, item 0)."""

from __future__ import annotations

import json

from .conftest import script_for
from .support.fake_server import FakeOpenAIServer, Stopped
from harness.model import CaseResult, Round
from harness.parsing import format_error_reasons
from harness.run.schedule import RunOptions, run_suite

# the mayor case of the default variant, its first answer cut off mid-record by max_tokens
CUT = '("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>geo<|>To'


def _rows(run_dir) -> list[CaseResult]:
    lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [CaseResult.model_validate_json(line) for line in lines]


def test_a_truncated_answer_is_kept_and_found_recorded_and_replayed(suite, api_key, tmp_path):
    script = script_for(suite)
    mayor = next(k for k, v in script.rounds.items() if v[0].startswith('("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>geo<|>Town)##("rel'))
    script.rounds[mayor] = [Stopped(CUT, "length"), script.rounds[mayor][1]]
    with FakeOpenAIServer(script) as srv:
        recorded = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "rec", base_url=srv.base_url))
    replayed = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "replay"))
    for outcome in (recorded, replayed):
        row = next(r for r in _rows(outcome.run_dir) if r.variant == "default" and r.case_id == "mayor")
        assert [r.finish_reason for r in row.rounds] == ["length", "stop"]
        truncated = [i for i in row.format_report.issues if i.code == "truncated"]
        assert [(i.round, i.dropped) for i in truncated] == [(0, False)]
        assert "truncated" in format_error_reasons(row.format_report)
        # the other answers stopped on their own: no finding
        others = [r for r in _rows(outcome.run_dir) if (r.variant, r.case_id) != ("default", "mayor")]
        assert all(rnd.finish_reason == "stop" for r in others for rnd in r.rounds)
        assert not any(i.code == "truncated" for r in others for i in r.format_report.issues)


def test_a_round_no_provider_spoke_for_is_written_as_before():
    assert "finish_reason" not in json.loads(Round(index=0, kind="extract", output="x").model_dump_json())
    assert json.loads(Round(index=0, kind="extract", output="x", finish_reason="length").model_dump_json())[
        "finish_reason"] == "length"
