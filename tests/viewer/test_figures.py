"""What the index holds of a run: the suite's console figures per variant and model."""

from __future__ import annotations

from harness.runfolder import read_summary
from harness.viewer.figures import metric_entry, series, suite_figures


def test_gold_suite_trends_its_key_figures_first(runs_project):
    summary = read_summary(runs_project / "reports" / "podcast" / "r1")
    names = [metric.name for metric in suite_figures([summary])]
    assert names[:2] == ["entity_recall", "relationship_recall"]


def test_series_are_per_variant_with_model_and_pooled_values(runs_project):
    summary = read_summary(runs_project / "reports" / "podcast" / "r1")
    found = series(summary, ["entity_recall", "dangling"])
    assert [(s["variant"], s["model"], s["cases"]) for s in found] == [("default", "gpt-4o-mini", 12)]
    recall = summary.variants["default"].metric("entity_recall")
    assert abs(found[0]["figures"][0] - recall) < 1e-6


def test_metric_entry_says_how_to_show_it():
    from harness.metrics.registry import get

    assert metric_entry(get("entity_recall")) == {"name": "entity_recall", "label": "Entity recall", "rate": True,
                                                  "higher": True}
    assert metric_entry(get("dangling"))["higher"] is False
