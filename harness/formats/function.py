"""Triples written as calls, `predicate(subject, object)`, one or several per line: the output
Text2KGBench's prompts ask for (`Test Output: director(Avatar,James Cameron)`), predicates with
underscores for spaces, arguments quoted or not (a quoted argument may hold commas)."""

from __future__ import annotations

from typing import ClassVar

from harness.formats.base import DetectionContext, DetectionRule, Delimiters, ExampleRecords, ReadOutcome
from harness.formats.triple_common import TripleFormat, example_part, example_predicate, read_triple_lines
from harness.parsing.detect import call_triples
from harness.parsing.issues_log import IssueLog
from harness.parsing.triple_lines import read_call


def _detect(ctx: DetectionContext) -> bool:
    return not ctx.has_td and call_triples(ctx.text)


class FunctionFormat(TripleFormat):
    name: ClassVar[str] = "function"
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = (DetectionRule(76, _detect),)

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        return read_triple_lines(self.name, text, delimiters, log, round, read_call)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        return "\n".join(
            f"{'_'.join(example_predicate(r).split())}({example_part(r.source)}, {example_part(r.target)})"
            for r in example.relationships
        )
