"""Parse what extraction models answer: GraphRAG and LightRAG delimited records, JSON, claims and
community reports. `parse` never raises on a string; what it cannot read it reports.

Public API: parse, parse_result_to_json, has_format_errors (the one definition of format errors,
also format_error_reasons), detect_format, audit_cache
(see harness.parsing.audit), and the format codes in harness.parsing.issues.CODES.
"""

from __future__ import annotations

import traceback

from harness.model import ExtractedGraph, FormatIssue, FormatReport, ParseResult
from harness.parsing.audit import audit_cache
from harness.parsing.detect import detect_format
from harness.parsing.issues import CODES
from harness.parsing.pipeline import run
from harness.parsing.parse_result_json import parse_result_to_json
from harness.text import scrub_surrogates
from harness.parsing.verdict import format_error_reasons, has_format_errors

FORMATS = ("auto", "graphrag", "lightrag", "json", "claims", "report")

__all__ = [
    "CODES",
    "FORMATS",
    "audit_cache",
    "detect_format",
    "format_error_reasons",
    "has_format_errors",
    "parse",
    "parse_result_to_json",
]


def parse(
    text: str,
    format: str = "auto",
    *,
    tuple_delimiter: str = "<|>",
    record_delimiter: str = "##",
    completion_delimiter: str = "<|COMPLETE|>",
    round: int = 0,
) -> ParseResult:
    """Parse one model answer. `format` is one of FORMATS; the result names the format used.

    Raises ValueError only for caller errors (an unknown `format`, an empty tuple delimiter);
    never for the text."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")
    if not tuple_delimiter:
        raise ValueError("tuple_delimiter must not be empty")
    try:
        return _parse(text, format, tuple_delimiter, record_delimiter, completion_delimiter, round)
    except Exception as exc:  # the design's rule: nothing a model writes may raise
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else "?"
        used = format if format in FORMATS and format != "auto" else "graphrag"
        return ParseResult(
            format=used,
            graph=ExtractedGraph(),
            format_report=FormatReport(
                format=used,
                completion="missing",
                issues=[
                    FormatIssue(
                        code="internal-error",
                        message=f"{type(exc).__name__}: {exc} ({where})"[:300],
                        excerpt=str(text)[:160] if isinstance(text, str) else "",
                        round=round,
                        dropped=False,
                    )
                ],
            ),
        )


def _parse(text: str, fmt: str, td: str, rd: str, cd: str, round: int) -> ParseResult:
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = scrub_surrogates(text)  # the text policy: see harness/text.py
    return run(text, fmt, td, rd, cd, round)

