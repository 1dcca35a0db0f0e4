"""junit.xml written as text, case by case: the bytes ElementTree wrote for the same tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.etree import ElementTree as ET

import pytest

from ..test_compare import random_runs
from harness.artifacts import CaseCheck
from harness.model import CaseResult
from harness.reports.junit import _clean, _property, iter_junit
from harness.metrics.registry import of_kind, thresholded


def _reference_junit(view, suite_file: str = "") -> str:
    """junit.xml as it was written: an ElementTree, indented, then serialised."""
    root = ET.Element("testsuites", name="kg-prompt-harness")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    suite_el = ET.SubElement(root, "testsuite", name=view.suite)
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for column in view.columns:
        for case_id in view.case_ids:
            row = column.row(case_id)
            if row is None:
                continue
            counts["tests"] += 1
            attrs = {"classname": f"{view.suite}.{column.variant}", "name": case_id}
            if suite_file:
                attrs["file"] = suite_file
            case_el = ET.SubElement(suite_el, "testcase", attrs)
            check = view.checks.get((column.variant, case_id))
            if row.score is None:
                counts["errors"] += 1
                err = ET.SubElement(case_el, "error", message=_clean(f"no score: {row.error or 'the case failed'}"),
                                    type="case-error")
                err.text = _clean(row.error or "")
            elif check is not None and not check.passed:
                counts["failures"] += 1
                fail = ET.SubElement(case_el, "failure", message=_clean(check.message()), type="per-case-rule")
                fail.text = _clean(check.details())
            elif check is not None and check.unchecked:
                counts["skipped"] += 1
                ET.SubElement(case_el, "skipped", message=_clean(check.skip_reason()))
            if row.score is not None:
                props = ET.SubElement(case_el, "properties")
                for metric in of_kind(view.suite_kind, thresholded()):
                    ET.SubElement(props, "property", name=metric.name, value=_property(metric, metric.value(row.score)))
    for key, value in counts.items():
        suite_el.set(key, str(value))
    for key in totals:
        totals[key] += counts[key]
        root.set(key, str(totals[key]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


@dataclass
class _Column:
    variant: str
    rows: list[CaseResult]

    def row(self, case_id: str) -> CaseResult | None:
        return next((r for r in self.rows if r.case_id == case_id), None)


@dataclass
class _View:
    """What iter_junit reads of a ReportView."""

    suite: str
    columns: list[_Column]
    case_ids: list[str]
    checks: dict[tuple[str, str], CaseCheck] = field(default_factory=dict)
    suite_kind: str = "extract_graph"


_AWKWARD = 'a & b < c > d "q" \'s\'\ttab\r\nline\x01ctl é 日本 \ufffe'


def _view(suite: str = "s&<\"uite") -> _View:
    rows_a, rows_b = random_runs(8, seed=1)
    rows_b = [r.model_copy(update={"variant": "tuned"}) for r in rows_b]
    rows_a[1] = rows_a[1].model_copy(update={"score": None, "error": _AWKWARD})
    rows_a[2] = rows_a[2].model_copy(update={"score": None, "error": None})  # no error text: a self-closing <error />
    rows_a[3] = rows_a[3].model_copy(update={"score": None, "error": "  "})  # whitespace-only text stays
    ids = [r.case_id for r in rows_a]
    rows_a[4] = rows_a[4].model_copy(update={"case_id": f"id {_AWKWARD}"})
    ids[4] = rows_a[4].case_id
    checks = {
        ("v", ids[0]): CaseCheck(variant="v", case_id=ids[0], failures=[f"recall < 0.9 {_AWKWARD}"],
                                  missed_entities=["A&B", "<C>"], missed_relationships=[["x", "y\n"]],
                                  newly_missed_entities=["é"], error="e"),
        ("v", ids[5]): CaseCheck(variant="v", case_id=ids[5], failures=["empty details"]),  # failure text "": <failure />
        ("v", ids[6]): CaseCheck(variant="v", case_id=ids[6], failures=[], undefined=["entity_recall", "x\ty"]),
        ("tuned", ids[6]): CaseCheck(variant="tuned", case_id=ids[6], failures=[], checked=2),
    }
    return _View(suite, [_Column("v", rows_a), _Column("tuned", rows_b[:6])], ids + ["missing"], checks)


@pytest.mark.parametrize("suite_file", ["", 'suites/a "b" & <c>.yaml'])
def test_streamed_junit_is_what_elementtree_wrote(suite_file: str) -> None:
    view = _view()
    expected = _reference_junit(view, suite_file)
    assert "".join(iter_junit(view, suite_file)) == expected
    chunks = list(iter_junit(view, suite_file))
    assert len(chunks) > len(view.case_ids) and "".join(chunks) == expected


def test_junit_of_no_cases_and_of_no_properties_is_what_elementtree_wrote() -> None:
    empty = _View("s", [_Column("v", [])], ["c1"])
    assert "".join(iter_junit(empty)) == _reference_junit(empty)
    no_properties = _view()
    no_properties.suite_kind = "no such kind"  # no thresholded metric of this kind: an empty <properties />
    assert "".join(iter_junit(no_properties)) == _reference_junit(no_properties)
