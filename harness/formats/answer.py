"""Parse one model answer in a registered format, or the one detected: `parse` never raises on a
string; what it cannot read it reports. It lives with the formats it picks among; the low-level
readers it and the formats use are `harness.parsing`."""

from __future__ import annotations

import traceback
from functools import cache

from harness.formats import AUTO, DEFAULT_FORMAT, format_names, is_format
from harness.model import ExtractedGraph, FormatIssue, FormatReport, ParseResult
from harness.formats.pipeline import run, written_triples
from harness.text import scrub_surrogates



def __getattr__(name: str) -> tuple[str, ...]:
    """`FORMATS`, what `parse` accepts as `format`: "auto" and every registered format
    (harness.formats), plugins' included; computed when first asked (then kept: the plugins are
    read once), since listing the plugins' reads the installed packages' metadata."""
    if name == "FORMATS":
        return _formats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _formats() -> tuple[str, ...]:
    return (AUTO, *format_names())


def _check(format: str) -> None:
    if format != AUTO and not is_format(format):
        raise ValueError(f"unknown format {format!r}; expected one of {', '.join((AUTO, *format_names()))}")


def parse(
    text: str,
    format: str = "auto",
    *,
    tuple_delimiter: str = "<|>",
    record_delimiter: str = "##",
    completion_delimiter: str = "<|COMPLETE|>",
    round: int = 0,
) -> ParseResult:
    """Parse one model answer. `format` is "auto" or a registered format (FORMATS); the result names the format used.

    Raises ValueError only for caller errors (an unknown `format`, an empty tuple delimiter);
    never for the text."""
    _check(format)
    if not tuple_delimiter:
        raise ValueError("tuple_delimiter must not be empty")
    try:
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        text = scrub_surrogates(text)  # the text policy: see harness/text.py
        return run(text, format, tuple_delimiter, record_delimiter, completion_delimiter, round)
    except Exception as exc:  # the design's rule: nothing a model writes may raise
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else "?"
        used = format if format != AUTO and is_format(format) else DEFAULT_FORMAT
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



def triples_as_written(
    text: str,
    format: str = "auto",
    *,
    tuple_delimiter: str = "<|>",
    record_delimiter: str = "##",
    completion_delimiter: str = "<|COMPLETE|>",
    round: int = 0,
) -> list[tuple[str, str, str]]:
    """The (subject, predicate, object) triples `parse` reads in an answer of a triple format,
    each part as the answer writes it: a JSON string exactly as it is, a part of a line format
    without only the separating spaces and the one pair of quotes that delimit it, where `parse`
    also trims and unquotes inside for the names it keeps. A benchmark that scores the strings as
    written (Text2KGBench's run_eval.py keeps `" \\"1. FC Magdeburg\\""` as it is) reads these,
    so JSON answer text gives it what a `triples` field gives. [] for an answer of another
    format; never raises on the text (as `parse`)."""
    _check(format)
    try:
        text = scrub_surrogates("" if text is None else str(text))
        return written_triples(text, format, tuple_delimiter, record_delimiter, completion_delimiter, round)
    except Exception:  # the design's rule: nothing a model writes may raise (`parse` reports it)
        return []
