"""The site's precomputed pairs report the same statistics as `harness compare`."""

from __future__ import annotations

from harness.compare import compare
from harness.runfolder import read_rows
from harness.viewer.casedata import case_values
from harness.viewer.pairs import pair_statistics


def test_pair_statistics_equal_harness_compare(runs_project):
    reports = runs_project / "reports" / "podcast"
    rows_a, rows_b = read_rows(reports / "r1"), read_rows(reports / "r2")
    names = ["entity_recall", "relationship_recall", "dangling"]
    found = pair_statistics(case_values(rows_a, names), case_values(rows_b, names), names)
    expected = compare(rows_a, rows_b).metrics
    assert [s["variant"] for s in found] == ["default"] and found[0]["cases"] == 12
    for name, figure in zip(names, found[0]["figures"]):
        delta = expected[name]
        assert figure["n"] == delta.n
        assert abs(figure["delta"] - delta.delta) < 1e-12
        assert abs(figure["low"] - delta.ci_low) < 1e-12 and abs(figure["high"] - delta.ci_high) < 1e-12
        assert abs(figure["p"] - delta.p_value) < 1e-12
        assert figure["significant"] == delta.significant
        assert (figure["improved"], figure["regressed"]) == (delta.improved, delta.regressed)


def test_variant_in_one_run_only_is_not_paired_and_no_value_is_none():
    a = {("default", "c1"): [0.5], ("tuned", "c1"): [0.5]}
    b = {("default", "c1"): [None]}
    found = pair_statistics(a, b, ["entity_recall"])
    assert found == [{"variant": "default", "cases": 1, "figures": [None]}]
