"""What the triple formats share: `TripleFormat` (no delimiters, no descriptions, optional types,
no completion delimiter required), and for the line-based ones (llamaindex, function) their reading
procedure (completion marks optional, then line by line), their codes and the predicate an example
writes."""

from __future__ import annotations

from typing import ClassVar

from harness.formats.base import Delimiters, OutputFormat, ReadOutcome
from harness.parsing.codes import COMPLETION_CODES, TRIPLE_CODES, WHOLE_OUTPUT_CODES
from harness.parsing.completion import find_marks, settle_completion
from harness.parsing.issues_log import IssueLog
from harness.parsing.triple_lines import LineReader, read_lines
from harness.parsing.triples import TripleSink

# The issue codes a triple format's reader may emit.
TRIPLE_FORMAT_CODES: frozenset[str] = (
    WHOLE_OUTPUT_CODES | COMPLETION_CODES | TRIPLE_CODES | frozenset({"record-closer"})
)
# The variables a triple prompt is expected to use (lint warns about the others it is given but
# leaves unused): the text only, as LlamaIndex's KG_TRIPLET_EXTRACT_TMPL and Text2KGBench's
# prompts (which list an ontology instead of entity types).
TRIPLE_VARIABLES = ("input_text",)


class TripleFormat(OutputFormat):
    """A format whose answers are (subject, predicate, object) triples: entities are the subjects
    and objects, each triple a relationship whose `type` is the predicate."""

    delimited: ClassVar[bool] = False
    variables: ClassVar[tuple[str, ...]] = TRIPLE_VARIABLES
    codes: ClassVar[frozenset[str]] = TRIPLE_FORMAT_CODES
    requires_completion_delimiter: ClassVar[bool] = False
    writes_descriptions: ClassVar[bool] = False  # a triple carries none
    types_optional: ClassVar[bool] = True  # `(s, p, o)` has no types; some JSON shapes do


def read_triple_lines(name: str, text: str, delimiters: Delimiters, log: IssueLog, round: int,
                      read_line: LineReader) -> ReadOutcome:
    """Triples line by line. Completion marks are optional: when the answer has some they decide
    the completion status; otherwise the answer is complete unless its last triple is cut off."""
    cd = delimiters.completion
    marks = find_marks(text, cd) if cd else []
    check = None
    if marks:
        text, check = settle_completion(text, cd, delimiters.tuple, log, marks)
    sink = TripleSink(round)
    completion = read_lines(text, sink, log, read_line)
    return ReadOutcome(sink.records, None, check.status if check is not None else completion, name)


def example_part(value: str) -> str:
    """A part as an example writes it: quoted when it holds a comma, a bracket or a quote."""
    if any(ch in value for ch in ',()"'):
        return '"' + value.replace('"', "'") + '"'
    return value


def example_predicate(relationship: object) -> str:
    """The predicate an example relationship is written with: its `type` if it has one, else its
    first keyword, else its description."""
    for attribute in ("type", "keywords", "description"):
        value = getattr(relationship, attribute, "") or ""
        value = value.split(",")[0].strip()
        if value:
            return value
    return "related to"
