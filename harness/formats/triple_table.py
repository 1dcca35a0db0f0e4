"""Triples as a markdown table with subject / predicate / object columns (synonyms head /
relation / tail, optional subject-type and object-type columns); see harness.parsing.markdown_table."""

from __future__ import annotations

from typing import ClassVar

from harness.formats.base import DetectionContext, DetectionRule, Delimiters, ExampleRecords, ReadOutcome
from harness.formats.triple_common import TripleFormat, example_predicate, read_triple_lines
from harness.parsing.issues_log import IssueLog
from harness.parsing.markdown_table import TableReader, has_triple_table


def _detect(ctx: DetectionContext) -> bool:
    return has_triple_table(ctx.text)


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


class TripleTableFormat(TripleFormat):
    name: ClassVar[str] = "triple_table"
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = (DetectionRule(78, _detect),)

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        return read_triple_lines(self.name, text, delimiters, log, round, TableReader())

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        types = {e.name: e.type for e in example.entities}
        rows = ["| subject | subject type | predicate | object | object type |", "| --- | --- | --- | --- | --- |"]
        rows += [
            f"| {_cell(r.source)} | {_cell(types.get(r.source, ''))} | {_cell(example_predicate(r))} "
            f"| {_cell(r.target)} | {_cell(types.get(r.target, ''))} |"
            for r in example.relationships
        ]
        return "\n".join(rows)
