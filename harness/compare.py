"""Runs -> comparison: paired per-metric deltas with intervals and p-values, and per-case diffs.

`compare(a, b)` pairs two lists of CaseResult by case_id (variant against variant, or run
against run) and reports, for every metric, ``b - a``:

- the **delta** of the macro average: the mean over paired cases of the per-case difference;
- a **paired bootstrap interval** (percentile method, resampling cases with replacement,
  fixed seed, vectorised with numpy). The bounds are order statistics of the resampled means
  (``k = floor(alpha/2 * (B-1))`` from each end), so swapping a and b exactly mirrors them;
- a two-sided **paired sign-flip permutation p-value** for "mean difference is 0": exact
  (all 2^n sign patterns) when 2^n <= resamples, otherwise Monte Carlo with the usual
  ``(1 + hits) / (1 + resamples)``;
- counts of cases improved, regressed and unchanged (in the metric's direction: for a
  lower-is-better count such as `dangling`, a rise is a regression), and the micro (pooled)
  values (a count metric's micro is its total);
- **significant**: whether the difference is real by the one rule the gate and the reports
  share (`is_real_difference`): at least `min_paired_cases` paired cases, a bootstrap interval
  that excludes zero *and* a permutation p-value below 1 - confidence. With few cases the
  bootstrap interval degenerates (two cases that both dropped 40 pt give [-40, -40]), while
  the exact sign-flip test cannot go below 2 / 2^n: with n < 6 it never reaches p < 0.05.

With repeated runs (`--repeat N`, rows with `sample` > 0) a case's value of a metric is its
mean over the samples that have one, the micro values pool every (case, sample) row, the
per-case diffs (entities gained, lost, newly missed) are those of sample 0, and `repeat_spread`
says per metric whether the difference exceeds the repeat-to-repeat spread
(harness/scoring/repeat_spread.py).

Metrics that may be undefined on a case (type accuracy, endpoint recall) use only the cases
where both sides have a value. Cases present on one side only, or without a score on either
side (model error), are listed and left out of the statistics. Paired cases are taken in
case-id order, so the result does not depend on the order of the input rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .artifacts import CaseDiff, Comparison, ComparisonSummary, GraphDiff, MetricDelta, PairedStats
from .model import CaseResult, CaseScore, ExtractedGraph
from .metrics import get as get_metric
from .metrics import metric_names
from .scoring.aggregate import aggregate
from .scoring.case_metrics import measured, scored_metrics
from .scoring.missed import newly
from .scoring.repeat_spread import spread_verdicts
from .scoring.normalize import normalize_name, normalize_type
from .significance import is_real_difference, min_paired_cases
from .scoring.score_json import score_to_json

if TYPE_CHECKING:
    from .runfolder import RunData

__all__ = [
    "CaseDiff",
    "Comparison",
    "GraphDiff",
    "MetricDelta",
    "PairedStats",
    "compare",
    "is_real_difference",
    "min_paired_cases",
    "paired_bootstrap",
    "paired_statistics",
    "score_to_json",
    "sign_flip_pvalue",
    "sign_flip_pvalues",
]

_TOL = 1e-12
_BLOCK = 2_000_000  # resample matrix entries per chunk (bounds memory)


# --------------------------------------------------------------------------- statistics


def _chunks(total: int, n: int) -> list[int]:
    block = max(1, _BLOCK // max(n, 1))
    return [min(block, total - start) for start in range(0, total, block)]


def _columns(diff: Sequence[float] | np.ndarray) -> np.ndarray:
    d = np.asarray(diff, dtype=np.float64)
    return d.reshape(len(d), -1)


class _Distinct(NamedTuple):
    rows: np.ndarray  # (m, n), contiguous: the distinct columns of d
    row_of: np.ndarray  # (k,): for each column of d, the row of its copy
    first: list[int]  # (m,): for each row, the first column of d it copies
    zero: np.ndarray  # (m,): whether the row is all +0.0


def _distinct_columns(d: np.ndarray) -> _Distinct:
    """The distinct columns of `d` (n, k), bit for bit.

    Equal columns give equal resampled means and p-values, so each is computed once (in a
    comparison, count metrics are often zero on both sides, or equal to another metric), and a
    column of +0.0 (no case changed) needs no resampling: each of its means is +0.0."""
    n, k = d.shape
    row_by_bits: dict[bytes, int] = {}
    row_of = np.empty(k, dtype=np.intp)
    first: list[int] = []
    for j in range(k):
        bits = d[:, j].tobytes()
        if bits not in row_by_bits:
            row_by_bits[bits] = len(first)
            first.append(j)
        row_of[j] = row_by_bits[bits]
    zeros = bytes(8 * n)  # +0.0 is all zero bits; no case (n = 0) is not "no change": drawing from it fails
    return _Distinct(np.ascontiguousarray(d[:, first].T), row_of, first,
                     np.array([n > 0 and bits == zeros for bits in row_by_bits], dtype=bool))


def bootstrap_means(diff: Sequence[float] | np.ndarray, *, resamples: int, seed: int) -> np.ndarray:
    """Means of `resamples` resamples (with replacement, rows drawn together) of each column of `diff`.

    `diff` is (n,) or (n, k); the result is (resamples, k). Columns share the draws, and a
    column gets the same draws whatever the other columns are (the stream depends on n only).
    Each resample's mean is summed over its row in draw order, as `d[idx, j].mean(axis=1)` does.
    """
    d = _columns(diff)
    n, k = d.shape
    distinct, row_of, _, zero = _distinct_columns(d)
    out = np.zeros((resamples, len(distinct)))
    if not zero.all():
        rng = np.random.default_rng(seed)
        pos = 0
        for size in _chunks(resamples, n):
            idx = rng.integers(0, n, size=(size, n))
            for row in np.flatnonzero(~zero):
                out[pos : pos + size, row] = distinct[row].take(idx).mean(axis=1)
            pos += size
    return out[:, row_of]


def percentile_intervals(means: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Order-statistic percentile bounds per column: exactly mirrored when the sign of the data flips."""
    ordered = np.sort(means, axis=0)
    b = ordered.shape[0]
    k = int(math.floor((1.0 - confidence) / 2.0 * (b - 1)))
    return ordered[k], ordered[b - 1 - k]


def paired_bootstrap(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 42,
) -> tuple[float, float]:
    """Percentile interval of mean(b - a) from a paired bootstrap over cases."""
    diff = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    if diff.size == 0:
        raise ValueError("paired_bootstrap needs at least one pair")
    low, high = percentile_intervals(bootstrap_means(diff, resamples=resamples, seed=seed), confidence)
    return float(low[0]), float(high[0])


def sign_flip_pvalues(diff: Sequence[float] | np.ndarray, *, resamples: int = 10_000, seed: int = 42) -> np.ndarray:
    """Two-sided p-values of mean == 0 for each column of `diff` ((n,) or (n, k)), by random sign flips.

    Equal columns are tested once; a column of +0.0 has p = 1 (every flip gives mean 0, which is
    as far from 0 as the observed 0), as the flips would find."""
    d = _columns(diff)
    n, k = d.shape
    if n == 0:
        raise ValueError("sign_flip_pvalue needs at least one pair")
    distinct, row_of, first, zero = _distinct_columns(d)
    observed = np.abs(d.mean(axis=0))[first]  # over d's axis 0, as always: another summation order moves the last bit
    threshold = observed - _TOL * np.maximum(1.0, observed)
    hits = np.zeros(len(distinct), dtype=np.int64)
    if 2**n <= resamples:  # exact: every sign pattern once (the identity included)
        patterns = np.arange(2**n)[:, None] >> np.arange(n)[None, :]
        signs = ((patterns & 1) * 2 - 1).astype(np.float64)
        for row in range(len(distinct)):
            hits[row] = np.count_nonzero(np.abs((signs * distinct[row]).mean(axis=1)) >= threshold[row])
        return (hits / 2**n)[row_of]
    hits[zero] = resamples
    if not zero.all():
        rng = np.random.default_rng(seed)
        for size in _chunks(resamples, n):
            signs = (rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1).astype(np.float64)
            for column in np.flatnonzero(~zero):
                hits[column] += np.count_nonzero(np.abs((signs * distinct[column]).mean(axis=1)) >= threshold[column])
    return ((1 + hits) / (1 + resamples))[row_of]


def sign_flip_pvalue(diff: Sequence[float] | np.ndarray, *, resamples: int = 10_000, seed: int = 42) -> float:
    """Two-sided p-value of mean(diff) == 0 under random sign flips of the paired differences."""
    return float(sign_flip_pvalues(np.asarray(diff, dtype=np.float64).ravel(), resamples=resamples, seed=seed)[0])


def paired_statistics(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 42,
) -> PairedStats:
    """The statistics `compare` reports for one metric (same draws, same numbers), for the gate."""
    diff = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    if diff.size == 0:
        raise ValueError("paired_statistics needs at least one pair")
    low, high = percentile_intervals(bootstrap_means(diff, resamples=resamples, seed=seed), confidence)
    p_value = sign_flip_pvalues(diff, resamples=resamples, seed=seed)
    return PairedStats(n=int(diff.size), delta=float(diff.mean()), ci_low=float(low[0]), ci_high=float(high[0]),
                       p_value=float(p_value[0]), confidence=confidence)


# --------------------------------------------------------------------------- diffs


def entity_map(graph: ExtractedGraph) -> tuple[dict[str, str], dict[str, str]]:
    """normalised name -> normalised type, and -> name as first written."""
    types: dict[str, str] = {}
    names: dict[str, str] = {}
    for ent in graph.entities:
        if not ent.name.strip():
            continue
        key = normalize_name(ent.name)
        if key not in names:
            names[key] = ent.name
            types[key] = normalize_type(ent.type)
        elif not types[key]:
            types[key] = normalize_type(ent.type)
    return types, names


def edge_map(graph: ExtractedGraph) -> dict[tuple[str, str], list[str]]:
    """Undirected edge over normalised names -> [source, target] as first written; no self-loops."""
    edges: dict[tuple[str, str], list[str]] = {}
    for rel in graph.relationships:
        if not rel.source.strip() or not rel.target.strip():
            continue
        s, t = normalize_name(rel.source), normalize_name(rel.target)
        if s != t:
            edges.setdefault((s, t) if s < t else (t, s), [rel.source, rel.target])
    return edges


def graph_diff(a: ExtractedGraph, b: ExtractedGraph) -> GraphDiff:
    """Entities and relationships gained and lost from a to b, via DeepDiff on normalised keys."""
    types_a, names_a = entity_map(a)
    types_b, names_b = entity_map(b)
    edges_a, edges_b = edge_map(a), edge_map(b)
    # threshold_to_diff_deeper=0: always diff key by key, even when the two sides share no key
    if types_a == types_b and edges_a.keys() == edges_b.keys():
        return GraphDiff()
    from deepdiff import DeepDiff  # lazy: 0.4 s of imports (pandas among them), only when a graph changed

    ent = DeepDiff(types_a, types_b, view="tree", threshold_to_diff_deeper=0)
    rel = DeepDiff(set(edges_a), set(edges_b), view="tree", threshold_to_diff_deeper=0)

    def keys(kind: str) -> list[Any]:
        return [level.path(output_format="list")[0] for level in ent.get(kind, [])]

    gained = sorted(keys("dictionary_item_added"))
    lost = sorted(keys("dictionary_item_removed"))
    retyped = sorted(keys("values_changed"))
    return GraphDiff(
        entities_gained=[names_b[k] for k in gained],
        entities_lost=[names_a[k] for k in lost],
        entities_retyped=[[names_b[k], types_a[k], types_b[k]] for k in retyped],
        relationships_gained=[edges_b[k] for k in sorted(level.t2 for level in rel.get("set_item_added", []))],
        relationships_lost=[edges_a[k] for k in sorted(level.t1 for level in rel.get("set_item_removed", []))],
    )


def _case_values(row: CaseResult) -> dict[str, float | None]:
    """A scored row's value of every metric (None where undefined), as the row holds them."""
    values = measured(row)
    assert values is not None  # only scored rows are paired
    return {name: values.value(name) for name in metric_names()}


def _sample_mean(rows: list[CaseResult]) -> dict[str, float | None]:
    """A case's value of every metric: its mean over the samples that have one (one sample: its value)."""
    values = scored_metrics(rows)
    out: dict[str, float | None] = {}
    for name in metric_names():
        known = [value for v in values if (value := v.value(name)) is not None]
        out[name] = sum(known) / len(known) if known else None
    return out


def _case_diff(case_id: str, ra: CaseResult, rb: CaseResult, sa: CaseScore, sb: CaseScore,
               samples_a: list[CaseResult], samples_b: list[CaseResult]) -> CaseDiff:
    repeated = len(samples_a) > 1 or len(samples_b) > 1
    ma = _sample_mean(samples_a) if repeated else _case_values(ra)
    mb = _sample_mean(samples_b) if repeated else _case_values(rb)
    delta = {
        name: (None if ma[name] is None or mb[name] is None else mb[name] - ma[name])  # type: ignore[operator]
        for name in metric_names()
    }
    return CaseDiff(
        case_id=case_id,
        a=ma,
        b=mb,
        delta=delta,
        newly_missed_entities=newly(sb.entities.missed, sa.entities.missed),
        newly_found_entities=newly(sa.entities.missed, sb.entities.missed),
        newly_missed_relationships=newly(sb.relationships.missed, sa.relationships.missed),
        newly_found_relationships=newly(sa.relationships.missed, sb.relationships.missed),
        graph=graph_diff(ra.graph, rb.graph),
    )


# --------------------------------------------------------------------------- compare


def _index(rows: list[CaseResult], side: str) -> tuple[dict[str, CaseResult], dict[str, list[CaseResult]]]:
    """Per case id: its first sample (sample 0 of a repeated run), and all its samples in order."""
    samples: dict[str, dict[int, CaseResult]] = {}
    for row in rows:
        if row.sample in samples.setdefault(row.case_id, {}):
            raise ValueError(f"case {row.case_id!r} appears twice in {side}; compare one variant of one run per side")
        samples[row.case_id][row.sample] = row
    ordered = {cid: [by_sample[k] for k in sorted(by_sample)] for cid, by_sample in samples.items()}
    return {cid: rows_of[0] for cid, rows_of in ordered.items()}, ordered


def _label(rows: list[CaseResult], fallback: str) -> str:
    names = {f"{row.suite}/{row.variant}" for row in rows}
    return names.pop() if len(names) == 1 else fallback


def compare(
    a: list[CaseResult],
    b: list[CaseResult],
    *,
    label_a: str | None = None,
    label_b: str | None = None,
    seed: int = 42,
    resamples: int = 10_000,
    confidence: float = 0.95,
) -> Comparison:
    """Compare b against a (a is the baseline), case by case; see the module docstring."""
    (index_a, samples_a), (index_b, samples_b) = _index(a, "a"), _index(b, "b")
    # Sorted by case id: the resampling must not depend on which side's row order came first.
    order = sorted(set(index_a) & set(index_b))
    unscored = [cid for cid in order if index_a[cid].score is None or index_b[cid].score is None]
    skip = set(unscored)
    paired = [cid for cid in order if cid not in skip]
    scores_a = [index_a[cid].score for cid in paired]
    scores_b = [index_b[cid].score for cid in paired]
    cases = [
        _case_diff(cid, index_a[cid], index_b[cid], sa, sb, samples_a[cid], samples_b[cid])  # type: ignore[arg-type]
        for cid, sa, sb in zip(paired, scores_a, scores_b)
    ]
    # micro: every (case, sample) row of the paired cases, pooled as the summary pools them
    micro_a = aggregate(scored_metrics(r for cid in paired for r in samples_a[cid])).metrics
    micro_b = aggregate(scored_metrics(r for cid in paired for r in samples_b[cid])).metrics

    # Metrics defined on the same cases are resampled together (same draws, one pass).
    values: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    groups: dict[tuple[bool, ...], list[str]] = {}
    for name in metric_names():
        mask = tuple(c.a[name] is not None and c.b[name] is not None for c in cases)
        va = np.array([c.a[name] for c, ok in zip(cases, mask) if ok], dtype=np.float64)
        vb = np.array([c.b[name] for c, ok in zip(cases, mask) if ok], dtype=np.float64)
        values[name] = (va, vb)
        if any(mask):
            groups.setdefault(mask, []).append(name)
    stats: dict[str, tuple[float, float, float]] = {}
    for names in groups.values():
        diffs = np.column_stack([values[name][1] - values[name][0] for name in names])
        lows, highs = percentile_intervals(bootstrap_means(diffs, resamples=resamples, seed=seed), confidence)
        pvalues = sign_flip_pvalues(diffs, resamples=resamples, seed=seed)
        for j, name in enumerate(names):
            stats[name] = (float(lows[j]), float(highs[j]), float(pvalues[j]))

    metrics: dict[str, MetricDelta] = {}
    for name in metric_names():
        va, vb = values[name]
        diff = vb - va
        n = int(diff.size)
        mi_a, mi_b = micro_a[name].micro, micro_b[name].micro
        low, high, p_value = stats.get(name, (None, None, None))
        metric = get_metric(name)
        sign = 1.0 if metric is None or metric.higher_is_better else -1.0
        metrics[name] = MetricDelta(
            metric=name,
            n=n,
            macro_a=float(va.mean()) if n else None,
            macro_b=float(vb.mean()) if n else None,
            delta=float(diff.mean()) if n else None,
            ci_low=low,
            ci_high=high,
            p_value=p_value,
            # direction-aware: for a lower-is-better metric (a count of defects) a rise is a regression
            improved=int(np.count_nonzero(diff * sign > _TOL)),
            regressed=int(np.count_nonzero(diff * sign < -_TOL)),
            unchanged=int(np.count_nonzero(np.abs(diff) <= _TOL)),
            micro_a=mi_a,
            micro_b=mi_b,
            micro_delta=None if mi_a is None or mi_b is None else mi_b - mi_a,
            significant=is_real_difference(n, low, high, p_value, confidence),
        )
    return Comparison(
        label_a=label_a or _label(a, "a"),
        label_b=label_b or _label(b, "b"),
        seed=seed,
        resamples=resamples,
        confidence=confidence,
        metrics=metrics,
        cases=cases,
        only_in_a=[row.case_id for row in a if row.case_id not in index_b and row.sample == index_a[row.case_id].sample],
        only_in_b=[row.case_id for row in b if row.case_id not in index_a and row.sample == index_b[row.case_id].sample],
        unscored=unscored,
        repeat_spread=spread_verdicts([r for cid in paired for r in samples_a[cid]],
                                      [r for cid in paired for r in samples_b[cid]]),
    )


def macro_intervals(rows: list[CaseResult], metrics: Sequence[str], *, seed: int = 42,
                    resamples: int = 2000) -> dict[str, tuple[float, float, float] | None]:
    """Each metric's mean of the per-case values and its 95% percentile bootstrap interval (cases
    resampled; None where no case has a value). Metrics with values on
    as many cases are resampled together: a column's draws depend only on its length, so each
    interval is the one it would be alone."""
    measured = scored_metrics(rows)  # the values computed when each case was scored
    values: dict[str, np.ndarray] = {}
    for name in metrics:
        known = [v for case in measured if (v := case.value(name)) is not None]
        values[name] = np.asarray(known, dtype=np.float64)
    by_length: dict[int, list[str]] = {}
    for name, arr in values.items():
        by_length.setdefault(arr.size, []).append(name)
    out: dict[str, tuple[float, float, float] | None] = {name: None for name in metrics}
    for n, names in by_length.items():
        if n == 0:
            continue
        means = bootstrap_means(np.column_stack([values[name] for name in names]), resamples=resamples, seed=seed)
        lows, highs = percentile_intervals(means, 0.95)
        for j, name in enumerate(names):
            out[name] = (float(values[name].mean()), float(lows[j]), float(highs[j]))
    return out


def compare_runs(run_a: RunData, run_b: RunData, variants: list[str] | None = None) -> dict[str, ComparisonSummary]:
    """RUN_B against RUN_A, per variant both hold (only `variants`, when given), labelled as the
    comparison report names its columns (`<variant> @ <run id>`)."""
    id_a, id_b = run_labels(run_a, run_b)
    found: dict[str, ComparisonSummary] = {}
    for v in shared_variants(run_a, run_b, variants):
        rows_a = [r for r in run_a.rows if r.variant == v]
        rows_b = [r for r in run_b.rows if r.variant == v]
        found[v] = compare(rows_a, rows_b, label_a=f"{v} @ {id_a}", label_b=f"{v} @ {id_b}").summary()
    return found


def run_labels(run_a: RunData, run_b: RunData) -> tuple[str, str]:
    """How a comparison names its two runs: their ids, told apart when they are the same."""
    id_a, id_b = run_a.finished.run_id, run_b.finished.run_id
    return (f"A:{id_a}", f"B:{id_b}") if id_a == id_b else (id_a, id_b)


def shared_variants(run_a: RunData, run_b: RunData, variants: list[str] | None = None) -> list[str]:
    """The variants both runs hold (only `variants`, when given); InputError when there are none."""
    from .errors import InputError

    shared = [v for v in run_a.finished.variants if v in run_b.finished.variants]
    if variants:
        missing = [v for v in variants if v not in shared]
        if missing:
            raise InputError(f"{run_b.run_dir}: variant(s) {', '.join(missing)} not in both runs (shared: {', '.join(shared) or 'none'})")
        shared = [v for v in shared if v in variants]
    if not shared:
        raise InputError(f"{run_a.run_dir} and {run_b.run_dir} share no variant")
    return shared
