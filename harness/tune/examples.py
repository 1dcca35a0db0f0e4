"""Deciding whether a model's answer may become a few-shot example.

Weak tuning models answer with refusals, summaries of the prompt's own examples or prose;
one such "example" poisons every later call. An answer is kept only when it parses with the
declared format, loses no record, ends with the completion delimiter, holds at least one
relationship, and its relationships name listed entities.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import ExtractedGraph
from ..parsing import parse

SUMMARY_HINTS = re.compile(
    r"\b(the (above|previous|given) examples?|in summary|to summari[sz]e|this (text|passage) (describes|is about)|"
    r"the examples (show|above))\b",
    re.I,
)


@dataclass
class ExampleVerdict:
    kept: bool
    reason: str  # "ok", or why it was rejected
    graph: ExtractedGraph


def judge_example(
    answer: str,
    *,
    format: str = "graphrag",
    tuple_delimiter: str = "<|>",
    record_delimiter: str = "##",
    completion_delimiter: str = "<|COMPLETE|>",
    entity_types: list[str] | None = None,
) -> ExampleVerdict:
    result = parse(answer, format, tuple_delimiter=tuple_delimiter, record_delimiter=record_delimiter,
                   completion_delimiter=completion_delimiter)
    graph, report = result.graph, result.format_report
    codes = {issue.code for issue in report.issues}
    if not graph.entities and not graph.relationships:
        if "refusal" in codes:
            return ExampleVerdict(False, "refusal: the answer declines instead of extracting", graph)
        if "empty-output" in codes or not answer.strip():
            return ExampleVerdict(False, "empty answer", graph)
        if SUMMARY_HINTS.search(answer):
            return ExampleVerdict(False, "summary: the answer describes the text or the examples instead of extracting", graph)
        return ExampleVerdict(False, "prose: no records in the declared format", graph)
    if report.records_dropped:
        dropped = sorted({i.code for i in report.issues if i.dropped})
        return ExampleVerdict(False, f"unparsable: {report.records_dropped} record(s) lost ({', '.join(dropped)})", graph)
    if report.completion != "present":
        return ExampleVerdict(False, f"completion delimiter {completion_delimiter} {report.completion}", graph)
    if {"preamble", "closing-note", "interleaved-prose", "prose-record"} & codes:
        return ExampleVerdict(False, "prose mixed with the records", graph)
    if not graph.relationships:
        return ExampleVerdict(False, "no relationship", graph)
    names = {e.name.strip().lower() for e in graph.entities}
    dangling = sorted({end for r in graph.relationships for end in (r.source, r.target) if end.strip().lower() not in names})
    if dangling:
        return ExampleVerdict(False, f"relationship to unlisted entity {dangling[0]}", graph)
    if entity_types:
        allowed = {t.lower() for t in entity_types}
        bad = sorted({e.type for e in graph.entities if e.type.lower() not in allowed})
        if bad:
            return ExampleVerdict(False, f"entity type(s) outside the list: {', '.join(bad)}", graph)
    return ExampleVerdict(True, "ok", graph)
