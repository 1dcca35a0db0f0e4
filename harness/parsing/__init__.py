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

from harness.lazy_exports import lazy_exports

# public name -> the module it lives in (each name is the same in both places)
_HOMES: dict[str, tuple[str, ...]] = {
    ".answer": ("FORMATS", "parse"),
    ".audit": ("audit_cache",),
    ".codes": ("CODES",),
    ".parse_result_json": ("parse_result_to_json",),
    ".verdict": ("format_error_reasons", "has_format_errors"),
    "harness.formats": ("detect_format",),
}
_EXPORTS = {name: (module, name) for module, names in _HOMES.items() for name in names}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
