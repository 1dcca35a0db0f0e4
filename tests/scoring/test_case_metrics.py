"""A case's metric values are computed once, where it is scored, and stored with its row: every
consumer after that (summary, comparisons, gate, baselines, reports, junit.xml) reads them.
Work is counted, not timed: calls of the registry's per-case functions."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.metrics import counts, metric_names, metrics
from harness.metrics.registry import fingerprint
from harness.model import CaseMetrics, CaseResult, Entity, ExtractedGraph, GoldCase, GoldEntity, RecoveredResult
from harness.runfolder import read_results, write_results
from harness.scoring import measure, measured, score_case, scored_metrics

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def evaluations() -> Iterator[Counter[tuple[str, str]]]:
    """Calls of every registered metric's and count's per-case function, by (what, name)."""
    calls: Counter[tuple[str, str]] = Counter()
    originals = []
    for what, registered in (("metric", metrics()), ("count", counts())):
        for item in registered:
            inner = item.value

            def counted(score, _inner=inner, _key=(what, item.name)):  # type: ignore[no-untyped-def]
                calls[_key] += 1
                return _inner(score)

            originals.append((item, inner))
            object.__setattr__(item, "value", counted)  # the registry's own objects: every holder sees it
    try:
        yield calls
    finally:
        for item, inner in originals:
            object.__setattr__(item, "value", inner)


def _row(case_id: str = "c", found: tuple[str, ...] = ("A",)) -> CaseResult:
    case = GoldCase(id=case_id, text="A met B", entities=[GoldEntity(name="A", type="person"),
                                                         GoldEntity(name="B", type="person")])
    graph = ExtractedGraph(entities=[Entity(name=name, type="person") for name in found])
    score = score_case(case, graph)
    return CaseResult(suite="s", variant="v", case_id=case_id, graph=graph, score=score, metrics=measure(score))


def test_measure_holds_every_defined_value_of_the_registry_and_leaves_out_the_undefined() -> None:
    row = _row()
    assert row.score is not None and row.metrics is not None
    for metric in metrics():
        assert row.metrics.value(metric.name) == metric.value(row.score), metric.name
    for count in counts():
        assert row.metrics.count(count.name) == count.value(row.score), count.name
    # n/a is left out, never stored as 0: this extraction case has no report figures
    assert row.metrics.value("report_schema_valid") is None and "report_schema_valid" not in row.metrics.values
    assert row.metrics.annotated == ["entities"]  # no relationship gold: pools no relationship counts
    assert row.metrics.registry == fingerprint()


def test_stored_values_are_read_back_exactly_without_running_the_registry(tmp_path: Path, evaluations) -> None:
    rows = [_row("a", ("A",)), _row("b", ("A", "B", "C"))]
    evaluations.clear()
    write_results(tmp_path / "results.jsonl", rows)
    back = read_results(tmp_path / "results.jsonl")
    assert [measured(row) for row in back] == [row.metrics for row in rows]  # floats survive JSON exactly
    assert sum(evaluations.values()) == 0


def test_a_row_written_before_values_were_stored_is_measured_once_when_read(tmp_path: Path, evaluations) -> None:
    path = tmp_path / "results.jsonl"
    old = _row().model_copy(update={"metrics": None})
    path.write_text(old.model_dump_json() + "\n", encoding="utf-8")  # no "metrics" key, as older rows
    assert '"metrics"' not in path.read_text(encoding="utf-8")
    (row,) = read_results(path)
    evaluations.clear()
    first = measured(row)
    assert first == measure(old.score)  # type: ignore[arg-type]
    evaluations.clear()
    assert measured(row) is first and scored_metrics([row, row]) == [first, first]
    assert sum(evaluations.values()) == 0  # kept on the row: read again, not computed again


def test_values_of_another_metric_registry_are_measured_again() -> None:
    row = _row()
    stale = CaseMetrics(registry="another-set", values={"entity_recall": 0.0})
    row.metrics = stale
    assert measured(row) == measure(row.score)  # type: ignore[arg-type]
    assert row.metrics is not stale and row.metrics.registry == fingerprint()


def test_a_row_without_a_score_has_no_values() -> None:
    row = _row().model_copy(update={"score": None, "error": "model call failed"})
    assert measured(row) is None and scored_metrics([row]) == []
    recovered = RecoveredResult()
    assert measured(recovered) is None


@pytest.mark.slow  # an end-to-end run of whole commands
def test_a_run_evaluates_each_metric_once_per_case_whatever_reads_it(tmp_path: Path, evaluations,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped podcast suite replayed with its gate (summary, comparisons against the baseline
    variant, gate against the accepted baseline, reports, plots, junit.xml), then `harness report`,
    `harness gate` and `harness export --to otel` on the finished run: one evaluation per (case, metric) and (case, count) in
    all (before issue 29, 1.37 per (case, metric) inside the run behind a per-run cache, and 6.62
    without it; `report` and `gate` each ran the registry over every case again)."""
    from harness.cli import main

    monkeypatch.chdir(REPO)
    reports = tmp_path / "reports"
    shutil.copytree(REPO / "reports" / "baselines", reports / "baselines")
    code = main(["run", "suites/podcast.yaml", "--record-mode", "none", "--gate", "--reports", str(reports),
                 "--run-id", "counted"])
    assert code in (0, 1)
    run_dir = reports / "podcast" / "counted"
    rows = read_results(run_dir / "results.jsonl")
    scored = sum(1 for row in rows if row.score is not None) + sum(
        1 for row in rows if row.recovered is not None and row.recovered.score is not None)
    assert scored >= 30 and (run_dir / "junit.xml").exists() and (run_dir / "report.html").exists()
    expected = Counter({("metric", name): scored for name in metric_names()})
    expected.update({("count", count.name): scored for count in counts()})
    assert evaluations == expected
    assert main(["report", str(run_dir)]) == 0
    assert main(["gate", str(run_dir)]) in (0, 1)
    assert main(["export", str(run_dir), "--to", "otel", str(tmp_path / "trace.jsonl")]) == 0
    assert evaluations == expected  # the finished run's rows carry their values
