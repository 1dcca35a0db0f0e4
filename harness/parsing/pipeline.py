"""The parse pipeline: clean, detect, read records, settle completion, assemble the result."""

from __future__ import annotations

from harness.checks.completion import CompletionCheck, CompletionMark, check_completion, find_marks
from harness.model import CommunityReport, CompletionStatus, ExtractedGraph, FormatReport, ParseResult
from harness.parsing.cleanup import clean, fill_placeholders, is_refusal
from harness.parsing.delimited import ParsedRecords, Layout, parse_delimited
from harness.parsing.detect import detect_format, is_lightrag_new
from harness.parsing.issues_log import IssueLog
from harness.parsing.json_output import parse_json_graph
from harness.parsing.prose import report_prose_records
from harness.parsing.lightrag import LIGHTRAG_TUPLE, parse_lightrag
from harness.parsing.report import parse_report



def _remove_marks(text: str, check: CompletionCheck) -> str:
    if not check.marks:
        return text
    parts: list[str] = []
    pos = 0
    for m in check.marks:
        parts.append(text[pos : m.start])
        parts.append("\n")
        pos = m.end
    parts.append(text[pos:])
    return "".join(parts)


def _only_completion(text: str, cd: str, rd: str) -> bool:
    """Nothing but completion delimiters (and record delimiters, separators) in the text."""
    if not cd or cd not in text or len(text) > 10 * len(cd) + 200:
        return False
    rest = text.replace(cd, "")
    if rd:
        rest = rest.replace(rd, "")
    return not rest.strip(" \t\n.")


def _settle_completion(
    text: str, cd: str, td: str, log: IssueLog, marks: list[CompletionMark] | None = None
) -> tuple[str, CompletionCheck]:
    if marks is None:
        marks = find_marks(text, cd)
    check = check_completion(text, cd, tuple_delimiter=td, marks=marks)
    for code in check.codes:
        log.note(code, text[check.marks[-1].start :] if check.marks else text[-80:])
    return _remove_marks(text, check), check


def run(text: str, fmt: str, td: str, rd: str, cd: str, round: int) -> ParseResult:
    log = IssueLog(round)
    if not text or text.isspace():
        log.note("empty-output", text)
        return _result(fmt if fmt != "auto" else "graphrag", ParsedRecords(), None, "missing", log)
    cleaned, _reasoning = clean(text, log)
    if fmt != "report" and _only_completion(cleaned, cd, rd):
        # "<|COMPLETE|>" alone: the model found nothing, and said so in the expected form.
        _body, check = _settle_completion(cleaned, cd, td, log)
        log.note("empty-extraction", text)
        return _result(fmt if fmt != "auto" else "graphrag", ParsedRecords(), None, check.status, log)
    used = detect_format(cleaned, td) if fmt == "auto" else fmt
    graph = ParsedRecords()
    report = None
    if used in ("json", "report"):
        marks = find_marks(cleaned, cd) if cd else []
        body, check = _settle_completion(cleaned, cd, td, log, marks) if marks else (cleaned, None)
        if used == "report":
            report, loaded, seen, parsed = parse_report(body, log)
            graph.seen, graph.parsed = seen, parsed
        else:
            graph, loaded = parse_json_graph(body, log, round=round)
        if check is not None:
            completion = check.status
        else:
            completion = "present" if loaded is not None and not loaded.truncated else "missing"
    else:
        cleaned = fill_placeholders(cleaned, td, rd, cd, log)
        lightrag_new = used == "lightrag" and (
            (td != "<|>" and td in cleaned) or is_lightrag_new(cleaned)
        )
        effective_td = (td if td != "<|>" else LIGHTRAG_TUPLE) if lightrag_new else td
        body, check = _settle_completion(cleaned, cd, effective_td, log)
        completion = check.status
        if check.trailing_text:
            log.note("closing-note", check.trailing_text)
        if lightrag_new:
            graph = parse_lightrag(body, log, tuple_delimiter=effective_td, round=round)
        else:
            layout: Layout | None = "claims" if used == "claims" else ("lightrag" if used == "lightrag" else None)
            graph = parse_delimited(body, log, tuple_delimiter=td, record_delimiter=rd, layout=layout, round=round)
            if fmt == "auto" and graph.layout == "lightrag":
                used = "lightrag"
    if graph.seen == 0 and report is None and used not in ("json", "report") and graph.prose:
        graph.seen += report_prose_records(graph.prose, log)
    if graph.seen == 0 and report is None:
        stripped = cleaned.strip()
        if not stripped:
            log.note("empty-output", text)
        elif is_refusal(stripped):
            log.note("refusal", stripped)
        elif used != "report":
            log.note("no-records", stripped)
    return _result(used, graph, report, completion, log)


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
