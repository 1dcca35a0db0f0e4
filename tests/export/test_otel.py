"""`harness export RUN --to otel FILE|URL`: a replayed run of the podcast suite, read back by an
in-process OTLP/HTTP collector and from the OTLP/JSON file, checked against the run's rows."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from google.protobuf import json_format

from harness.cli import main
from harness.metrics import metrics
from harness.model import CaseResult
from harness.runfolder import load_run

from ..support.otlp_collector import OTLPCollector, attributes, read_otlp_json_lines, spans_of

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reports = tmp_path_factory.mktemp("reports")
    code = main(["run", str(REPO / "suites" / "podcast.yaml"), "--record-mode", "none", "--reports", str(reports),
                 "--workers", "1"])
    assert code in (0, 1)
    (found,) = [p for p in (reports / "podcast").iterdir() if p.is_dir()]
    return found


def harness(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("harness: ") and "Traceback" not in err, err
    return err


def figures(row: CaseResult) -> dict[str, float]:
    """The row's figures that have a value, read from the registry as every report reads them."""
    assert row.score is not None
    values = {m.name: m.value(row.score) for m in metrics()}
    return {name: float(value) for name, value in values.items() if value is not None}


def check_spans(spans: list, rows: list[CaseResult]) -> None:
    rounds = sum(len(row.rounds) for row in rows)
    assert len(spans) == 1 + len(rows) + rounds
    assert len({span.trace_id for span in spans}) == 1  # one trace per run
    (root,) = [s for s in spans if not s.parent_span_id]
    assert attributes(root)["harness.suite"] == "podcast"
    cases = {(attributes(s)["harness.variant"], attributes(s)["harness.case_id"]): s
             for s in spans if s.parent_span_id == root.span_id}
    assert len(cases) == len(rows)
    calls_of = Counter(s.parent_span_id for s in spans if s.parent_span_id not in (b"", root.span_id))
    for row in rows:
        span = cases[(row.variant, row.case_id)]
        got = attributes(span)
        assert got["gen_ai.request.model"] == "gpt-4o-mini"
        assert got["gen_ai.usage.input_tokens"] == row.usage.prompt_tokens
        assert got["gen_ai.usage.output_tokens"] == row.usage.completion_tokens
        # the figures: one gen_ai.evaluation.result event per metric with a value, none for n/a
        events = {attributes(e)["gen_ai.evaluation.name"]: attributes(e)["gen_ai.evaluation.score.value"]
                  for e in span.events if e.name == "gen_ai.evaluation.result"}
        assert len(events) == len(span.events)
        assert events == pytest.approx(figures(row))
        assert "entity_recall" in events
        # a child span per call round, in order, with what the row recorded of it
        assert calls_of[span.span_id] == len(row.rounds)
        calls = sorted((s for s in spans if s.parent_span_id == span.span_id), key=lambda s: s.start_time_unix_nano)
        for call, round_ in zip(calls, row.rounds, strict=True):
            got = attributes(call)
            assert call.kind == 3  # SPAN_KIND_CLIENT
            assert call.name == "chat gpt-4o-mini"
            assert got["gen_ai.operation.name"] == "chat"
            assert got["gen_ai.provider.name"] == "openai"
            assert got["gen_ai.request.model"] == "gpt-4o-mini"
            assert got["gen_ai.request.temperature"] == 0.0
            assert got["gen_ai.usage.input_tokens"] == round_.usage.prompt_tokens
            assert got["gen_ai.usage.output_tokens"] == round_.usage.completion_tokens
            assert got["gen_ai.response.finish_reasons"] == [round_.finish_reason]
            assert got["harness.round.kind"] == round_.kind
            (message,) = json.loads(got["gen_ai.output.messages"])
            assert message["parts"] == [{"type": "text", "content": round_.output}]


def test_spans_posted_to_a_collector_follow_the_rows(run_dir, capsys):
    rows = load_run(run_dir).rows
    with OTLPCollector() as collector:
        code, out, err = harness(capsys, "export", str(run_dir), "--to", "otel", collector.url)
    assert code == 0, err
    assert out.startswith(f"{1 + len(rows) + sum(len(r.rounds) for r in rows)} spans ({len(rows)} cases")
    assert [r.path for r in collector.received] == ["/v1/traces"]  # a base URL gets OTLP/HTTP's path
    assert collector.received[0].content_type == "application/x-protobuf"
    check_spans(collector.spans(), rows)


def test_the_file_holds_the_same_spans_as_the_post(run_dir, capsys, tmp_path):
    rows = load_run(run_dir).rows
    out_file = tmp_path / "spans.jsonl"
    code, _, err = harness(capsys, "export", str(run_dir), "--to", "otel", str(out_file))
    assert code == 0, err
    from_file = list(spans_of(read_otlp_json_lines(out_file)))
    check_spans(from_file, rows)
    with OTLPCollector() as collector:
        assert harness(capsys, "export", str(run_dir), "--to", "otel", collector.url + "/v1/traces")[0] == 0
    assert [r.path for r in collector.received] == ["/v1/traces"]  # not added twice
    # the ids are the run's, so both doors (and a second export) send the very same spans
    as_dict = [json_format.MessageToDict(s) for s in from_file]
    assert as_dict == [json_format.MessageToDict(s) for s in collector.spans()]


def test_the_file_is_otlp_json(run_dir, capsys, tmp_path):
    out_file = tmp_path / "spans.jsonl"
    assert harness(capsys, "export", str(run_dir), "--to", "otel", str(out_file))[0] == 0

    line = json.loads(out_file.read_text(encoding="utf-8").splitlines()[0])
    span = line["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert len(span["traceId"]) == 32 and int(span["traceId"], 16)  # hex, not protobuf JSON's base64
    assert len(span["spanId"]) == 16 and int(span["spanId"], 16)
    assert isinstance(span["kind"], int)  # enums as integers


def test_a_folder_that_is_no_run_is_one_line(capsys, tmp_path):
    code, _, err = harness(capsys, "export", str(tmp_path), "--to", "otel", str(tmp_path / "out.jsonl"))
    assert code == 2
    assert "results.jsonl" in one_line(err)
    assert not (tmp_path / "out.jsonl").exists()


def test_an_unfinished_run_is_one_line(run_dir, capsys, tmp_path):
    unfinished = tmp_path / "run"
    unfinished.mkdir()
    (unfinished / "results.jsonl").write_bytes((run_dir / "results.jsonl").read_bytes())
    code, _, err = harness(capsys, "export", str(unfinished), "--to", "otel", str(tmp_path / "out.jsonl"))
    assert code == 2
    assert "summary.json" in one_line(err)


def test_a_receiver_that_refuses_is_one_line(run_dir, capsys):
    with OTLPCollector(status=400) as collector:
        code, _, err = harness(capsys, "export", str(run_dir), "--to", "otel", collector.url)
    assert code == 2
    assert "HTTP 400" in one_line(err) and "0 of" in err


@pytest.mark.parametrize("target,destination,words", [
    ("zipkin", "out.jsonl", "not one of otel"),
    ("otel", "grpc://127.0.0.1:4317", "http"),
])
def test_targets_and_schemes_we_do_not_send_are_one_line(run_dir, capsys, tmp_path, target, destination, words):
    code, _, err = harness(capsys, "export", str(run_dir), "--to", target, destination)
    assert code == 2
    assert words in one_line(err)
