"""A suite's model matrix (`models:`) as summary.json's `matrix` block: per (prompt variant, model)
cell its figures with intervals, the best cell per figure, and paired comparisons along each row
(the prompts under one model) and each column (the models under one prompt).

The cells are ordinary variants of the run (`<prompt>@<model>`, `suites.Cell`), so their rows,
scores and summaries are the runner's; this only arranges them. The intervals are
`compare.macro_intervals` and the comparisons `compare.compare`, the statistics every report
uses. The figures are data: the metrics the console shows for the suite's kind (the metric
registry's `console_columns`), so a figure registered there joins the matrix without a change here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from .artifacts import MatrixCell, MatrixComparison, MatrixFigure, MatrixSummary, RunSummary
from .metrics import get as get_metric
from .metrics.registry import console_columns
from .model import CaseResult

if TYPE_CHECKING:
    from .suites import Suite

_TOL = 1e-12


def matrix_figures(summary: RunSummary) -> list[str]:
    """The figures a matrix shows: the console's metric columns for the run's kind and gold."""
    return [m.name for m in console_columns(gold=summary.has_gold, kind=summary.suite_kind)]


def best_cells(cells: dict[str, MatrixCell], figure: str) -> list[str]:
    """The cells holding the figure's best value (all of them on a tie), by the metric's direction;
    none when every cell is n/a or the figure has no direction."""
    metric = get_metric(figure)
    if metric is None:
        return []
    values = {name: cell.figures[figure].value for name, cell in cells.items() if figure in cell.figures}
    known = {name: value for name, value in values.items() if value is not None}
    if not known:
        return []
    top = max(known.values()) if metric.higher_is_better else min(known.values())
    return [name for name, value in known.items() if abs(value - top) <= _TOL]


def matrix_summary(suite: Suite, rows: list[CaseResult], summary: RunSummary) -> MatrixSummary | None:
    """The matrix of the cells the run holds (a `--model` or `--variant` selection: those only);
    None for a suite without `models:`."""
    if not suite.cells:
        return None
    from .compare import compare, macro_intervals  # lazy: numpy

    figures = matrix_figures(summary)
    present = [name for name in suite.cells if name in summary.variants]
    by_cell = {name: [r for r in rows if r.variant == name] for name in present}
    cells: dict[str, MatrixCell] = {}
    for name in present:
        cell = suite.cells[name]
        intervals = macro_intervals(by_cell[name], figures)
        cells[name] = MatrixCell(
            variant=name, prompt=cell.variant, model=cell.model, model_name=summary.variants[name].model,
            cases=summary.variants[name].cases,
            figures={f: MatrixFigure(value=None, ci_low=None, ci_high=None) if (i := intervals[f]) is None
                     else MatrixFigure(value=round(i[0], 6), ci_low=round(i[1], 6), ci_high=round(i[2], 6))
                     for f in figures})
    prompts = list(dict.fromkeys(c.prompt for c in cells.values()))
    models = list(dict.fromkeys(m.label for m in suite.spec.models or () if any(c.model == m.label for c in cells.values())))
    # the baseline cell's prompt and model; where a selection left it out, the first that ran
    reference = suite.cells.get(suite.baseline)
    base_prompt = reference.variant if reference is not None and reference.variant in prompts else next(iter(prompts), "")
    base_model = reference.model if reference is not None and reference.model in models else next(iter(models), "")
    at = {(c.prompt, c.model): name for name, c in cells.items()}

    def compared(along: Literal["row", "column"], a: str, b: str) -> MatrixComparison:
        made = compare(by_cell[a], by_cell[b], label_a=a, label_b=b)
        return MatrixComparison(along=along, a=a, b=b, paired=len(made.cases),
                                metrics={f: made.metrics[f] for f in figures if f in made.metrics})

    pairs: list[tuple[Literal["row", "column"], tuple[str, str], tuple[str, str]]] = [
        *(("row", (base_prompt, model), (prompt, model)) for model in models for prompt in prompts if prompt != base_prompt),
        *(("column", (prompt, base_model), (prompt, model)) for prompt in prompts for model in models if model != base_model),
    ]
    comparisons = [compared(along, at[a], at[b]) for along, a, b in pairs if a in at and b in at]
    return MatrixSummary(prompts=prompts, models=models, figures=figures, cells=cells,
                         best={f: best_cells(cells, f) for f in figures}, comparisons=comparisons)


__all__ = ["best_cells", "matrix_figures", "matrix_summary"]
