"""LlamaIndex's triples (KG_TRIPLET_EXTRACT_TMPL, SimpleLLMPathExtractor): `(subject, predicate,
object)` one per line, also numbered, bulleted or quoted.

LlamaIndex's own parser (default_parse_triplets_fn) keeps a line only when the text between its
first `(` and first `)` splits on commas into exactly three parts of at most 128 bytes, and drops
the rest silently. This reader reads what a person sees (quoted parts holding commas, brackets
inside a part, several triples on a line, long parts), notes each triple LlamaIndex would lose
(`triple-recovered`) and reports every line it cannot read as dropped, with its reason."""

from __future__ import annotations

from typing import ClassVar

from harness.formats.base import DetectionContext, DetectionRule, Delimiters, ExampleRecords, ReadOutcome
from harness.formats.triple_common import TripleFormat, example_part, example_predicate, read_triple_lines
from harness.parsing.detect import parenthesised_triples
from harness.parsing.issues_log import IssueLog
from harness.parsing.triple_lines import read_parenthesised

def _detect(ctx: DetectionContext) -> bool:
    return not ctx.has_td and parenthesised_triples(ctx.text)


class LlamaIndexFormat(TripleFormat):
    name: ClassVar[str] = "llamaindex"
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = (DetectionRule(74, _detect),)

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        return read_triple_lines(self.name, text, delimiters, log, round, read_parenthesised)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        return "\n".join(
            f"({example_part(r.source)}, {example_part(example_predicate(r))}, {example_part(r.target)})" for r in example.relationships
        )
