"""Comparisons: paired deltas, bootstrap intervals, sign-flip p-values, per-case diffs."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from harness.compare import (
    _BLOCK,
    bootstrap_means,
    compare,
    graph_diff,
    is_real_difference,
    min_paired_cases,
    paired_bootstrap,
    paired_statistics,
    sign_flip_pvalue,
    sign_flip_pvalues,
)
from harness.model import (
    CaseResult,
    Entity,
    ExtractedGraph,
    GoldCase,
    GoldEntity,
    GoldRelationship,
    Relationship,
)
from harness.metrics import metric_names
from harness.scoring import normalize_name, score_case

GOLD = {
    "c1": GoldCase(
        id="c1",
        text="Alpha met Beta in Gamma.",
        entities=[GoldEntity(name="Alpha", type="person"), GoldEntity(name="Beta", type="person"),
                  GoldEntity(name="Gamma", type="location")],
        relationships=[GoldRelationship(source="Alpha", target="Beta"),
                       GoldRelationship(source="Beta", target="Gamma")],
    ),
    "c2": GoldCase(
        id="c2",
        text="Delta owns Epsilon.",
        entities=[GoldEntity(name="Delta", type="organization"), GoldEntity(name="Epsilon", type="organization")],
        relationships=[GoldRelationship(source="Delta", target="Epsilon")],
    ),
    "c3": GoldCase(id="c3", text="Zeta.", entities=[GoldEntity(name="Zeta", type="person")]),
}


def row(variant: str, case_id: str, names: list[tuple[str, str]], edges: list[tuple[str, str]]) -> CaseResult:
    g = ExtractedGraph(
        entities=[Entity(name=n, type=t) for n, t in names],
        relationships=[Relationship(source=s, target=t) for s, t in edges],
    )
    return CaseResult(suite="demo", variant=variant, case_id=case_id, graph=g, score=score_case(GOLD[case_id], g))


def run_a() -> list[CaseResult]:
    return [
        row("default", "c1", [("Alpha", "person"), ("Beta", "person"), ("Gamma", "location")],
            [("Alpha", "Beta"), ("Beta", "Gamma")]),
        row("default", "c2", [("Delta", "organization")], []),
        row("default", "c3", [("Zeta", "person")], []),
    ]


def run_b() -> list[CaseResult]:
    return [
        # c1 loses Gamma and the Beta-Gamma edge, and retypes Beta
        row("tuned", "c1", [("Alpha", "person"), ("BETA", "org")], [("Alpha", "Beta")]),
        # c2 gains Epsilon and the edge
        row("tuned", "c2", [("Delta", "organization"), ("Epsilon", "organization")], [("Epsilon", "Delta")]),
        # c3 unchanged
        row("tuned", "c3", [("zeta", "PERSON")], []),
    ]


def test_hand_worked_deltas() -> None:
    cmp = compare(run_a(), run_b())
    assert (cmp.label_a, cmp.label_b) == ("demo/default", "demo/tuned")
    er = cmp.metrics["entity_recall"]
    # per-case recall a: 1, 1/2, 1 ; b: 2/3, 1, 1 ; differences -1/3, +1/2, 0
    assert er.n == 3
    assert er.macro_a == pytest.approx((1 + 0.5 + 1) / 3)
    assert er.macro_b == pytest.approx((2 / 3 + 1 + 1) / 3)
    assert er.delta == pytest.approx((-1 / 3 + 1 / 2 + 0) / 3)
    assert (er.improved, er.regressed, er.unchanged) == (1, 1, 1)
    # micro: a 5/6, b 5/6
    assert (er.micro_a, er.micro_b, er.micro_delta) == pytest.approx((5 / 6, 5 / 6, 0.0))
    # exact sign-flip p-value over 2^3 patterns of d = (-1/3, 1/2, 0): |mean| >= 1/18 for
    # every pattern (|±1/3 ± 1/2| is 1/6 or 5/6) -> p = 1
    assert er.p_value == 1.0
    rr = cmp.metrics["relationship_recall"]
    # a: 1, 0 ; b: 1/2, 1 ; c3 has no gold edges: undefined on both sides, left out (not 1.0 and 1.0)
    assert rr.n == 2
    assert rr.delta == pytest.approx((-1 / 2 + 1) / 2)
    ta = cmp.metrics["entity_type_accuracy"]
    # c1: a 3/3, b 1/2 ; c2: 1, 1 ; c3: 1, 1
    assert ta.delta == pytest.approx(-1 / 6)


def test_case_diffs() -> None:
    cmp = compare(run_a(), run_b())
    by_id = {c.case_id: c for c in cmp.cases}
    c1 = by_id["c1"]
    assert c1.newly_missed_entities == ["Gamma"]
    assert c1.newly_missed_relationships == [["Beta", "Gamma"]]
    assert c1.newly_found_entities == []
    assert c1.graph.entities_lost == ["Gamma"]
    assert c1.graph.entities_gained == []
    assert c1.graph.entities_retyped == [["BETA", "person", "org"]]
    assert c1.graph.relationships_lost == [["Beta", "Gamma"]]
    assert c1.delta["entity_recall"] == pytest.approx(-1 / 3)
    c2 = by_id["c2"]
    assert c2.newly_found_entities == ["Epsilon"]
    assert c2.newly_found_relationships == [["Delta", "Epsilon"]]
    assert c2.graph.entities_gained == ["Epsilon"]
    assert c2.graph.relationships_gained == [["Epsilon", "Delta"]]
    c3 = by_id["c3"]
    assert c3.graph.model_dump() == {
        "entities_gained": [], "entities_lost": [], "entities_retyped": [],
        "relationships_gained": [], "relationships_lost": [],
    }
    assert all(v in (0.0, None) for v in c3.delta.values())
    assert c3.delta["relationship_endpoint_recall"] is None  # no gold edge in c3


def test_worst_regressions_say_what_was_lost() -> None:
    worst = compare(run_a(), run_b()).worst_regressions()
    assert [c.case_id for c in worst] == ["c1"]
    assert worst[0].newly_missed_entities == ["Gamma"]
    # entity F1: 1 -> 2*2/(3+2) = 0.8 ; relationship F1: 1 -> 2*1/(2+1)
    assert worst[0].f1_change == pytest.approx((0.8 - 1) + (2 / 3 - 1))


def test_swapping_flips_every_delta_and_nothing_else() -> None:
    ab = compare(run_a(), run_b()).to_json()
    ba = compare(run_b(), run_a()).to_json()
    assert (ab["a"], ab["b"]) == (ba["b"], ba["a"])
    assert ab["settings"] == ba["settings"]
    assert ab["cases"] == ba["cases"]
    for name in metric_names():
        x, y = ab["metrics"][name], ba["metrics"][name]
        assert y["n"] == x["n"]
        if x["n"] == 0:  # no case has a value (rows scored without reference-free figures): nothing to flip
            assert x["delta"] is y["delta"] is None and x["micro_a"] is y["micro_b"] is None
            continue
        assert (y["macro_a"], y["macro_b"]) == (x["macro_b"], x["macro_a"])
        assert (y["micro_a"], y["micro_b"]) == (x["micro_b"], x["micro_a"])
        assert y["delta"] == -x["delta"]
        assert y["micro_delta"] == (None if x["micro_delta"] is None else -x["micro_delta"])
        assert (y["ci_low"], y["ci_high"]) == (-x["ci_high"], -x["ci_low"])
        assert y["p_value"] == x["p_value"]
        assert (y["improved"], y["regressed"], y["unchanged"]) == (x["regressed"], x["improved"], x["unchanged"])
    for x, y in zip(ab["case_diffs"], ba["case_diffs"], strict=True):
        assert x["case_id"] == y["case_id"]
        assert (y["a"], y["b"]) == (x["b"], x["a"])
        assert y["delta"] == {k: None if v is None else -v for k, v in x["delta"].items()}
        assert (y["newly_missed_entities"], y["newly_found_entities"]) == (
            x["newly_found_entities"], x["newly_missed_entities"])
        assert (y["newly_missed_relationships"], y["newly_found_relationships"]) == (
            x["newly_found_relationships"], x["newly_missed_relationships"])
        gx, gy = x["graph"], y["graph"]
        assert (gy["entities_gained"], gy["entities_lost"]) == (gx["entities_lost"], gx["entities_gained"])
        assert (gy["relationships_gained"], gy["relationships_lost"]) == (
            gx["relationships_lost"], gx["relationships_gained"])
        assert [[t[0].casefold(), t[2], t[1]] for t in gy["entities_retyped"]] == [
            [t[0].casefold(), t[1], t[2]] for t in gx["entities_retyped"]]


def random_runs(n: int, seed: int) -> tuple[list[CaseResult], list[CaseResult]]:
    """Two synthetic runs over `n` cases with noisy, partly overlapping predictions."""
    rng = np.random.default_rng(seed)
    a, b = [], []
    for k in range(n):
        names = [f"E{k}x{i}" for i in range(8)]
        gold = GoldCase(id=f"case{k:03d}", text="", entities=[GoldEntity(name=x) for x in names],
                        relationships=[GoldRelationship(source=names[i], target=names[i + 1]) for i in range(7)])
        for out, keep in ((a, 0.6), (b, 0.7)):
            found = [x for x in names if rng.random() < keep] + [f"junk{k}{i}" for i in range(rng.integers(0, 3))]
            edges = [(names[i], names[i + 1]) for i in range(7) if rng.random() < keep - 0.2]
            g = ExtractedGraph(entities=[Entity(name=x) for x in found],
                               relationships=[Relationship(source=s, target=t) for s, t in edges])
            out.append(CaseResult(suite="s", variant="v", case_id=gold.id, graph=g, score=score_case(gold, g)))
    return a, b


def test_swap_symmetry_on_random_runs_and_shuffled_rows() -> None:
    a, b = random_runs(40, seed=3)
    ab = compare(a, b)
    ba = compare(b[::-1], a)  # row order does not matter: pairs are taken in case-id order
    for name in metric_names():
        x, y = ab.metrics[name], ba.metrics[name]
        if x.n == 0:  # undefined on every case (no reference-free figures in these rows)
            assert y.n == 0 and x.delta is y.delta is None
            continue
        assert y.delta == -x.delta
        assert (y.ci_low, y.ci_high) == (-x.ci_high, -x.ci_low)
        assert y.p_value == x.p_value
    assert ab.to_json()["metrics"] == compare(a[::-1], b).to_json()["metrics"]


def test_bootstrap_agrees_with_scipy() -> None:
    rng = np.random.default_rng(0)
    a = rng.beta(5, 3, size=60)
    b = np.clip(a + rng.normal(0.03, 0.08, size=60), 0, 1)
    low, high = paired_bootstrap(a, b, resamples=10_000, seed=1)
    ref = stats.bootstrap(
        (a, b), lambda x, y, axis=-1: np.mean(y - x, axis=axis), paired=True, vectorized=True,
        method="percentile", n_resamples=10_000, confidence_level=0.95, random_state=np.random.default_rng(2),
    ).confidence_interval
    se = float(np.std(b - a, ddof=1) / math.sqrt(60))
    # the two intervals come from independent draws: agree to a small fraction of the standard error
    assert low == pytest.approx(ref.low, abs=0.1 * se)
    assert high == pytest.approx(ref.high, abs=0.1 * se)
    assert low < float(np.mean(b - a)) < high


def test_bootstrap_of_constant_difference_is_a_point() -> None:
    assert paired_bootstrap([0.5, 0.25, 0.0], [0.75, 0.5, 0.25]) == (0.25, 0.25)
    assert paired_bootstrap([0.3], [0.1]) == pytest.approx((-0.2, -0.2))


def test_bootstrap_is_seeded() -> None:
    rng = np.random.default_rng(9)
    a, b = rng.random(30), rng.random(30)
    assert paired_bootstrap(a, b, seed=5) == paired_bootstrap(a, b, seed=5)
    assert paired_bootstrap(a, b, seed=5) != paired_bootstrap(a, b, seed=6)


def test_sign_flip_exact_small_samples() -> None:
    # d = (1, 2): pattern means 1.5, 0.5, -0.5, -1.5 ; |mean| >= 1.5 in 2 of 4
    assert sign_flip_pvalue([1.0, 2.0]) == 0.5
    assert sign_flip_pvalue([0.0, 0.0, 0.0]) == 1.0
    # d = (1, 1, 1): only the all-plus and all-minus patterns reach |mean| 1 -> 2/8
    assert sign_flip_pvalue([1.0, 1.0, 1.0]) == 0.25
    assert sign_flip_pvalue([-1.0, -1.0, -1.0]) == 0.25


def test_sign_flip_monte_carlo_large_samples() -> None:
    # 20 equal positive differences: the exact p is 2 / 2^20; the estimate is (1 + hits) / (1 + B)
    p = sign_flip_pvalue(np.ones(20), resamples=10_000, seed=0)
    assert p == pytest.approx(1 / 10_001, abs=2 / 10_001)
    # symmetric noise around zero: not significant
    d = np.random.default_rng(1).normal(0, 1, size=200)
    d -= d.mean()
    assert sign_flip_pvalue(d) > 0.9
    # agrees with scipy's permutation test (samples mode = sign flips) within Monte Carlo error
    d = np.random.default_rng(2).normal(0.15, 1, size=80)
    ref = stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=10_000,
                                 random_state=np.random.default_rng(3)).pvalue
    assert sign_flip_pvalue(d) == pytest.approx(ref, abs=0.02)


def test_the_minimum_number_of_cases_follows_from_the_exact_test() -> None:
    # the smallest exact two-sided p-value is 2 / 2^n: 0.0625 at n = 5, 0.03125 at n = 6
    assert min_paired_cases(0.95) == 6
    assert min_paired_cases(0.99) == 8  # 2/2^8 = 0.0078 < 0.01 <= 2/2^7
    for n in (5, 6):
        stats_ = paired_statistics(np.full(n, 0.9), np.full(n, 0.5))
        assert stats_.p_value == pytest.approx(2 / 2**n)
        assert (stats_.ci_low, stats_.ci_high) == pytest.approx((-0.4, -0.4))  # a degenerate interval
        assert stats_.significant is (n >= 6)


def test_significance_needs_both_the_interval_and_the_p_value() -> None:
    assert is_real_difference(12, -0.3, -0.1, 0.01)
    assert not is_real_difference(12, -0.3, 0.1, 0.01)  # interval includes zero
    assert not is_real_difference(12, -0.3, -0.1, 0.2)  # p too large
    assert not is_real_difference(2, -0.4, -0.4, 0.5)  # the 2-case suite of issue 12.6
    assert not is_real_difference(12, None, None, None)


def test_compare_marks_what_the_gate_would_call_real() -> None:
    """compare's `significant` and the gate's regression rule come from the same statistics."""
    two = compare(run_a()[:2], [row("tuned", "c1", [("Alpha", "person")], []),
                                row("tuned", "c2", [], [])])
    er = two.metrics["entity_recall"]
    assert er.n == 2 and er.p_value == 0.5 and er.ci_high < 0 and er.significant is False
    va = [c.a["entity_recall"] for c in two.cases]
    vb = [c.b["entity_recall"] for c in two.cases]
    shared = paired_statistics(va, vb)
    assert (shared.delta, shared.ci_low, shared.ci_high, shared.p_value) == pytest.approx(
        (er.delta, er.ci_low, er.ci_high, er.p_value))
    assert two.to_json()["metrics"]["entity_recall"]["significant"] is False


def test_pairing_only_in_one_side_and_unscored() -> None:
    a = run_a()
    b = run_b()[:2] + [row("tuned", "c3", [], [])]
    b[2] = b[2].model_copy(update={"score": None, "error": "model call failed"})
    extra = row("tuned", "c2", [], []).model_copy(update={"case_id": "c9"})
    cmp = compare(a, b + [extra])
    assert cmp.unscored == ["c3"]
    assert cmp.only_in_b == ["c9"]
    assert cmp.only_in_a == []
    assert [c.case_id for c in cmp.cases] == ["c1", "c2"]
    assert cmp.metrics["entity_recall"].n == 2
    with pytest.raises(ValueError, match="twice"):
        compare(a + a[:1], b)


def test_no_paired_cases() -> None:
    cmp = compare(run_a(), [])
    assert cmp.metrics["entity_f1"].delta is None and cmp.metrics["entity_f1"].n == 0
    assert cmp.only_in_a == ["c1", "c2", "c3"]
    json.dumps(cmp.to_json())


def test_frames_and_json() -> None:
    cmp = compare(run_a(), run_b(), resamples=2_000)
    frame = cmp.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.index) == list(metric_names())
    assert {"delta", "ci_low", "ci_high", "p_value", "macro_a", "micro_a"} <= set(frame.columns)
    cases = cmp.case_frame()
    assert list(cases.index) == ["c1", "c2", "c3"]
    assert cases.loc["c1", "entity_recall_delta"] == pytest.approx(-1 / 3)
    assert cases.loc["c1", "entities_lost"] == ["Gamma"]
    doc = cmp.to_json()
    assert json.loads(json.dumps(doc)) == doc
    assert set(doc) == {"a", "b", "settings", "cases", "metrics", "worst_regressions", "case_diffs"}
    assert doc["metrics"]["entity_recall"]["ci_low"] <= doc["metrics"]["entity_recall"]["delta"]
    assert doc["worst_regressions"][0]["case_id"] == "c1"


def test_graph_diff_normalises_names() -> None:
    a = ExtractedGraph(entities=[Entity(name="The Alpha", type="PERSON")],
                       relationships=[Relationship(source="Alpha", target="Beta")])
    b = ExtractedGraph(entities=[Entity(name="alpha", type="person")],
                       relationships=[Relationship(source="BETA", target="alpha")])
    assert graph_diff(a, b).model_dump() == {
        "entities_gained": [], "entities_lost": [], "entities_retyped": [],
        "relationships_gained": [], "relationships_lost": [],
    }


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=8), max_size=6), st.lists(st.text(max_size=8), max_size=6),
       st.lists(st.tuples(st.text(max_size=5), st.text(max_size=5)), max_size=4))
def test_graph_diff_of_untrusted_names(names_a: list[str], names_b: list[str], edges: list[tuple[str, str]]) -> None:
    a = ExtractedGraph(entities=[Entity(name=n, type="t") for n in names_a])
    b = ExtractedGraph(entities=[Entity(name=n, type="t") for n in names_b],
                       relationships=[Relationship(source=s, target=t) for s, t in edges])
    diff = graph_diff(a, b)
    keys_a = {normalize_name(n) for n in names_a if n.strip()}
    keys_b = {normalize_name(n) for n in names_b if n.strip()}
    assert sorted(normalize_name(n) for n in diff.entities_gained) == sorted(keys_b - keys_a)
    assert sorted(normalize_name(n) for n in diff.entities_lost) == sorted(keys_a - keys_b)
    assert diff.relationships_lost == []
    expected = {tuple(sorted((normalize_name(s), normalize_name(t)))) for s, t in edges
                if s.strip() and t.strip() and normalize_name(s) != normalize_name(t)}
    assert len(diff.relationships_gained) == len(expected)


def test_improved_and_regressed_follow_each_metrics_direction() -> None:
    from harness.model import ExtractedGraph, GoldCase, ReferenceFreeScores
    from harness.scoring import score_case

    def row(case_id: str, dangling: int, entities: int) -> CaseResult:
        score = score_case(GoldCase(id=case_id, text="x"), ExtractedGraph())
        score.reference_free = ReferenceFreeScores(entities=entities, relationships=0, grounded=0, dangling=dangling)
        return CaseResult(suite="s", variant="v", case_id=case_id, score=score)

    # dangling a -> b: 1 -> 3 (worse), 1 -> 0 (better), 0 -> 0; distinct entities: 1 -> 2 (better), 1 -> 0, 1 -> 1
    a = [row("c1", 1, 1), row("c2", 1, 1), row("c3", 0, 1)]
    b = [row("c1", 3, 2), row("c2", 0, 0), row("c3", 0, 1)]
    result = compare(a, b)
    dangling, entities = result.metrics["dangling"], result.metrics["distinct_entities"]
    assert (dangling.improved, dangling.regressed, dangling.unchanged) == (1, 1, 1)
    assert dangling.delta == pytest.approx(1 / 3)  # (+2 - 1 + 0) / 3
    assert (dangling.micro_a, dangling.micro_b, dangling.micro_delta) == (2, 3, 1)  # totals
    frame = result.to_frame()
    assert frame.loc["dangling", "regressed"] == 1 and frame.loc["dangling", "kind"] == "count"
    assert not frame.loc["dangling", "higher_is_better"] and frame.loc["distinct_entities", "higher_is_better"]
    # c1 is the regressed dangling case: its rise is the regression, c2's fall the improvement
    assert result.cases[0].delta["dangling"] == 2 and result.cases[1].delta["dangling"] == -1
    assert (entities.improved, entities.regressed, entities.unchanged) == (1, 1, 1)
    # rows without reference-free figures pair nothing for these metrics
    old = [CaseResult(suite="s", variant="v", case_id=r.case_id,
                      score=r.score.model_copy(update={"reference_free": None})) for r in a]
    assert compare(old, b).metrics["dangling"].n == 0 and compare(old, b).metrics["dangling"].delta is None


# ------------------------------------------------ resampling each distinct column once: same numbers


def _reference_chunks(total: int, n: int) -> list[int]:
    block = max(1, _BLOCK // max(n, 1))
    return [min(block, total - start) for start in range(0, total, block)]


def _reference_bootstrap_means(diff: np.ndarray, *, resamples: int, seed: int) -> np.ndarray:
    """bootstrap_means as it was: every column resampled, one by one."""
    d = np.asarray(diff, dtype=np.float64)
    d = d.reshape(len(d), -1)
    n, k = d.shape
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, k))
    pos = 0
    for size in _reference_chunks(resamples, n):
        idx = rng.integers(0, n, size=(size, n))
        for j in range(k):
            out[pos : pos + size, j] = d[idx, j].mean(axis=1)
        pos += size
    return out


def _reference_sign_flip_pvalues(diff: np.ndarray, *, resamples: int, seed: int) -> np.ndarray:
    """sign_flip_pvalues as it was: every column flipped, one by one."""
    d = np.asarray(diff, dtype=np.float64)
    d = d.reshape(len(d), -1)
    n, k = d.shape
    observed = np.abs(d.mean(axis=0))
    threshold = observed - 1e-12 * np.maximum(1.0, observed)
    hits = np.zeros(k, dtype=np.int64)
    if 2**n <= resamples:
        patterns = np.arange(2**n)[:, None] >> np.arange(n)[None, :]
        signs = ((patterns & 1) * 2 - 1).astype(np.float64)
        for j in range(k):
            hits[j] = np.count_nonzero(np.abs((signs * d[:, j]).mean(axis=1)) >= threshold[j])
        return hits / 2**n
    rng = np.random.default_rng(seed)
    for size in _reference_chunks(resamples, n):
        signs = (rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1).astype(np.float64)
        for j in range(k):
            hits[j] += np.count_nonzero(np.abs((signs * d[:, j]).mean(axis=1)) >= threshold[j])
    return (1 + hits) / (1 + resamples)


def _columns_to_test(n: int, seed: int) -> np.ndarray:
    """Random differences with what a comparison has: equal columns, zero columns, -0.0, ties, a NaN."""
    rng = np.random.default_rng(seed)
    rates = rng.random(n) - rng.random(n)
    counts = rng.integers(-3, 4, n).astype(np.float64)
    rare = np.where(rng.random(n) < 0.05, rng.random(n), 0.0)
    tiny = rates * 1e-13  # below the tolerance: p-values decided by the threshold's last bits
    nan = rates.copy()
    nan[0] = np.nan
    columns = [rates, np.zeros(n), counts, rates.copy(), np.full(n, -0.0), rare, np.zeros(n), tiny, counts, nan,
               np.full(n, 0.1 + 0.2), rates[::-1].copy()]
    return np.column_stack(columns)


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 3, 9, 13, 40, 700, 2001])
def test_bootstrap_means_and_sign_flips_equal_the_column_by_column_computation(n: int) -> None:
    d = _columns_to_test(n, seed=n)
    for resamples in (1000, 2500):
        new = bootstrap_means(d, resamples=resamples, seed=7)
        old = _reference_bootstrap_means(d, resamples=resamples, seed=7)
        assert new.tobytes() == old.tobytes()  # bit for bit, NaN and -0.0 included
        assert sign_flip_pvalues(d, resamples=resamples, seed=7).tobytes() == \
            _reference_sign_flip_pvalues(d, resamples=resamples, seed=7).tobytes()
    for j in range(d.shape[1]):  # one column alone, and as 1-D input
        assert bootstrap_means(d[:, j], resamples=500, seed=3).tobytes() == \
            _reference_bootstrap_means(d[:, j], resamples=500, seed=3).tobytes()
        assert sign_flip_pvalues(d[:, j], resamples=500, seed=3).tobytes() == \
            _reference_sign_flip_pvalues(d[:, j], resamples=500, seed=3).tobytes()


def test_all_zero_differences_need_no_draws_and_give_what_the_draws_gave() -> None:
    d = np.zeros((50, 3))
    assert bootstrap_means(d, resamples=300, seed=1).tobytes() == _reference_bootstrap_means(d, resamples=300, seed=1).tobytes()
    assert sign_flip_pvalues(d, resamples=300, seed=1).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError):  # no case at all still fails, as drawing from nothing did
        bootstrap_means(np.zeros((0, 2)), resamples=10, seed=1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 1 / 3, 2.0, 1e-13]), min_size=4, max_size=4),
                min_size=1, max_size=30))
def test_resampling_distinct_columns_matches_on_generated_data(rows: list[list[float]]) -> None:
    d = np.array(rows, dtype=np.float64)
    assert bootstrap_means(d, resamples=200, seed=5).tobytes() == _reference_bootstrap_means(d, resamples=200, seed=5).tobytes()
    assert sign_flip_pvalues(d, resamples=200, seed=5).tobytes() == \
        _reference_sign_flip_pvalues(d, resamples=200, seed=5).tobytes()


@pytest.mark.slow
def test_comparing_unchanged_graphs_does_not_import_deepdiff() -> None:
    import subprocess
    import sys

    code = ("import sys; from harness.compare import graph_diff; from harness.model import ExtractedGraph, Entity; "
            "g = ExtractedGraph(entities=[Entity(name='A', type='person')]); "
            "assert graph_diff(g, g).entities_gained == []; assert 'deepdiff' not in sys.modules; "
            "graph_diff(g, ExtractedGraph()); assert 'deepdiff' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_regression_says_each_f1_change_not_their_sum() -> None:
    """Issue 27, item 10: `harness compare` printed "F1 change -2.000", the sum of the entity and
    relationship F1 changes (the ranking key) under a label that reads as one F1."""
    worst = compare(run_a(), run_b()).worst_regressions()[0]
    assert worst.f1_changes_text() == "entity F1 -0.200, relationship F1 -0.333"
