"""Each kind of cached answer read with its own parser: extraction and continuation answers with
harness.formats.answer.parse in the engine's format (and the engine's own parser beside it), summaries
with the summary checks (prose, any language), reports with the report format, claims with the
claims format, query answers with the query-phase checks, loop answers as the engine reads Y/N.
Pure: an entry and its kind in, an EntryAudit out."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from harness.cache_audit.classify import Kind, shape_kind
from harness.cache_audit.engines import COMPLETION, GRAPHRAG_RECORD, GRAPHRAG_TUPLE, LIGHTRAG_TUPLE, engine_parser
from harness.cache_audit.entry import CacheEntry, EntryAudit
from harness.inputfiles import loads

# Issue codes that say what a read answer breaks of the prompt's rules, not that it could not be
# read: they go to EntryAudit.content, never to its parse problems (a report with 4 findings
# where the prompt asks 5-10 was parsed).
CONTENT_CODES: frozenset[str] = frozenset({
    "report-findings-count", "report-rating-range", "summary-too-long", "summary-missing-entity", "query-score-range",
    "citation-too-many-ids", "citation-unknown-dataset", "citation-unknown-id", "citation-missing",
    "citation-malformed", "citation-bad-id",
})
DEFAULT_SUMMARY_WORDS = 500  # GraphRAG's default max_length for summarize_descriptions
_NAME_LINE = re.compile(r"^\s*(?:Entities|Entity Name|Entity|Relation Name|Relationship Name)\s*:\s*(.+?)\s*$", re.M | re.I)
_WORD_LIMIT = re.compile(r"length to (\d+) words|(?:fewer|less) than (\d+) words", re.I)


def _issue_codes(issues: list[Any]) -> list[str]:
    return sorted({i.code for i in issues})


def _file(audit: EntryAudit, reasons: list[str]) -> None:
    """Put each reason among the parse problems or the content findings, by its code."""
    for reason in reasons:
        (audit.content if reason.split(":", 1)[0] in CONTENT_CODES else audit.problems).append(reason)


def _extraction(entry: CacheEntry, audit: EntryAudit) -> None:
    from harness.parsing import format_error_reasons
    from harness.formats.answer import parse

    answer = entry.answer or ""
    if entry.engine == "lightrag" and LIGHTRAG_TUPLE in answer:
        result = parse(answer, "lightrag", tuple_delimiter=LIGHTRAG_TUPLE, record_delimiter="\n", completion_delimiter=COMPLETION)
    elif entry.engine == "lightrag":
        result = parse(answer, "lightrag", tuple_delimiter=GRAPHRAG_TUPLE, record_delimiter=GRAPHRAG_RECORD,
                       completion_delimiter=COMPLETION)
    else:
        result = parse(answer, "graphrag")
    report = result.format_report
    audit.problems += format_error_reasons(report)
    audit.recovered_entities = len(result.graph.entities)
    audit.recovered_relationships = len(result.graph.relationships)
    name, count = engine_parser(entry.engine, answer)
    kept = count(answer)
    audit.engine_parser = name
    audit.engine_entities, audit.engine_relationships = kept.entities, kept.relationships
    audit.engine_weight_fallbacks = kept.weight_fallbacks
    lost = audit.lost_silently or 0
    if lost:
        # LightRAG >= 1.4.8 logs a warning for a record of the wrong field count; GraphRAG and the
        # older LightRAG parser drop records without a word
        how = "drops with a format warning in its log" if name == "lightrag>=1.4.8" else "drops without a word"
        audit.findings.append(f"engine-lost: {lost} record(s) we recover that {name} {how}")
    if kept.weight_fallbacks:
        audit.findings.append(f"weight-fallback: {kept.weight_fallbacks} weight(s) set to 1.0 by {name}")
    audit.parsed = {
        "format": result.format, "entities": audit.recovered_entities, "relationships": audit.recovered_relationships,
        "records_seen": report.records_seen, "records_parsed": report.records_parsed,
        "records_dropped": report.records_dropped, "completion": report.completion,
        "issues": _issue_codes(report.issues),
    }


def summary_names(request: str | None) -> list[str]:
    """The entity (or both ends of a relationship) a summarize prompt asks about: GraphRAG's
    `Entities: "NAME"` or `["A", "B"]`, LightRAG's `Entity Name: NAME`; [] when not stored."""
    if not request:
        return []
    match = _NAME_LINE.search(request)
    if match is None:
        return []
    value = match.group(1)
    try:
        loaded = loads(value)  # the JSON policy: nesting and integer length bounded
    except ValueError:
        return [value.strip().strip("\"'")]
    if isinstance(loaded, str):
        return [loaded]
    if isinstance(loaded, list) and all(isinstance(v, str) for v in loaded):
        return list(loaded)
    return []


def summary_word_limit(request: str | None) -> int:
    match = _WORD_LIMIT.search(request or "")
    return int(match.group(1) or match.group(2)) if match else DEFAULT_SUMMARY_WORDS


def _summary(entry: CacheEntry, audit: EntryAudit) -> None:
    from harness.checks.query import check_summary, count_words

    answer = entry.answer or ""
    names = summary_names(entry.request)
    limit = summary_word_limit(entry.request)
    issues = check_summary(answer, names, max_words=limit)
    _file(audit, _issue_codes(issues))
    if shape_kind(answer).kind == "extraction":  # read as prose, but it is not a summary
        audit.content.append("summary-is-records: the summary is written as extraction records")
    audit.parsed = {"words": count_words(answer.strip()), "max_words": limit, "names": names}


def _report(entry: CacheEntry, audit: EntryAudit) -> None:
    from harness.parsing import format_error_reasons
    from harness.formats.answer import parse

    result = parse(entry.answer or "", "report")
    _file(audit, format_error_reasons(result.format_report))
    report = result.graph.report
    if report is not None and entry.request:
        unknown = _unknown_ids(report, entry.request)
        if unknown:
            audit.content.append(unknown)
    audit.parsed = {
        "report": report is not None,
        "findings": len(report.findings) if report is not None else None,
        "rating": report.rating if report is not None else None,
        "issues": _issue_codes(result.format_report.issues),
    }


def _unknown_ids(report: Any, request: str) -> str | None:
    """The report's citations of records its community's tables (the context in the stored
    prompt, under GraphRAG's `-----Entities-----` headers) do not hold, as a content finding;
    None when every id is one of them or the prompt holds no such table to check against."""
    from harness.checks.citations import DEFAULT_DATASETS, CitationCount, count_citations, read_context_tables, report_parts

    tables = read_context_tables(request)
    if not tables.ids:
        return None
    found = CitationCount()
    for _, part in report_parts(report):
        found.add(count_citations(part, tables, DEFAULT_DATASETS, checkable=True))
    if not found.invalid:
        return None
    where = ", ".join(f"{dataset} {count}" for dataset, count in found.invalid_by_dataset.items())
    return f"citation-unknown-id: {found.invalid} cited id(s) that the community's tables do not hold ({where})"


def _claims(entry: CacheEntry, audit: EntryAudit) -> None:
    from harness.parsing import format_error_reasons
    from harness.formats.answer import parse

    result = parse(entry.answer or "", "claims")
    audit.problems += format_error_reasons(result.format_report)
    audit.parsed = {"claims": len(result.graph.claims), "completion": result.format_report.completion,
                    "issues": _issue_codes(result.format_report.issues)}


_ASKS_YES = re.compile(r"\bYES\b")


def engine_loop_reading(engine: str, answer: str, request: str | None = None) -> bool:
    """Whether the engine reads this loop answer as "yes, glean again". GraphRAG compares the
    answer exactly (no stripping) with "YES" up to 1.0.x, whose loop prompt asks for YES or NO,
    and with "Y" from 1.1 (the prompt asks for Y or N): the stored loop prompt says which; without
    it (3.x) "Y", and "YES" for 0.x. LightRAG lower-cases and strips quotes and spaces, then
    compares with "yes"."""
    if engine == "lightrag":
        return answer.strip().strip('"').strip("'").lower() == "yes"
    if request:
        return answer == ("YES" if _ASKS_YES.search(request) else "Y")
    return answer == ("YES" if engine == "graphrag-0.x" else "Y")


def _loop(entry: CacheEntry, audit: EntryAudit) -> None:
    answer = entry.answer or ""
    meant_yes = answer.strip().strip("\"'.!").lower() in ("y", "yes")
    read_yes = engine_loop_reading(entry.engine, answer, entry.request)
    if not shape_kind(answer).kind == "loop":
        audit.problems.append("loop-not-y-n: the loop answer is not a bare Y or N")
    elif meant_yes and not read_yes:  # read, but the engine reads it otherwise: an engine finding
        audit.findings.append(f"loop-misread: {answer.strip()!r} means yes but {entry.engine} reads it as no (gleaning stops)")
    audit.parsed = {"answer": answer.strip()[:20], "engine_reads_yes": read_yes}


def _embedding(entry: CacheEntry, audit: EntryAudit) -> None:
    audit.parsed = {"vectors": entry.vectors, "dimensions": entry.dimensions}
    if entry.vectors == 0:
        audit.problems.append("embedding-empty: no vectors")


def _query(entry: CacheEntry, audit: EntryAudit, query_kind: str | None) -> None:
    from harness.checks.query import check_drift_response, check_map_response, check_rate_response, load_answer

    answer = entry.answer or ""
    if query_kind == "map":
        issues = check_map_response(answer)
    elif query_kind in ("drift", "drift-local"):
        issues = check_drift_response(answer, kind="primer" if query_kind == "drift" else "local")
    elif query_kind == "rate":
        issues = check_rate_response(answer)
    elif query_kind == "keywords":
        value, issues = load_answer(answer)
        if isinstance(value, dict):
            missing = [k for k in ("high_level_keywords", "low_level_keywords") if not isinstance(value.get(k), list)]
            if missing:
                audit.problems.append(f"query-missing-field: no list {', '.join(missing)}")
            audit.parsed = {k: len(value[k]) for k in ("high_level_keywords", "low_level_keywords") if isinstance(value.get(k), list)}
    else:  # a free-text answer (local, global reduce, basic, LightRAG's modes)
        issues = []
        if not answer.strip():
            audit.problems.append("query-empty: the answer is empty")
    _file(audit, _issue_codes(issues))


# the parser of each call kind but queries (whose parser also takes the query's kind)
_READERS: dict[str, Callable[[CacheEntry, EntryAudit], None]] = {
    "extraction": _extraction, "continuation": _extraction, "summary": _summary, "report": _report,
    "claims": _claims, "loop": _loop, "embedding": _embedding,
}


def audit_entry(entry: CacheEntry, kind: Kind) -> EntryAudit:
    """Read one entry with its kind's parser."""
    audit = EntryAudit(
        id=entry.id, engine=entry.engine, layout=entry.layout, kind=kind.kind, model=entry.model,
        kind_source=kind.source, query_kind=kind.query_kind,
    )
    reader = _READERS.get(kind.kind)
    if reader is not None:
        reader(entry, audit)
    elif kind.kind == "query":
        _query(entry, audit, kind.query_kind)
    else:
        audit.problems.append("kind-unknown: nothing in the entry says what call it was")
    audit.parsed_ok = not audit.problems
    return audit
