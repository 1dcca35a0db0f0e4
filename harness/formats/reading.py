"""Reading procedures several formats share: tuple-delimited records (GraphRAG, claims, LightRAG)
and one JSON value with optional completion marks (JSON graph, community report)."""

from __future__ import annotations

from collections.abc import Callable

from harness.formats.base import GRAPHRAG_TUPLE, Delimiters, ReadOutcome
from harness.model import CommunityReport
from harness.parsing.cleanup import fill_placeholders
from harness.parsing.completion import find_marks, settle_completion
from harness.parsing.delimited import Layout, ParsedRecords, parse_delimited
from harness.parsing.detect import is_lightrag_new
from harness.parsing.issues_log import IssueLog
from harness.parsing.json_output import Loaded
from harness.parsing.lightrag_records import LIGHTRAG_TUPLE, parse_lightrag


def read_delimited_answer(
    name: str, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, layout: Layout | None, detected: bool
) -> ReadOutcome:
    """Records separated by the tuple and record delimiters, ended by the completion delimiter.
    A LightRAG answer written the >= 1.4.8 way (`entity<|#|>...`) is read line by line; an
    answer guessed to be GraphRAG whose records turn out LightRAG-shaped is reported as LightRAG."""
    td, rd, cd = delimiters.tuple, delimiters.record, delimiters.completion
    text = fill_placeholders(text, td, rd, cd, log)
    lightrag_lines = name == "lightrag" and ((td != GRAPHRAG_TUPLE and td in text) or is_lightrag_new(text))
    effective_td = (td if td != GRAPHRAG_TUPLE else LIGHTRAG_TUPLE) if lightrag_lines else td
    body, check = settle_completion(text, cd, effective_td, log)
    if check.trailing_text:
        log.note("closing-note", check.trailing_text)
    used = name
    if lightrag_lines:
        records = parse_lightrag(body, log, tuple_delimiter=effective_td, round=round)
    else:
        records = parse_delimited(body, log, tuple_delimiter=td, record_delimiter=rd, layout=layout, round=round)
        if detected and records.layout == "lightrag":
            used = "lightrag"
    return ReadOutcome(records, None, check.status, used)


JsonValueReader = Callable[[str], tuple[ParsedRecords, CommunityReport | None, Loaded | None]]


def read_json_answer(name: str, text: str, delimiters: Delimiters, log: IssueLog, read_value: JsonValueReader) -> ReadOutcome:
    """One JSON value, read by `read_value`. Completion marks are optional: when the answer has
    some, they decide the completion status; otherwise the answer is complete when its JSON is
    (read and not cut off)."""
    cd = delimiters.completion
    marks = find_marks(text, cd) if cd else []
    check = None
    if marks:
        text, check = settle_completion(text, cd, delimiters.tuple, log, marks)
    records, report, loaded = read_value(text)
    if check is not None:
        completion = check.status
    else:
        completion = "present" if loaded is not None and not loaded.truncated else "missing"
    return ReadOutcome(records, report, completion, name)
