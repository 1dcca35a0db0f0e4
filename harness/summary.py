"""Results of one run -> its `RunSummary` (summary.json): per-variant metrics, graph size, format,
usage, ratios, and the comparisons against the baseline variant it is handed (harness.finish
computes them once).

Everything here is a pure function of the result rows, except timings, which live only
under keys ending in `_s` (and the `created_at` stamp), so a replayed run reproduces the
rest byte for byte.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from . import __version__
from .artifacts import (
    SUMMARY_SCHEMA_VERSION, ComparisonSummary, EngineSummary, EntityTypesUsed, FormatSummary, InputFingerprints,
    RecoveredSummary, RunSummary, VariantSummary,
)
from .fingerprint import METHOD, fingerprint, gold_fingerprint, input_fingerprint
from .kinds.registry import DEFAULT_KIND
from .cost_latency import cost_figures, latency_figures
from .frontier import build_frontier
from .llm.pricing import Price, load_prices
from .model import CaseResult, GoldCase, MatchingConfig, Usage, first_samples
from .parsing.verdict import has_format_errors
from .metrics.registry import headline as headline_metrics
from .scoring import aggregate, graph_stats, scored_metrics
from .scoring.repeat_spread import repeat_spread
from .scoring.fragmentation import fragmentation
from .scoring.gleaning import gleaning_yield

if TYPE_CHECKING:
    from .suites import Suite

SCHEMA_VERSION = SUMMARY_SCHEMA_VERSION


def format_summary(rows: list[CaseResult]) -> FormatSummary:
    rounds = [r for row in rows for r in row.round_reports]
    by_code: Counter[str] = Counter(issue.code for row in rows for issue in row.format_report.issues)
    with_errors = sum(1 for row in rows if has_format_errors(row.format_report))
    present = sum(1 for r in rounds if r.completion == "present")
    return FormatSummary(
        cases_with_errors=with_errors,
        # over no case there is no share: n/a (None), which fails a threshold, never 0% errors
        format_error_rate=round(with_errors / len(rows), 6) if rows else None,
        completion_rate=round(present / len(rounds), 6) if rounds else None,
        records_seen=sum(row.format_report.records_seen for row in rows),
        records_parsed=sum(row.format_report.records_parsed for row in rows),
        records_dropped=sum(row.format_report.records_dropped for row in rows),
        issues_by_code=dict(sorted(by_code.items())),
    )


def engine_summary(rows: list[CaseResult]) -> EngineSummary | None:
    """The engine's reading pooled over a variant's rows (None when no row has one)."""
    reads = [row.engine for row in rows if row.engine is not None]
    if not reads:
        return None
    reasons: Counter[str] = Counter()
    for read in reads:
        reasons.update(read.reasons)
    return EngineSummary(
        engine=reads[0].engine, parser=reads[0].parser, cases=len(reads),
        entities=sum(r.entities for r in reads), relationships=sum(r.relationships for r in reads),
        recovered_entities=sum(r.recovered_entities for r in reads),
        recovered_relationships=sum(r.recovered_relationships for r in reads),
        lost=sum(r.lost for r in reads), cases_with_loss=sum(1 for r in reads if r.lost),
        reasons=dict(sorted(reasons.items())),
    )


def recovered_summary(rows: list[CaseResult]) -> RecoveredSummary | None:
    """A variant's figures on the harness's own graphs (None when no row was scored on an engine's)."""
    recovered = [row.recovered for row in rows if row.recovered is not None]
    if not recovered:
        return None
    first = {id(row.recovered) for row in first_samples(rows) if row.recovered is not None}
    return RecoveredSummary(metrics=aggregate(scored_metrics(recovered)),
                            graph=graph_stats([r.graph for r in recovered if id(r) in first]))


def _ratio(value: float | None, base: float | None) -> float | None:
    if value is None or base is None or base == 0:
        return None
    return round(value / base, 6)


def variant_summary(rows: list[CaseResult], *, prompt: str, model: str, prices: Mapping[str, Price],
                    entity_types: EntityTypesUsed | None = None, gold: Mapping[str, GoldCase] | None = None,
                    matching: MatchingConfig | None = None, replayed: bool = False) -> VariantSummary:
    """One variant's figures. With repeated runs (`--repeat N`) the metrics and the gleaning yield
    pool every (case, sample) row, as if each sample were more cases, `repeats` holds the spread
    across samples, and the union graph and its fragmentation are sample 0's. `replayed`: every
    answer was read from a cassette, so no latency was measured (None, not the time to read them);
    the latency percentiles (`latency`) are the recorded ones there, as the cassettes kept them."""
    usage = Usage()
    for row in rows:
        usage = usage + row.usage
    cost = cost_figures(rows, model, prices)
    gleaned = sum(1 for row in rows for e in row.graph.entities if e.round > 0) + sum(
        1 for row in rows for r in row.graph.relationships if r.round > 0
    )
    return VariantSummary(
        prompt=prompt,
        model=model,
        cases=len(rows),
        metrics=aggregate(scored_metrics(rows)),
        # one union graph per run: with repeats, sample 0's (a union across samples would join
        # graphs no single run builds, and count names of different samples as fragments)
        graph=graph_stats([row.graph for row in first_samples(rows)]),
        format=format_summary(rows),
        records_from_gleaning=gleaned,
        usage=usage,
        cost_usd=cost.usd,
        latency_total_s=None if replayed else round(sum(r.latency_s or 0.0 for row in rows for r in row.rounds), 6),
        entity_types=entity_types,
        repeats=repeat_spread(rows),
        fragmentation=fragmentation(first_samples(rows), gold, matching),
        gleaning=gleaning_yield(rows),
        engine=engine_summary(rows),
        recovered=recovered_summary(rows),
        cost=cost,
        latency=latency_figures(rows),
    )


def ratios_to_baseline(variants: dict[str, VariantSummary], baseline: str) -> dict[str, dict[str, float | None]]:
    base = variants.get(baseline)
    out: dict[str, dict[str, float | None]] = {}
    if base is None:
        return out
    for name, variant in variants.items():
        out[name] = {
            "entities": _ratio(variant.graph.nodes, base.graph.nodes),
            "relationships": _ratio(variant.graph.edges, base.graph.edges),
            "communities": _ratio(variant.graph.communities, base.graph.communities),
            **{m.name: _ratio(variant.metric(m.name), base.metric(m.name)) for m in headline_metrics()},
        }
    return out


def build_summary(
    *,
    suite: Suite,
    run_id: str,
    results: list[CaseResult],
    record_mode: str,
    wall_s: float,
    comparisons: dict[str, ComparisonSummary],
    entity_types: Mapping[str, EntityTypesUsed],
    prompts: Mapping[str, str] | None = None,
    budget: float | None = None,
) -> RunSummary:
    """The run's summary; `comparisons` (variant -> against the baseline variant) are computed by
    the caller (`harness.finish.compare_to_baseline`), not here, and `entity_types` are the types
    each variant was run with (the runner's plans; a merge takes them from its shards): a prompt
    edited since is not re-read. `prompts`: each variant's prompt fingerprint, from the same plans
    (`ScoringPlan.fingerprint`); a variant left out has an unknown prompt. `budget` (`--budget`,
    dollars per 1,000 chunks): the frontier's pick."""
    prices = load_prices(suite.root, suite.spec.prices)
    present = [name for name in suite.variant_names() if any(r.variant == name for r in results)]
    variants: dict[str, VariantSummary] = {}
    gold = {case.id: case for case in suite.cases}
    for name in present:
        spec = suite.spec.variants[name]
        rows = [r for r in results if r.variant == name]
        variants[name] = variant_summary(rows, prompt=spec.prompt, model=spec.model or suite.model_settings(name).name,
                                         prices=prices, entity_types=entity_types.get(name),
                                         gold=gold, matching=suite.spec.matching, replayed=record_mode == "none")
    baseline = suite.baseline
    summary = RunSummary(
        harness_version=__version__,
        suite=suite.name,
        suite_file=str(suite.path),
        description=suite.spec.description,
        notes=suite.spec.notes,
        run_id=run_id,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        record_mode=record_mode,
        baseline=baseline,
        variants=variants,
        ratios=ratios_to_baseline(variants, baseline),
        comparisons=comparisons,
        timings={"wall_s": round(wall_s, 6)},
        pending_review=pending_review(suite.cases, results),
        kind=None if suite.spec.kind == DEFAULT_KIND else suite.spec.kind,
        inputs=input_fingerprints(suite, {row.case_id for row in results},
                                  {name: fp for name, fp in (prompts or {}).items() if name in variants}),
    )
    summary.frontier = build_frontier(variants, kind=summary.suite_kind, has_gold=summary.has_gold, budget=budget)
    return summary


def input_fingerprints(suite: Suite, ran: set[str], prompts: Mapping[str, str]) -> InputFingerprints:
    """The fingerprints of what the run was scored on (`harness.fingerprint`): the suite's settings
    (its cases' ids, not their contents; not its ontology, which has its own), its ontology, `prompts`, and the gold and input of every
    case the run scored, in suite order."""
    cases = [case for case in suite.cases if case.id in ran]
    # defaults left out: a setting written out at its default, or a field a newer harness adds, is no change
    settings = suite.spec.model_dump(mode="json", exclude={"cases", "ontology"}, exclude_defaults=True)
    return InputFingerprints(
        method=METHOD,
        suite=fingerprint({"settings": settings, "cases": [case.id for case in suite.cases]}),
        ontology=fingerprint(suite.spec.ontology),
        prompts=dict(prompts),
        gold={case.id: gold_fingerprint(case) for case in cases},
        chunks={case.id: input_fingerprint(case) for case in cases},
    )


def pending_review(cases: list[GoldCase], results: list[CaseResult]) -> int | None:
    """Cases of the run whose gold is pending review (`harness annotate`); None when there are none."""
    ran = {row.case_id for row in results}
    pending = sum(1 for case in cases if case.id in ran and case.pending)
    return pending or None
