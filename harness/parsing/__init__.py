"""Parse what extraction models answer: GraphRAG and LightRAG delimited records, JSON, claims and
community reports (one module per format in harness.formats). `parse` never raises on a string;
what it cannot read it reports.

Public API: parse, triples_as_written (a triple format's parts as written), FORMATS, parse_result_to_json, has_format_errors (the one definition of format
errors, also format_error_reasons), detect_format, and the format codes in harness.parsing.codes.CODES.

A lazy facade (harness.lazy_exports): importing one submodule, as the format modules do, does not
import the whole pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy_exports import lazy_facade

# The public names, bound on first use. `lazy_facade` reads this block: it is the only list of the names.
if TYPE_CHECKING:
    from .answer import FORMATS, parse, triples_as_written
    from .codes import CODES
    from .parse_result_json import parse_result_to_json
    from .verdict import format_error_reasons, has_format_errors
    from harness.formats import detect_format

__getattr__, __dir__, __all__ = lazy_facade(__name__, __file__)
