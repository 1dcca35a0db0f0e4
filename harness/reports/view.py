"""What a report shows, independent of its format: columns (variants or runs), verdict, cases.

A run report has one column per variant, each compared against the suite's baseline variant.
A comparison report (`harness report RUN_B --against RUN_A`) has, for every variant both runs
have, a column for RUN_A (the reference) and one for RUN_B compared against it. Markdown, HTML,
plots and JUnit all render the same `ReportView`, so they always agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from ..artifacts import (CaseCheck, ComparisonSummary, ConventionsSummary, Frontier, JudgesSummary, MatrixSummary, MetricDelta, OutputsSummary, RunSummary,
                         VariantSummary, Verdict)
from ..gate import effective_thresholds
from ..metrics.registry import Metric, in_reports
from ..kinds.registry import builds_graph, rows_kind
from ..model import CaseResult, GoldCase, GraphStats

if TYPE_CHECKING:
    from ..runfolder import RunData
    from ..suites import Suite

SIZE_KEYS = (("entities", "nodes"), ("relationships", "edges"), ("communities", "communities"))


@dataclass
class Column:
    name: str  # label shown in tables and plots
    variant: str  # variant name in the rows
    data: VariantSummary  # the variant's part of summary.json
    rows: list[CaseResult] = field(repr=False)
    reference: str | None = None  # name of the column this one is compared against
    comparison: ComparisonSummary | None = None  # against the reference
    thresholds: dict[str, float] = field(default_factory=dict)

    @property
    def is_reference(self) -> bool:
        return self.reference is None

    def metric(self, name: str, average: Literal["micro", "macro"] = "micro") -> float | None:
        return self.data.metric(name, average)

    def delta(self, name: str) -> MetricDelta | None:
        return None if self.comparison is None else self.comparison.delta(name)

    def row(self, case_id: str) -> CaseResult | None:
        return self._index.get(case_id)

    def paired_text(self) -> str:
        """The cases this column's Δ stands on: paired with its reference, and those only one side ran."""
        if self.comparison is None:
            return "—"
        cases = self.comparison.cases
        alone = [f"{len(cases.only_in_b)} only here" if cases.only_in_b else "",
                 f"{len(cases.only_in_a)} only in {self.reference}" if cases.only_in_a else ""]
        extra = ", ".join(part for part in alone if part)
        return f"{cases.paired}" + (f" ({extra})" if extra else "")

    def __post_init__(self) -> None:
        self._index: dict[str, CaseResult] = {}
        for r in self.rows:  # a repeated run's case shows its first sample (rows are in sample order)
            self._index.setdefault(r.case_id, r)


@dataclass
class ReportView:
    report_of: Literal["run", "comparison"]  # a run's reports, or a comparison of two runs
    suite: str
    title: str
    description: str
    notes: str
    facts: str  # one line of markdown: run id, baseline, record mode
    columns: list[Column]
    verdict: Verdict | None = None
    checks: dict[tuple[str, str], CaseCheck] = field(default_factory=dict)  # (column, case) -> per-case rules
    gold: dict[str, GoldCase] = field(default_factory=dict)
    case_ids: list[str] = field(default_factory=list)
    case_max_drop: float | None = None
    outputs: OutputsSummary | None = None  # a run of `harness evaluate` (outputs_section.py)
    conventions: ConventionsSummary | None = None
    judges: JudgesSummary | None = None  # the suite judge's calibration (judges_section.py)
    matrix: MatrixSummary | None = None  # a suite with `models:`: its prompt x model matrix (matrix_section.py)
    frontier: Frontier | None = None  # quality against cost and latency (cost_section.py); a run's only

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    @property
    def uneven_cases(self) -> bool:
        """Whether some compared column ran cases its reference did not, or the other way round (a
        variant's `cases:` list): the reports then say what each Δ stands on."""
        return any(c.comparison is not None and (c.comparison.cases.only_in_a or c.comparison.cases.only_in_b)
                   for c in self.columns)

    def reference_of(self, column: Column) -> Column | None:
        return None if column.reference is None else self.column(column.reference)

    def ratio(self, column: Column, key: str) -> float | None:
        ref = self.reference_of(column)
        if ref is None:
            return None
        value, base = getattr(column.data.graph, key), getattr(ref.data.graph, key)
        return None if not base else round(value / base, 6)

    def compared(self) -> list[Column]:
        return [c for c in self.columns if c.reference is not None]

    def reported_metrics(self) -> tuple[Metric, ...]:
        """The rows of the report tables: every reported metric, except one that only some suites
        can have (`only_where_defined`: typed gold, an ontology) when no column has a value."""
        kind = self.suite_kind  # a suite of one kind reports its kind's figures only
        return tuple(m for m in in_reports() if m.suite_kind == kind and (not m.only_where_defined or any(
            c.metric(m.name) is not None or c.metric(m.name, "macro") is not None for c in self.columns)))

    @property
    def builds_graph(self) -> bool:
        """Whether the run's answers build a graph (extraction): graph size, fragmentation,
        gleaning and F1 regressions are sections of such runs only."""
        return builds_graph(self.suite_kind)

    @cached_property
    def suite_kind(self) -> str:
        """The suite kind of the rows shown (harness/kinds/): which figures lead. Read once:
        every section and case row asks, and reading all rows each time made reports quadratic."""
        return rows_kind(row for column in self.columns for row in column.rows)

    @property
    def has_gold(self) -> bool:
        """Whether any case of any column is annotated (without gold, reports show reference-free
        figures where they would show recall)."""
        return any(c.data.has_gold for c in self.columns) or not self.columns

    def graph_settings(self) -> GraphStats | None:
        """The community-detection settings (a GraphStats) of the first column."""
        return self.columns[0].data.graph if self.columns else None


def case_order(rows: list[CaseResult], gold: dict[str, GoldCase]) -> list[str]:
    ids = list(gold) if gold else []
    seen = set(ids)
    present = {r.case_id for r in rows}
    ids = [cid for cid in ids if cid in present]
    for row in rows:
        if row.case_id not in seen:
            seen.add(row.case_id)
            ids.append(row.case_id)
    return ids


def run_view(
    summary: RunSummary,
    rows: list[CaseResult],
    *,
    suite: Suite | None = None,
    verdict: Verdict | None = None,
    checks: dict[tuple[str, str], CaseCheck] | None = None,
) -> ReportView:
    baseline = summary.baseline
    config = summary.gate_config
    columns = []
    for name, data in summary.variants.items():
        is_ref = name == baseline or baseline not in summary.variants
        columns.append(Column(
            name=name,
            variant=name,
            data=data,
            rows=[r for r in rows if r.variant == name],
            reference=None if is_ref else baseline,
            comparison=None if is_ref else summary.comparisons.get(name),
            thresholds={} if config is None else effective_thresholds(config.thresholds, name),
        ))
    gold = {c.id: c for c in suite.cases} if suite is not None else {}
    facts = (
        f"Run `{summary.run_id}` of `{summary.suite_file}`, baseline variant "
        f"`{baseline}`, record mode `{summary.record_mode}`, harness {summary.harness_version}."
    )
    if summary.pending_review:
        facts += (f" {summary.pending_review} case(s) have proposed gold pending review (`harness annotate`): "
                  "they are excluded from every gold-based metric.")
    return ReportView(
        report_of="run",
        suite=summary.suite,
        title=f"{summary.suite}: {len(columns)} prompt variant{'s' if len(columns) != 1 else ''}",
        description=summary.description,
        notes=summary.notes,
        facts=facts,
        columns=columns,
        verdict=verdict,
        checks={(variant, case): check for (variant, case), check in (checks or {}).items()},
        gold=gold,
        case_ids=case_order(rows, gold),
        case_max_drop=None if config is None else config.regression.case_max_drop,
        outputs=summary.outputs,
        conventions=summary.conventions,
        judges=summary.judges,
        matrix=summary.matrix,
        frontier=summary.frontier,
    )


def comparison_view(run_a: RunData, run_b: RunData, comparisons: dict[str, ComparisonSummary], *,
                    suite: Suite | None = None) -> ReportView:
    """RUN_B against RUN_A (both RunData), variant by variant: one pair of columns per variant of
    `comparisons` (each variant's comparison, computed by the caller: the view only formats)."""
    from ..compare import run_labels

    summary_a, summary_b = run_a.finished, run_b.finished
    id_a, id_b = run_labels(run_a, run_b)
    columns: list[Column] = []
    for v, comparison in comparisons.items():
        rows_a = [r for r in run_a.rows if r.variant == v]
        rows_b = [r for r in run_b.rows if r.variant == v]
        name_a, name_b = f"{v} @ {id_a}", f"{v} @ {id_b}"
        columns.append(Column(name_a, v, summary_a.variants[v], rows_a))
        columns.append(Column(name_b, v, summary_b.variants[v], rows_b, reference=name_a, comparison=comparison))
    gold = {c.id: c for c in suite.cases} if suite is not None else {}
    facts = (
        f"Run `{summary_b.run_id}` ({run_b.run_dir}) against run `{summary_a.run_id}` "
        f"({run_a.run_dir}), variant by variant."
    )
    return ReportView(
        report_of="comparison",
        suite=summary_b.suite,
        title=f"{summary_b.suite}: run {summary_b.run_id} against {summary_a.run_id}",
        description=summary_b.description,
        notes=summary_b.notes,
        facts=facts,
        columns=columns,
        gold=gold,
        case_ids=case_order(run_a.rows + run_b.rows, gold),
    )
