"""The registry of output formats: every format the harness can read, prompt for and tune.

A format is one module of this package defining an `OutputFormat` subclass (see base.py), plus
one line in `_REGISTERED` below. Everything that differs by format asks here: the parser
(`harness.formats.pipeline`, behind `harness.formats.answer.parse`), detection of "auto" answers (`detect_format`), example writing and
delimiter defaults (`harness.prompts`), lint, `VariantSpec.format` validation, and tuning.
"""

from __future__ import annotations

from harness.formats.base import DetectionContext, DetectionRule, OutputFormat
from harness.formats.claims import ClaimsFormat
from harness.formats.function import FunctionFormat
from harness.formats.graphrag import GraphRAGFormat
from harness.formats.json_graph import JsonGraphFormat
from harness.formats.json_triples import JsonTriplesFormat
from harness.formats.lightrag import LightRAGFormat
from harness.formats.llamaindex import LlamaIndexFormat
from harness.formats.map_points import MapPointsFormat
from harness.formats.report import ReportFormat
from harness.formats.summary import SummaryFormat
from harness.formats.triple_table import TripleTableFormat

# Registration order: the order formats are listed in, and ties between detection rules.
_REGISTERED: tuple[OutputFormat, ...] = (
    GraphRAGFormat(),
    LightRAGFormat(),
    JsonGraphFormat(),
    ClaimsFormat(),
    ReportFormat(),
    LlamaIndexFormat(),
    FunctionFormat(),
    JsonTriplesFormat(),
    TripleTableFormat(),
    SummaryFormat(),  # never detected: chosen by the template or the suite kind
    MapPointsFormat(),  # never detected: chosen by the template or the suite kind
)
_BY_NAME: dict[str, OutputFormat] = {f.name: f for f in _REGISTERED}
AUTO = "auto"
# What an answer no detection rule recognises is read as.
DEFAULT_FORMAT = "graphrag"
_RULES: tuple[tuple[DetectionRule, OutputFormat], ...] = tuple(
    sorted(((rule, f) for f in _REGISTERED for rule in f.detection_rules), key=lambda pair: pair[0].priority)
)


def format_names() -> tuple[str, ...]:
    """The registered formats' names, in registration order."""
    return tuple(_BY_NAME)


def get_format(name: str) -> OutputFormat:
    """The format called `name`; ValueError naming the known formats otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown format {name!r}; expected one of {', '.join(_BY_NAME)}") from None


def detect_format(text: str, tuple_delimiter: str = "<|>") -> str:
    """The name of the format a cleaned answer (no think blocks, no fences) is written in: the
    format of the first detection rule, by priority, that matches; DEFAULT_FORMAT when none does.
    (Tuple records win over JSON when both appear: a JSON example in a preamble.)"""
    ctx = DetectionContext(text, tuple_delimiter)
    for rule, fmt in _RULES:
        if rule.matches(ctx):
            return fmt.name
    return DEFAULT_FORMAT


__all__ = ["AUTO", "DEFAULT_FORMAT", "OutputFormat", "detect_format", "format_names", "get_format"]
