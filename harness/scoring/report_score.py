"""A community report against its case's community context (docs/scoring.md, "Community reports").

`case.text` is the context the prompt was filled with, in GraphRAG's layout (tables of
Entities, Claims, Relationships or Sources, each with the ids a report cites: see
`checks.citations.read_context_tables`); `text` is the raw answer and `graph.report` the report
the `report` format read from it. Nothing here needs gold except the facts (`case.facts`).
Citations are counted by `checks.citations.count_citations`, per dataset too; names of the
prompt's own worked example (`checks.citations.example_table_names`) that the report uses and the
context does not hold are counted as copied.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.checks.citations import (
    CitationCount,
    ContextTables,
    count_citations,
    example_table_names,
    read_context_tables,
    report_parts,
)
from harness.formats.report import MAX_FINDINGS, MIN_FINDINGS, report_object_from_text, report_schema_issues
from harness.parsing.cleanup import clean
from harness.parsing.issues_log import IssueLog
from harness.parsing.json_output import load_json
from harness.model import CommunityReport, ExtractedGraph, GoldCase, ReportScore
from harness.content_words import facts_found
from harness.scoring.normalize import normalize_name, normalize_text, occurs_in

# The datasets each report prompt cites (GraphRAG's community_report and community_report_text)
GRAPH_DATASETS: tuple[str, ...] = ("Entities", "Relationships", "Claims", "Reports")
TEXT_UNIT_DATASETS: tuple[str, ...] = ("Sources", "Reports")

RATING_RANGE = (0.0, 10.0)
_POSSESSIVE = re.compile(r"['\u2019]s\b")

# Schema problems: the report object lacks a field or holds one of the wrong type. The rating's
# range and the number of findings are figures of their own; extra fields are tolerated (GraphRAG
# reads the fields it knows).
_SCHEMA_CODES = frozenset(
    {"report-not-object", "report-missing-field", "report-field-type", "report-rating-invalid", "report-finding-invalid"}
)


def score_report(case: GoldCase, text: str, graph: ExtractedGraph, *, datasets: Sequence[str],
                 language: str = "English", examples: str | None = None) -> ReportScore:
    """The report figures of one case; `datasets` are the dataset names the prompt asks to cite,
    `language` the one its gold facts are stemmed in, `examples` the prompt as sent without the
    context (its worked example: None when not known, and the names copied from it are n/a)."""
    tables = read_context_tables(case.text)
    report = graph.report
    schema_ok, problems = _schema(text, report)
    rating = report.rating if report is not None else None
    findings = report.findings if report is not None else []
    cites, findings_cited = _citations(report, tables, datasets) if report is not None else (CitationCount(), 0)
    body = _report_text(report) if report is not None else ""
    names = tables.entity_names
    copied = None if examples is None else _example_names(examples, body, case.text)
    return ReportScore(
        schema_ok=schema_ok,
        schema_problems=problems,
        rating=rating,
        rating_in_range=None if rating is None else RATING_RANGE[0] <= rating <= RATING_RANGE[1],
        findings=len(findings),
        findings_in_range=MIN_FINDINGS <= len(findings) <= MAX_FINDINGS,
        findings_cited=findings_cited,
        references=cites.references,
        overlong_references=cites.overlong,
        unknown_datasets=cites.unknown_datasets,
        malformed_citations=cites.malformed,
        citations=cites.ids,
        citations_invalid=cites.invalid if tables.ids else None,
        citations_invalid_by_dataset=cites.invalid_by_dataset if tables.ids else None,
        example_names=None if copied is None else len(copied),
        example_names_found=copied or [],
        context_entities=len(names),
        entities_covered=_covered(names, body),
        gold_facts=len(case.facts),
        gold_facts_found=facts_found(case.facts, body, language=language) if case.facts else 0,
    )


def _schema(text: str, report: CommunityReport | None) -> tuple[bool, list[str]]:
    """Schema problems of the answer's report object; a report cut off mid-way (the reader closes
    the JSON to recover what it can) is one too, whatever the recovered object holds."""
    obj = report_object_from_text(text)
    if obj is None or report is None:
        return False, ["no report object in the answer"]
    problems = [i.message for i in report_schema_issues(obj) if i.code in _SCHEMA_CODES]
    if _cut_off(text):
        problems.insert(0, "the answer was cut off; its JSON was closed to read it")
    return not problems, problems


def _cut_off(text: str) -> bool:
    log = IssueLog()
    cleaned, _ = clean(text, log)
    load_json(cleaned, log)
    return log.has("json-truncated")


def _citations(report: CommunityReport, tables: ContextTables, datasets: Sequence[str]) -> tuple[CitationCount, int]:
    """The citations of every part of the report, and how many findings cite a valid record."""
    checkable = bool(tables.ids)
    out = CitationCount()
    findings_cited = 0
    for where, part in report_parts(report):
        found = count_citations(part, tables, datasets, checkable=checkable)
        out.add(found)
        findings_cited += where.startswith("finding") and found.valid > 0
    return out, findings_cited


def _example_names(examples: str, body: str, context: str) -> list[str]:
    """Names of the prompt's worked example (its tables) that the report uses and the community's
    context does not hold: copied from GraphRAG's example report, not reported from the data."""
    said = normalize_text(_POSSESSIVE.sub("", body))
    given = normalize_text(context)
    return [name for name in example_table_names(examples)
            if occurs_in(normalize_name(name), said) and not occurs_in(normalize_name(name), given)]


def _report_text(report: CommunityReport) -> str:
    parts = [report.title, report.summary, report.rating_explanation]
    parts += [f"{f.summary}\n{f.explanation}" for f in report.findings]
    return "\n".join(parts)


def _covered(names: Sequence[str], body: str) -> int:
    """Context entities the report names: the normalised name as whole words of the normalised
    text, a possessive 's taken off first ("Tessellate's" names TESSELLATE)."""
    if not names:
        return 0
    padded = f" {normalize_text(_POSSESSIVE.sub('', body))} "
    return sum(1 for name in names if f" {normalize_name(name)} " in padded)
