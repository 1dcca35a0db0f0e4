"""junit.xml: one test case per suite case × variant; a failure when the case breaks a per-case rule.

`classname` is `<suite>.<variant>`, `name` the case id. A case without a score (its model call or
parse failed) is an `<error>`; a case with no value for any per-case rule (no gold, no example
text, ...) is `<skipped>` (its metrics are "n/a", which is neither a pass nor a failure). Its
properties are the per-case values of every thresholded metric (a count as a whole number). The failure message names the broken rules and its text names what
the case missed. There are no `time` attributes: the file is reproducible byte for byte.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

from ..metrics.registry import Metric, of_kind, thresholded
from .view import ReportView

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _property(metric: Metric, value: float | None) -> str:
    """A per-case value as a property: a rate with six decimals, a count as a whole number; n/a."""
    if value is None:
        return "n/a"
    if metric.is_count and float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}"


def render_junit(view: ReportView, suite_file: str = "") -> str:
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
                for metric in of_kind(view.suite_kind, thresholded()):  # the metrics the per-case rules check
                    ET.SubElement(props, "property", name=metric.name, value=_property(metric, metric.value(row.score)))
    for key, value in counts.items():
        suite_el.set(key, str(value))
    for key in totals:
        totals[key] += counts[key]
        root.set(key, str(totals[key]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
