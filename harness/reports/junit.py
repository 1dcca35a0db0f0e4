"""junit.xml: one test case per suite case × variant; a failure when the case breaks a per-case rule.

`classname` is `<suite>.<variant>`, `name` the case id. A case without a score (its model call or
parse failed) is an `<error>`; a case with no value for any per-case rule (no gold, no example
text, ...) is `<skipped>` (its metrics are "n/a", which is neither a pass nor a failure). Its
properties are the per-case values of every thresholded metric (a count as a whole number). The failure message names the broken rules and its text names what
the case missed. There are no `time` attributes: the file is reproducible byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..metrics.registry import Metric, of_kind, thresholded
from ..model import CaseResult
from ..scoring.case_metrics import measured
from .view import ReportView

_INDENT = "  "  # ElementTree.indent's step
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


def _escape_text(text: str) -> str:
    """Character data escaped as ElementTree escapes it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_attribute(text: str) -> str:
    """An attribute value escaped as ElementTree escapes it (line breaks and tabs as references)."""
    return (_escape_text(text).replace('"', "&quot;").replace("\r", "&#13;").replace("\n", "&#10;")
            .replace("\t", "&#09;"))


def _attributes(pairs: Iterable[tuple[str, str]]) -> str:
    return "".join(f' {name}="{_escape_attribute(value)}"' for name, value in pairs)


def _leaf(tag: str, attributes: str, text: str | None = None) -> str:
    """An element without children, as ElementTree writes it (empty text: a self-closing tag)."""
    return f"<{tag}{attributes}>{_escape_text(text)}</{tag}>" if text else f"<{tag}{attributes} />"


def _nested(tag: str, attributes: str, children: list[str], depth: int) -> str:
    """An element at `depth` with its children, indented as `ElementTree.indent` does."""
    if not children:
        return _leaf(tag, attributes)
    inner = "\n" + _INDENT * (depth + 1)
    return f"<{tag}{attributes}>{inner}{inner.join(children)}\n{_INDENT * depth}</{tag}>"


def iter_junit(view: ReportView, suite_file: str = "") -> Iterator[str]:
    """junit.xml in chunks, one test case each: the text `ElementTree.indent` and `tostring` gave
    for the same tree, without building the tree (tests/reports/test_junit.py checks it)."""
    entries = [(column, case_id, row) for column in view.columns for case_id in view.case_ids
               if (row := column.row(case_id)) is not None]
    counts = {"tests": len(entries), "failures": 0, "errors": 0, "skipped": 0}
    for column, case_id, row in entries:
        check = view.checks.get((column.variant, case_id))
        if row.score is None:
            counts["errors"] += 1
        elif check is not None and not check.passed:
            counts["failures"] += 1
        elif check is not None and check.unchecked:
            counts["skipped"] += 1
    # the metrics the per-case rules check, each with its <property> up to the value (the same in every case)
    properties = [(metric, f"<property{_attributes([('name', metric.name)])} value=\"")
                  for metric in of_kind(view.suite_kind, thresholded())]
    totals = {key: counts[key] for key in ("tests", "failures", "errors")}
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    yield f"<testsuites{_attributes([('name', 'kg-prompt-harness'), *((k, str(v)) for k, v in totals.items())])}>"
    suite_attributes = _attributes([("name", view.suite), *((k, str(v)) for k, v in counts.items())])
    if not entries:
        yield f"\n{_INDENT}<testsuite{suite_attributes} />\n</testsuites>\n"
        return
    yield f"\n{_INDENT}<testsuite{suite_attributes}>"
    for column, case_id, row in entries:
        yield "\n" + _INDENT * 2 + _test_case(view, column.variant, case_id, row, properties, suite_file)
    yield f"\n{_INDENT}</testsuite>\n</testsuites>\n"


def _test_case(view: ReportView, variant: str, case_id: str, row: CaseResult,
               properties: list[tuple[Metric, str]], suite_file: str) -> str:
    attributes = [("classname", f"{view.suite}.{variant}"), ("name", case_id)]
    if suite_file:
        attributes.append(("file", suite_file))
    check = view.checks.get((variant, case_id))
    children: list[str] = []
    if row.score is None:
        children.append(_leaf("error", _attributes([("message", _clean(f"no score: {row.error or 'the case failed'}")),
                                                    ("type", "case-error")]), _clean(row.error or "")))
    elif check is not None and not check.passed:
        children.append(_leaf("failure", _attributes([("message", _clean(check.message())), ("type", "per-case-rule")]),
                              _clean(check.details())))
    elif check is not None and check.unchecked:
        children.append(_leaf("skipped", _attributes([("message", _clean(check.skip_reason()))])))
    known = measured(row)  # the values computed when the case was scored
    if known is not None:
        values = [f'{opening}{_escape_attribute(_property(metric, known.value(metric.name)))}" />'
                  for metric, opening in properties]
        children.append(_nested("properties", "", values, 3))
    return _nested("testcase", _attributes(attributes), children, 2)
