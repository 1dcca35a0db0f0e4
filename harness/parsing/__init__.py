"""The low-level readers of what extraction models answer: delimited records, JSON (whole or in
pieces), triples, prose, completion markers, and the issue codes they report. They know no
output format: the formats (harness.formats) build on them, and `parse` (which picks a format and
never raises on a string) is `harness.formats.answer.parse`.

Public API: parse_result_to_json, has_format_errors (the one definition of format errors, also
format_error_reasons), and the format codes in harness.parsing.codes.FORMAT_CODES.

A lazy facade (harness.lazy_exports): importing one submodule, as the format modules do, does not
import the whole pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy_exports import lazy_facade

# The public names, bound on first use. `lazy_facade` reads this block: it is the only list of the names.
if TYPE_CHECKING:
    from .codes import FORMAT_CODES
    from .parse_result_json import parse_result_to_json
    from .verdict import format_error_reasons, has_format_errors

__getattr__, __dir__, __all__ = lazy_facade(__name__, __file__)
