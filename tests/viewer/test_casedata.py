"""A run's per-case data: figures per case (samples averaged) and graphs keyed as compare keys them."""

from __future__ import annotations

from harness.compare import graph_diff
from harness.runfolder import read_rows, read_summary
from harness.viewer.casedata import case_values, run_case_data


def test_graph_keys_give_the_same_diff_as_harness_compare(runs_project):
    reports = runs_project / "reports" / "podcast"
    rows_a, rows_b = read_rows(reports / "r1"), read_rows(reports / "r2")
    data_a = run_case_data(read_summary(reports / "r1"), rows_a, ["entity_recall"])
    data_b = run_case_data(read_summary(reports / "r2"), rows_b, ["entity_recall"])
    by_b = {row["case"]: row for row in data_b["rows"]}
    checked = 0
    for row_a, result_a in zip(data_a["rows"], rows_a):
        row_b = by_b[row_a["case"]]
        result_b = next(r for r in rows_b if r.case_id == row_a["case"])
        expected = graph_diff(result_a.graph, result_b.graph)
        keys_a = {e[0]: e for e in row_a["entities"]}
        keys_b = {e[0]: e for e in row_b["entities"]}
        assert sorted(keys_b[k][1] for k in keys_b.keys() - keys_a.keys()) == sorted(expected.entities_gained)
        assert sorted(keys_a[k][1] for k in keys_a.keys() - keys_b.keys()) == sorted(expected.entities_lost)
        edges_a = {e[0] for e in row_a["relationships"]}
        edges_b = {e[0] for e in row_b["relationships"]}
        assert len(edges_b - edges_a) == len(expected.relationships_gained)
        assert len(edges_a - edges_b) == len(expected.relationships_lost)
        checked += bool(expected.entities_gained or expected.entities_lost)
    assert checked > 0  # the two runs' graphs differ: the comparison above was not of equal graphs


def test_repeated_case_is_the_mean_of_its_samples(runs_project):
    rows = read_rows(runs_project / "reports" / "podcast" / "r1")
    first, second = rows[0], rows[1].model_copy(update={"case_id": rows[0].case_id, "sample": 1})
    value_first = case_values([first], ["entity_recall"])[(first.variant, first.case_id)][0]
    value_second = case_values([rows[1]], ["entity_recall"])[(rows[1].variant, rows[1].case_id)][0]
    both = case_values([first, second], ["entity_recall"])[(first.variant, first.case_id)][0]
    assert value_first != value_second
    assert abs(both - (value_first + value_second) / 2) < 1e-12


def test_unscored_row_has_no_figures_and_keeps_its_error(runs_project):
    reports = runs_project / "reports" / "podcast" / "r1"
    rows = read_rows(reports)
    broken = rows[0].model_copy(update={"score": None, "error": "timeout"})
    data = run_case_data(read_summary(reports), [broken], ["entity_recall"])
    assert data["rows"][0]["figures"] == [None]
    assert data["rows"][0]["error"] == "timeout"
