"""harness/matrix.py: the `matrix` block of summary.json, checked on the shipped model-matrix suite
against figures computed here from its rows, and the best-cell rule on hand-made cells."""

from __future__ import annotations

from pathlib import Path
from statistics import mean

import pytest

from harness.artifacts import MatrixCell, MatrixFigure, RunSummary
from harness.compare import compare
from harness.finish import summarize
from harness.matrix import best_cells, matrix_figures
from harness.model import CaseResult
from harness.run.schedule import RunOptions, run_suite
from harness.scoring.case_metrics import measured
from harness.suites import load_suite

from .conftest import REPO


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunSummary, list[CaseResult]]:
    suite = load_suite(REPO / "suites" / "model-matrix.yaml")
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path_factory.mktemp("reports")))
    assert not outcome.missing and not outcome.failures
    summary = summarize(suite, "t", outcome.results, record_mode="none", wall_s=0.0, entity_types=outcome.entity_types)
    return summary, outcome.results


def _mean(rows: list[CaseResult], cell: str, figure: str) -> float | None:
    values = [v for row in rows if row.variant == cell and (v := measured(row).value(figure)) is not None]
    return mean(values) if values else None


def test_rows_are_prompts_columns_models_and_each_cell_holds_its_mean_and_interval(replayed) -> None:
    summary, rows = replayed
    matrix = summary.matrix
    assert matrix is not None
    assert matrix.prompts == ["default", "tuned"]
    assert matrix.models == ["gpt-4o-mini", "gpt-4o", "qwen2.5-7b-local"]
    assert matrix.figures == matrix_figures(summary) == ["entity_recall", "relationship_recall", "grounding_rate"]
    assert list(matrix.cells) == list(summary.variants)
    local = matrix.cells["tuned@qwen2.5-7b-local"]
    assert (local.prompt, local.model, local.model_name, local.cases) == ("tuned", "qwen2.5-7b-local",
                                                                          "qwen2.5-7b-instruct-q4_k_m", 12)
    for name, cell in matrix.cells.items():
        for figure, value in cell.figures.items():
            expected = _mean(rows, name, figure)
            assert value.value == pytest.approx(expected, abs=1e-6)
            assert value.ci_low is not None and value.ci_high is not None
            assert value.ci_low <= value.value <= value.ci_high


def test_the_best_cell_of_each_figure_is_the_highest_mean(replayed) -> None:
    summary, rows = replayed
    matrix = summary.matrix
    assert matrix is not None
    for figure in matrix.figures:
        means = {name: _mean(rows, name, figure) for name in matrix.cells}
        top = max(v for v in means.values() if v is not None)
        assert matrix.best[figure] == [n for n, v in means.items() if v is not None and abs(v - top) <= 1e-12]
    assert matrix.best["entity_recall"] == ["tuned@gpt-4o"]
    assert matrix.best["grounding_rate"] == ["default@gpt-4o"]


def test_rows_compare_prompts_under_one_model_and_columns_models_under_one_prompt(replayed) -> None:
    summary, rows = replayed
    matrix = summary.matrix
    assert matrix is not None
    assert [(c.along, c.a, c.b) for c in matrix.comparisons] == [
        ("row", "default@gpt-4o-mini", "tuned@gpt-4o-mini"),
        ("row", "default@gpt-4o", "tuned@gpt-4o"),
        ("row", "default@qwen2.5-7b-local", "tuned@qwen2.5-7b-local"),
        ("column", "default@gpt-4o-mini", "default@gpt-4o"),
        ("column", "default@gpt-4o-mini", "default@qwen2.5-7b-local"),
        ("column", "tuned@gpt-4o-mini", "tuned@gpt-4o"),
        ("column", "tuned@gpt-4o-mini", "tuned@qwen2.5-7b-local"),
    ]
    for c in matrix.comparisons:
        assert list(c.metrics) == matrix.figures and c.paired == 12
        same = compare([r for r in rows if r.variant == c.a], [r for r in rows if r.variant == c.b]).metrics
        for figure, delta in c.metrics.items():  # compare's own statistics, not another
            assert delta == same[figure]
            assert delta.delta == pytest.approx(_mean(rows, c.b, figure) - _mean(rows, c.a, figure), abs=1e-9)
    # each model's difference in relationship recall is real under both prompts; the prompts' is not
    real = {(c.a, c.b) for c in matrix.comparisons if c.metrics["relationship_recall"].significant}
    assert real == {("default@gpt-4o-mini", "default@gpt-4o"), ("default@gpt-4o-mini", "default@qwen2.5-7b-local"),
                    ("tuned@gpt-4o-mini", "tuned@gpt-4o"), ("tuned@gpt-4o-mini", "tuned@qwen2.5-7b-local")}


def test_a_suite_without_models_has_no_matrix(tmp_path: Path) -> None:
    suite = load_suite(REPO / "suites" / "biomed.yaml")
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path))
    summary = summarize(suite, "t", outcome.results, record_mode="none", wall_s=0.0, entity_types=outcome.entity_types)
    assert summary.matrix is None and "matrix" not in summary.model_dump(mode="json")


def _cell(name: str, **values: float | None) -> MatrixCell:
    return MatrixCell(variant=name, prompt=name, model="m", model_name="m", cases=1,
                      figures={k: MatrixFigure(value=v, ci_low=v, ci_high=v) for k, v in values.items()})


def test_best_cells_follow_the_metrics_direction_and_skip_na() -> None:
    cells = {"a": _cell("a", entity_recall=0.5, dangling=3.0, grounding_rate=0.9),
             "b": _cell("b", entity_recall=0.7, dangling=1.0, grounding_rate=0.9),
             "c": _cell("c", entity_recall=None, dangling=None, grounding_rate=0.8)}
    assert best_cells(cells, "entity_recall") == ["b"]
    assert best_cells(cells, "grounding_rate") == ["a", "b"]  # a tie: every one
    assert best_cells(cells, "dangling") == ["b"]  # fewer is better
    assert best_cells({"c": cells["c"]}, "entity_recall") == []  # all n/a: no best
    assert best_cells(cells, "not_a_metric") == []
