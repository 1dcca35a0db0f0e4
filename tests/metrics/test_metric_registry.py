"""The metric registry: one declaration per metric, in the order summary.json keeps."""

from __future__ import annotations

import pytest

from harness.gate import regression_metrics
from harness.metrics import Count, Metric, counts, get, gold_kind, metric_names, metrics, phrase
from harness.metrics.registry import headline, in_bar_chart, in_reports, key_figures, register, register_count, thresholded
from harness.model import Entity, ExtractedGraph, GoldCase, GoldEntity, GoldRelationship, Relationship
from harness.scoring import measure, micro_metrics, score_case
from harness.gate_settings import Regression, Thresholds
from tests.support.pooling import pooled


# the community report and claims families (harness/metrics/reports.py, claims.py), in declaration order
REPORTS = ("report_schema_valid", "report_rating_in_range", "report_findings_in_range", "report_citation_validity",
           "report_findings_cited", "report_entity_coverage", "report_fact_recall", "report_overlong_references",
           "report_invalid_citations", "report_example_names")
CLAIMS = ("claims_well_formed", "claim_status_valid", "claim_dates_valid", "claim_subjects_in_specs", "claim_recall",
          "claims_extracted")
# the global-search map family (harness/metrics/map_points.py), in declaration order
MAP = ("map_schema_valid", "map_scores_in_range", "map_citation_validity", "map_points_cited", "map_fact_recall",
       "map_overlong_references")

def _score(entities_gold: list[str], entities_pred: list[str], edges_gold: list[tuple[str, str]],
           edges_pred: list[tuple[str, str]]):
    case = GoldCase(id="c", text=" ".join(entities_pred[:1]),
                    entities=[GoldEntity(name=n, type="t") for n in entities_gold],
                    relationships=[GoldRelationship(source=s, target=t) for s, t in edges_gold])
    graph = ExtractedGraph(entities=[Entity(name=n, type="t") for n in entities_pred],
                           relationships=[Relationship(source=s, target=t) for s, t in edges_pred])
    return score_case(case, graph)


# the description-summary metrics (harness/metrics/summaries.py), in declaration order
SUMMARIES = ["facts_kept", "facts_added", "within_length", "names_entity", "third_person"]
# the judged-matching metrics (harness/metrics/judged.py), in declaration order
JUDGED = (*(f"judged_{p}_{a}" for p in ("entity", "relationship") for a in ("precision", "recall", "f1")),
          "judged_entity_faithfulness", "judged_relationship_faithfulness",  # (b)
          "judged_facts_kept", "judged_facts_added", "judged_findings_supported")  # (c)


def test_summary_order_is_declaration_order() -> None:
    # summary.json is compared byte for byte: this order is part of its format
    assert metric_names() == (
        "entity_precision", "entity_recall", "entity_f1", "entity_strict_f1", "entity_type_accuracy",
        "relationship_precision", "relationship_recall", "relationship_f1", "relationship_directed_recall",
        "relationship_endpoint_recall", "relationship_typed_precision", "relationship_typed_recall",
        "relationship_typed_f1", "grounding_rate", "type_conformance", "distinct_entities",
        "distinct_relationships", "duplicate_records", "type_conflicts", "dangling", "self_loops",
        "example_leaks", "empty_descriptions", "strengths_out_of_scale", "type_word_names", "example_relationships",
        "example_descriptions", "ungrounded_endpoints", "ontology_conformance",
        "domain_range_conformance", *SUMMARIES, "summary_words", "gold_facts_recall", *REPORTS, *CLAIMS, *MAP,
        *JUDGED,
    )
    assert [c.name for c in counts()][:2] == ["entity_tp", "entity_typed_tp"]
    assert [c.name for c in counts()][12:15] == ["relationship_typed_tp", "relationship_typed_gold",
                                                 "relationship_typed_pred"]
    assert [c.name for c in counts()][15:20] == ["grounded", "ungrounded", "unverified", "conforming_records",
                                                 "typed_entity_records"]
    # + the summaries (9 counts, 2 gold-fact counts), report, claims, map and judged families ((a) 6, (b) 4, (c) 6)
    assert len(counts()) == 37 + 11 + 16 + 8 + 11 + 6 + 4 + 6


def test_every_metric_pools_registered_counts_of_its_gold_kind() -> None:
    names = {c.name: c for c in counts()}
    for metric in metrics():
        assert metric.pools, metric.name
        for count in metric.pools:
            assert names[count].gold == metric.gold, (metric.name, count)


def test_one_case_pooled_alone_gives_its_own_values() -> None:
    # micro over a single case must equal the case's value: the two formulas of a metric agree
    score = _score(["A", "B", "C"], ["A", "B", "Z"], [("A", "B"), ("B", "C")], [("A", "B"), ("Z", "A")])
    measured = measure(score)
    own = {name: measured.value(name) for name in metric_names()}
    assert micro_metrics(measured.counts) == pytest.approx(own)
    suite = pooled([score])
    assert {m: a.micro for m, a in suite.metrics.items()} == pytest.approx(own)


def test_views_of_the_registry() -> None:
    assert [m.name for m in headline()] == ["entity_recall", "relationship_recall", "entity_precision",
                                            "relationship_precision", "entity_f1", "relationship_f1",
                                            "grounding_rate", "type_conformance"]
    reference_free = ["grounding_rate", "type_conformance", "distinct_entities", "distinct_relationships",
                      "duplicate_records", "type_conflicts", "dangling", "self_loops", "example_leaks",
                      "empty_descriptions", "strengths_out_of_scale", "type_word_names", "example_relationships",
                      "example_descriptions", "ungrounded_endpoints"]
    # metrics without a headline rank follow in declaration order
    assert [m.name for m in thresholded()] == ["entity_recall", "relationship_recall", "entity_f1",
                                               "relationship_f1", *reference_free[:2], "relationship_typed_recall",
                                               "relationship_typed_f1", *reference_free[2:], "ontology_conformance",
                                               "domain_range_conformance", *SUMMARIES, "gold_facts_recall", *REPORTS, *CLAIMS, *MAP,
                                               *JUDGED]
    assert [m.name for m in in_reports()] == ["entity_recall", "entity_precision", "entity_f1", "entity_strict_f1",
                                              "relationship_recall", "relationship_precision", "relationship_f1",
                                              "relationship_typed_precision", "relationship_typed_recall",
                                              "relationship_typed_f1", *reference_free[:2], "ontology_conformance",
                                              "domain_range_conformance", *reference_free[2:], *SUMMARIES,
                                              "summary_words", "gold_facts_recall", *REPORTS, *CLAIMS, *MAP]
    assert "entity_strict_f1" not in [m.name for m in in_bar_chart()]
    assert [m.column_label for m in key_figures()] == ["entity recall", "rel. recall (endpoints)"]
    assert get("entity_f1").axis_label == "Entity\nF1"  # type: ignore[union-attr]
    assert gold_kind("grounding_rate") is None and gold_kind("entity_f1") == "entities"
    assert phrase("entity_f1") == "entity F1" and phrase("not_a_metric") == "not a metric"


def test_suite_settings_follow_the_registry() -> None:
    fields = list(Thresholds.model_fields)
    assert fields == [m.name for m in thresholded()] + ["format_errors", "completion_rate", "max_cost_per_1k_chunks",
                                                       "p95_latency_s", "variants"]
    assert Thresholds(entity_recall=0.5, variants={"v": {"entity_f1": 0.2}}).variants["v"].entity_f1 == 0.2
    with pytest.raises(ValueError):
        Thresholds(entity_precision=0.5)  # not a thresholded metric
    with pytest.raises(ValueError, match="is not a metric"):
        Regression(metrics=["entity_recal"])
    assert Regression(metrics=["grounding_rate"]).metrics == ["grounding_rate"]
    # unset: the gate picks by what the run has (the key figures with gold, the compact set without)
    assert Regression().metrics is None
    assert regression_metrics(Regression(), has_gold=True) == [m.name for m in key_figures()] == [
        "entity_recall", "relationship_recall"]
    assert regression_metrics(Regression(), has_gold=False) == [
        "grounding_rate", "type_conformance", "duplicate_records", "dangling", "example_leaks"]


def test_registration_refuses_duplicates_and_unknown_counts() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        register(get("entity_f1"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="registered twice"):
        register_count(Count("grounded", lambda s: 0, None))
    stray = Metric("stray_metric", "Stray", "stray", value=lambda s: None, micro=lambda c: None,
                   pools=("no_such_count",), gold=None)
    with pytest.raises(ValueError, match="unregistered count"):
        register(stray)
    assert "stray_metric" not in metric_names()


def test_docs_scoring_names_every_registered_metric() -> None:
    # "adding a metric is one module plus docs": the docs half is checked here
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "scoring.md").read_text(encoding="utf-8")
    assert [name for name in metric_names() if f"`{name}`" not in text] == []


def test_kinds_directions_and_formatting() -> None:
    from harness.metrics.registry import console_columns, format_metric

    counts_ = [m.name for m in metrics() if m.is_count]
    assert counts_ == ["distinct_entities", "distinct_relationships", "duplicate_records", "type_conflicts",
                       "dangling", "self_loops", "example_leaks", "empty_descriptions", "strengths_out_of_scale", "type_word_names",
                       "example_relationships", "example_descriptions", "ungrounded_endpoints",
                       "summary_words", "report_overlong_references", "report_invalid_citations", "report_example_names",
                       "claims_extracted", "map_overlong_references"]
    assert all(m.kind == "rate" for m in metrics() if m.name not in counts_)
    lower = [m.name for m in metrics() if not m.higher_is_better]
    assert lower == [*counts_[2:13], "facts_added", "summary_words", "report_overlong_references",
                     "report_invalid_citations", "report_example_names", "map_overlong_references", "judged_facts_added"]
    assert all(get(n).threshold == "<=" for n in lower if n != "summary_words") and get("summary_words").threshold is None  # type: ignore[union-attr]
    assert get("distinct_entities").threshold == ">=" and get("type_conformance").threshold == ">="  # type: ignore[union-attr]
    # one formatting for every report: a rate as a percentage, a count as a number, None as n/a
    assert format_metric("grounding_rate", 0.875) == "87.5%"
    assert format_metric("dangling", 3) == "3" and format_metric("dangling", 1.5) == "1.50"
    assert format_metric("dangling", 1234) == "1,234" and format_metric("example_leaks", None) == "n/a"
    assert get("dangling").format_change(0.5) == "+0.50" and get("entity_f1").format_change(-0.042) == "-4.2 pt"  # type: ignore[union-attr]
    assert get("dangling").worse(1, 3) == 2 and get("entity_f1").worse(0.8, 0.5) == pytest.approx(0.3)  # type: ignore[union-attr]
    assert [m.column_label for m in console_columns(gold=False)] == ["grounded", "types ok", "duplicates", "dangling",
                                                                     "leaks"]
    assert [m.name for m in console_columns(gold=True)] == ["entity_recall", "relationship_recall", "grounding_rate"]


def test_grounded_rate_is_an_alias_of_grounding_rate() -> None:
    from harness.metrics.registry import aliases, canonical

    assert aliases() == {"grounded_rate": "grounding_rate"}
    assert canonical("grounded_rate") == "grounding_rate" and canonical("dangling") == "dangling"
    assert get("grounded_rate") is get("grounding_rate") and phrase("grounded_rate") == "grounding rate"
    limits = Thresholds.model_validate({"grounded_rate": 0.9, "example_leaks": 0})
    assert limits.model_dump(exclude_none=True) == {"grounding_rate": 0.9, "example_leaks": 0, "variants": {}}
    assert Regression(metrics=["grounded_rate", "dangling", "grounding_rate"]).metrics == ["grounding_rate", "dangling"]
    with pytest.raises(ValueError, match="registered twice|already a metric"):
        register(Metric("grounded_rate", "x", "x", value=lambda s: None, micro=lambda c: None,
                        pools=("grounded",), gold=None))


def test_thresholds_are_validated_by_kind() -> None:
    assert Thresholds(dangling=2.5).dangling == 2.5 and Thresholds(distinct_entities=40).distinct_entities == 40
    for bad in ({"grounding_rate": 1.5}, {"type_conformance": -0.1}, {"example_leaks": -1},
                {"dangling": float("inf")}):
        with pytest.raises(ValueError):
            Thresholds.model_validate(bad)


def test_thresholded_is_sorted_once_and_again_after_a_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.metrics.registry as registry

    def plainly() -> list[str]:
        ranked = sorted(registry._METRICS.values(), key=lambda m: (m.headline_rank is None, m.headline_rank or 0))
        return [m.name for m in ranked if m.threshold is not None]

    assert [m.name for m in thresholded()] == plainly()
    monkeypatch.setattr(registry, "_METRICS", dict(registry._METRICS))
    try:
        register(Metric("late_metric", "Late", "late", value=lambda s: None, micro=lambda c: None, pools=(),
                        gold=None, threshold=">=", headline_rank=0))
        assert [m.name for m in thresholded()][0] == "late_metric"
        assert [m.name for m in thresholded()] == plainly()
    finally:
        monkeypatch.undo()
        registry._thresholded.cache_clear()
        registry._fingerprint.cache_clear()
    assert "late_metric" not in [m.name for m in thresholded()]


def test_console_columns_follow_the_metrics_declarations_not_the_kinds_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kind whose key figures need gold shows its gold-free `console` metrics when the suite has no
    gold, as extraction does; one whose key figures need none shows them, gold or not."""
    from harness.metrics import registry

    def metric(name: str, kind: str, *, gold: str | None = None, key: bool = False,
               console: str | None = None) -> registry.Metric:
        return registry.Metric(name, name, name, value=lambda s: None, micro=lambda c: None, pools=(), gold=gold,  # type: ignore[arg-type]
                               key_figure=key, console=console, suite_kind=kind)  # type: ignore[arg-type]

    probes = [metric("gold_key", "probe_gold", gold="entities", key=True), metric("free", "probe_gold", console="without_gold"),
              metric("free_key", "probe_free", key=True), metric("free_extra", "probe_free", console="without_gold")]
    monkeypatch.setattr(registry, "_loaded", lambda: {**registry._METRICS, **{m.name: m for m in probes}})
    assert [m.name for m in registry.console_columns(gold=True, kind="probe_gold")] == ["gold_key"]
    assert [m.name for m in registry.console_columns(gold=False, kind="probe_gold")] == ["free"]
    assert [m.name for m in registry.console_columns(gold=False, kind="probe_free")] == ["free_key"]
