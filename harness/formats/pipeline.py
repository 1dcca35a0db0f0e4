"""The parse pipeline: clean, detect, let the format read its records, assemble the result.

What differs by format (delimiters, completion rule, record reader) is asked of the format's
registry entry (harness.formats); this module holds what every answer goes through."""

from __future__ import annotations

from harness.formats import AUTO, DEFAULT_FORMAT, detect_format, get_format
from harness.formats.base import Delimiters, OutputFormat, ReadOutcome
from harness.model import CommunityReport, CompletionStatus, ExtractedGraph, FormatReport, ParseResult
from harness.parsing.cleanup import clean, is_refusal
from harness.parsing.completion import settle_completion
from harness.parsing.delimited import ParsedRecords
from harness.parsing.issues_log import IssueLog
from harness.parsing.prose import report_prose_records


def _only_completion(text: str, cd: str, rd: str) -> bool:
    """Nothing but completion delimiters (and record delimiters, separators) in the text."""
    if not cd or cd not in text or len(text) > 10 * len(cd) + 200:
        return False
    rest = text.replace(cd, "")
    if rd:
        rest = rest.replace(rd, "")
    return not rest.strip(" \t\n.")


def run(text: str, fmt: str, td: str, rd: str, cd: str, round: int) -> ParseResult:
    log = IssueLog(round)
    asked = None if fmt == AUTO else get_format(fmt)
    if not text or text.isspace():
        log.note("empty-output", text)
        return _result(asked.name if asked else DEFAULT_FORMAT, ParsedRecords(), None, "missing", log)
    cleaned, _reasoning = clean(text, log)
    if not (asked and asked.single_object) and _only_completion(cleaned, cd, rd):
        # "<|COMPLETE|>" alone: the model found nothing, and said so in the expected form.
        _body, check = settle_completion(cleaned, cd, td, log)
        log.note("empty-extraction", text)
        return _result(asked.name if asked else DEFAULT_FORMAT, ParsedRecords(), None, check.status, log)
    chosen, outcome = _read(cleaned, asked, td, rd, cd, log, round)
    graph, report = outcome.records, outcome.report
    if graph.seen == 0 and report is None and chosen.delimited and graph.prose:
        graph.seen += report_prose_records(graph.prose, log)
    if graph.seen == 0 and report is None:
        stripped = cleaned.strip()
        if not stripped:
            log.note("empty-output", text)
        elif is_refusal(stripped):
            log.note("refusal", stripped)
        elif not chosen.single_object and not log.has("no-triples"):
            log.note("no-records", stripped)
    return _result(outcome.format, graph, report, outcome.completion, log)


def _read(cleaned: str, asked: OutputFormat | None, td: str, rd: str, cd: str, log: IssueLog,
          round: int) -> tuple[OutputFormat, ReadOutcome]:
    """The cleaned answer read by the format asked for, else by the one detected."""
    chosen = asked or get_format(detect_format(cleaned, td))
    return chosen, chosen.read(cleaned, Delimiters(td, rd, cd), log, round, detected=asked is None)


def written_triples(text: str, fmt: str, td: str, rd: str, cd: str, round: int) -> list[tuple[str, str, str]]:
    """The triples `run` reads in the answer, each part as written (ParsedRecords.written): the
    same cleaning, detection and reader, so the same triples; none where the format holds none."""
    if not text or text.isspace():
        return []
    log = IssueLog(round)
    cleaned, _reasoning = clean(text, log)
    asked = None if fmt == AUTO else get_format(fmt)
    if not (asked and asked.single_object) and _only_completion(cleaned, cd, rd):
        return []
    return _read(cleaned, asked, td, rd, cd, log, round)[1].records.written


def _result(
    used: str, graph: ParsedRecords, report: CommunityReport | None, completion: CompletionStatus, log: IssueLog
) -> ParseResult:
    issues = log.issues()
    fr = FormatReport(
        format=used,
        records_seen=graph.seen,
        records_parsed=graph.parsed,
        records_dropped=log.dropped_count,
        completion=completion,
        issues=issues,
    )
    return ParseResult(
        format=used,
        graph=ExtractedGraph(
            entities=graph.entities, relationships=graph.relationships, claims=graph.claims, report=report
        ),
        format_report=fr,
    )
