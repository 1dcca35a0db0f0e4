"""Parse what extraction models answer: GraphRAG and LightRAG delimited records, JSON, claims and
community reports (one module per format in harness.formats). `parse` never raises on a string;
what it cannot read it reports.

Public API: parse, FORMATS, parse_result_to_json, has_format_errors (the one definition of format
errors, also format_error_reasons), detect_format, audit_cache (see harness.parsing.audit), and
the format codes in harness.parsing.codes.CODES.

A lazy facade (harness.lazy_exports): importing one submodule, as the format modules do, does not
import the whole pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy_exports import lazy_exports

_EXPORTS = {
    "CODES": (".codes", "CODES"),
    "FORMATS": (".answer", "FORMATS"),
    "audit_cache": (".audit", "audit_cache"),
    "detect_format": ("harness.formats", "detect_format"),
    "format_error_reasons": (".verdict", "format_error_reasons"),
    "has_format_errors": (".verdict", "has_format_errors"),
    "parse": (".answer", "parse"),
    "parse_result_to_json": (".parse_result_json", "parse_result_to_json"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from harness.formats import detect_format
    from harness.parsing.answer import FORMATS, parse
    from harness.parsing.audit import audit_cache
    from harness.parsing.codes import CODES
    from harness.parsing.parse_result_json import parse_result_to_json
    from harness.parsing.verdict import format_error_reasons, has_format_errors

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
