"""What an output format is: the interface every module of harness.formats implements.

A format owns everything that differs between the ways a model may write its answer: how the
answer is read (`read`), how it is recognised when the caller says "auto" (`detection_rules`),
how a few-shot example answer is written (`write_example`), its delimiters and their defaults,
the template variables it fills, its completion rule and the issue codes its reader may emit.
Shared low-level readers (clean-up, fields, JSON repair, delimited records) stay in
harness.parsing; a format module calls them from its entry points.

Delimiter defaults are worked out in one place, `resolve_delimiters`, in one order: for each
delimiter, the first layer that sets it (a non-empty string) wins; the caller passes its layers
from the most to the least explicit (command line or suite variant, then the template's own
variables, then the template's declared metadata); a delimiter no layer sets takes the format's
default (`OutputFormat.default_delimiters`, which may depend on the tuple delimiter chosen).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Protocol

from harness.model import CommunityReport, CompletionStatus
from harness.parsing.delimited import ParsedRecords
from harness.parsing.detect import claim_status_between, is_lightrag_new, tagged
from harness.parsing.issues_log import IssueLog

DELIMITER_KEYS = ("tuple_delimiter", "record_delimiter", "completion_delimiter")
GRAPHRAG_TUPLE = "<|>"
GRAPHRAG_RECORD = "##"
COMPLETION = "<|COMPLETE|>"
# The variables a prompt of a tuple-delimited format is filled with (the runner supplies them all).
DELIMITED_VARIABLES = ("input_text", "entity_types", *DELIMITER_KEYS, "language")


class ExampleRecords(Protocol):
    """What an example writer reads of a few-shot example (harness.prompts.examples.Example;
    structural, so that formats need not import prompts, which ask this registry)."""

    entities: Any  # list of ExampleEntity: name, type, description
    relationships: Any  # list of ExampleRelationship: source, target, description, strength, keywords
    claims: Any  # list of ExampleClaim: subject, object, type, status, start_date, end_date, description, source_text
    report: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Delimiters:
    """The three delimiters of one call."""

    tuple: str = GRAPHRAG_TUPLE
    record: str = GRAPHRAG_RECORD
    completion: str = COMPLETION

    def as_variables(self) -> dict[str, str]:
        """The template variables these delimiters fill, in DELIMITER_KEYS order."""
        return {"tuple_delimiter": self.tuple, "record_delimiter": self.record, "completion_delimiter": self.completion}


@dataclass(slots=True)
class ReadOutcome:
    """What a format's reader found in a cleaned answer (the pipeline turns it into a ParseResult)."""

    records: ParsedRecords
    report: CommunityReport | None
    completion: CompletionStatus
    format: str  # the format actually read (an "auto" GraphRAG read may turn out LightRAG)


class DetectionContext:
    """The cleaned answer being recognised, with the facts several detection rules share
    (computed once, on first use)."""

    def __init__(self, text: str, tuple_delimiter: str) -> None:
        self.text = text
        self.td = tuple_delimiter
        self.has_td = bool(tuple_delimiter) and tuple_delimiter in text
        self.head = text.lstrip()[:1]

    @cached_property
    def tuple_records(self) -> bool:
        """A `("entity"<td>` or `("relationship"<td>` record: the common GraphRAG-style case."""
        td = self.td
        return self.has_td and (f'("entity"{td}' in self.text or f'("relationship"{td}' in self.text)

    @cached_property
    def tagged(self) -> bool:
        """Some record is tagged entity/relationship/content_keywords right before the delimiter."""
        return self.has_td and tagged(self.text, self.td)

    @cached_property
    def claim(self) -> bool:
        """A claim status (TRUE/FALSE/SUSPECTED) between two tuple delimiters."""
        return self.has_td and claim_status_between(self.text, self.td)

    @cached_property
    def lightrag_records(self) -> bool:
        """Records written as `entity<|#|>...` (LightRAG >= 1.4.8)."""
        return is_lightrag_new(self.text)


@dataclass(frozen=True, slots=True)
class DetectionRule:
    """`matches` says the answer is in this format; rules of all formats are tried by ascending
    `priority` (ties: registration order) and the first that matches decides."""

    priority: int
    matches: Callable[[DetectionContext], bool]


class OutputFormat(ABC):
    """One output format. Subclasses set the class attributes and implement `read` and
    `write_example`; `harness.formats` registers one instance of each."""

    name: ClassVar[str]
    # Records separated by tuple/record delimiters (graphrag, lightrag, claims), not JSON.
    delimited: ClassVar[bool]
    # The template variables the runner fills for a prompt in this format (lint checks them).
    variables: ClassVar[tuple[str, ...]]
    # Every issue code this format's reader may emit (all listed in harness.parsing.codes).
    codes: ClassVar[frozenset[str]]
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = ()
    # The completion rule: whether an answer is complete only when the completion delimiter is
    # present (delimited formats). JSON formats are complete when the JSON value is.
    requires_completion_delimiter: ClassVar[bool]
    # One object per answer (a community report): no "nothing but the completion delimiter"
    # shortcut and no `no-records` issue.
    single_object: ClassVar[bool] = False
    # Ask the endpoint for JSON (`response_format: json_object`) when tuning this format.
    json_mode: ClassVar[bool] = False
    # The built-in extraction template `harness tune` starts from (None: not tunable).
    tune_base: ClassVar[str | None] = None
    # The inclusive range of relationship strengths this format's prompts ask for (GraphRAG: "from
    # 1 to 10"); None: they ask for no strength. Reference-free scoring counts strengths outside it.
    strength_scale: ClassVar[tuple[float, float] | None] = None
    # Whether answers in this format carry descriptions; without them, reference-free scoring's
    # empty-description count is n/a (a triple has nothing to leave empty).
    writes_descriptions: ClassVar[bool] = True
    # Whether entity types are optional in this format (triples: `(s, p, o)` has none, a
    # DynamicLLM row may have them): an answer that types no entity has no type conformance (n/a),
    # where a GraphRAG record with an empty type is a record off the list.
    types_optional: ClassVar[bool] = False
    # How one few-shot example is laid out in a prompt (slots {n}, {entity_types}, {text}, {output}).
    example_template: ClassVar[str] = (
        "Example {n}:\n"
        "Entity_types: {entity_types}\n"
        "Text:\n"
        "{text}\n"
        "######################\n"
        "Output:\n"
        "{output}"
    )

    def default_delimiters(self, tuple_delimiter: str | None = None) -> Delimiters:
        """The delimiters this format uses when nothing else is declared."""
        return Delimiters()

    @abstractmethod
    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        """Read a cleaned answer (`detected`: the format was guessed, not asked for)."""

    @abstractmethod
    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        """A structured example's answer, written exactly as this format expects it."""

    def is_complete(self, completion: CompletionStatus) -> bool:
        """The completion rule as example checks apply it: formats that require the completion
        delimiter are complete only when it is present."""
        return completion == "present" or not self.requires_completion_delimiter


def _set(value: str | None) -> bool:
    return isinstance(value, str) and value != ""


def resolve_delimiters(fmt: OutputFormat, *layers: Mapping[str, str | None]) -> Delimiters:
    """The delimiters of one call: per delimiter, the first layer (most explicit first) that sets
    it to a non-empty string, else the format's default for the tuple delimiter chosen."""
    chosen: dict[str, str] = {}
    for key in DELIMITER_KEYS:
        for layer in layers:
            value = layer.get(key)
            if _set(value):
                chosen[key] = value  # type: ignore[assignment]
                break
    default = fmt.default_delimiters(chosen.get("tuple_delimiter")).as_variables()
    merged = {key: chosen.get(key, default[key]) for key in DELIMITER_KEYS}
    return Delimiters(merged["tuple_delimiter"], merged["record_delimiter"], merged["completion_delimiter"])


def strength_text(value: float | None) -> str:
    """A relationship strength as an example answer writes it (7, not 7.0)."""
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else str(value)
