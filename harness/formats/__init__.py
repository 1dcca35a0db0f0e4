"""The registry of output formats: every format the harness can read, prompt for and tune.

A format is one module of this package defining an `OutputFormat` subclass (see base.py), plus
one line in `_BUILT_IN` below; an outside package's is one `kg_prompt_harness.formats` entry point
(harness/plugins.py, docs/plugins.md). Both go through `register_format`. Everything that differs by format asks here: the parser
(`harness.formats.pipeline`, behind `harness.formats.answer.parse`), detection of "auto" answers (`detect_format`), example writing and
delimiter defaults (`harness.prompts`), lint, `VariantSpec.format` validation, and tuning.
"""

from __future__ import annotations

from harness import plugins
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

_BY_NAME: dict[str, OutputFormat] = {}
# (rule, format) by priority, ties in registration order: the built-in formats' rules, then the
# plugins' (tried only when no built-in rule matches, so that installing a plugin never changes how
# an answer a built-in format recognises is read, and detecting one needs no metadata scan)
_RULES: list[tuple[DetectionRule, OutputFormat]] = []
_PLUGIN_RULES: list[tuple[DetectionRule, OutputFormat]] = []


def register_format(fmt: object) -> None:
    """Register an output format: an `OutputFormat` instance or subclass (the route built-ins and
    `kg_prompt_harness.formats` entry points share). Registration order is listing order and
    breaks ties between detection rules."""
    if isinstance(fmt, type) and issubclass(fmt, OutputFormat):
        fmt = fmt()
    if not isinstance(fmt, OutputFormat):
        raise TypeError(f"an output format is a harness.formats.base.OutputFormat, not {type(fmt).__name__}")
    if fmt.name in _BY_NAME or fmt.name == AUTO:
        raise ValueError(f"format {fmt.name!r} is already registered")
    _BY_NAME[fmt.name] = fmt
    rules = _PLUGIN_RULES if plugins.loaded("formats") else _RULES
    rules.extend((rule, fmt) for rule in fmt.detection_rules)
    rules.sort(key=lambda pair: pair[0].priority)  # stable: equal priorities stay in registration order


def _load_plugins() -> None:
    plugins.load("formats", register_format)


AUTO = "auto"
# What an answer no detection rule recognises is read as.
DEFAULT_FORMAT = "graphrag"

# Registration order: the order formats are listed in, and ties between detection rules.
_BUILT_IN: tuple[OutputFormat, ...] = (
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
for _fmt in _BUILT_IN:
    register_format(_fmt)


def format_names() -> tuple[str, ...]:
    """The registered formats' names, in registration order (plugins' after the built-ins)."""
    _load_plugins()
    return tuple(_BY_NAME)


def is_format(name: str) -> bool:
    """Whether `name` is a registered format (a plugin's are read only for a name not built in)."""
    if name not in _BY_NAME:
        _load_plugins()
    return name in _BY_NAME


def get_format(name: str) -> OutputFormat:
    """The format called `name`; ValueError naming the known formats otherwise."""
    if name not in _BY_NAME:
        _load_plugins()
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown format {name!r}; expected one of {', '.join(_BY_NAME)}") from None


def detect_format(text: str, tuple_delimiter: str = "<|>") -> str:
    """The name of the format a cleaned answer (no think blocks, no fences) is written in: the
    format of the first detection rule, by priority, that matches (the built-in formats' rules, then
    the plugins'); DEFAULT_FORMAT when none does. (Tuple records win over JSON when both appear: a
    JSON example in a preamble.)"""
    ctx = DetectionContext(text, tuple_delimiter)
    for rule, fmt in _RULES:
        if rule.matches(ctx):
            return fmt.name
    _load_plugins()
    for rule, fmt in _PLUGIN_RULES:
        if rule.matches(ctx):
            return fmt.name
    return DEFAULT_FORMAT


__all__ = ["AUTO", "DEFAULT_FORMAT", "OutputFormat", "detect_format", "format_names", "get_format", "is_format", "register_format"]
