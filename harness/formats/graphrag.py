"""GraphRAG's tuple-delimited records: `("entity"<|>NAME<|>TYPE<|>DESCRIPTION)` and
`("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH)`, separated by `##`, ended by
`<|COMPLETE|>`. Also the format an answer is read as when nothing else fits."""

from __future__ import annotations

from typing import ClassVar

from harness.formats.base import (
    DELIMITED_VARIABLES,
    DetectionContext,
    DetectionRule,
    Delimiters,
    ExampleRecords,
    OutputFormat,
    ReadOutcome,
    strength_text,
)
from harness.formats.reading import read_delimited_answer
from harness.parsing.codes import COMPLETION_CODES, RECORD_CODES, WHOLE_OUTPUT_CODES
from harness.parsing.issues_log import IssueLog


def _tuple_records(ctx: DetectionContext) -> bool:
    """The common case: `("entity"<|>` records, without LightRAG's content_keywords."""
    return ctx.tuple_records and "content_keywords" not in ctx.text


def _tagged_records(ctx: DetectionContext) -> bool:
    return ctx.has_td and ctx.tagged


class GraphRAGFormat(OutputFormat):
    name: ClassVar[str] = "graphrag"
    delimited: ClassVar[bool] = True
    variables: ClassVar[tuple[str, ...]] = DELIMITED_VARIABLES
    codes: ClassVar[frozenset[str]] = WHOLE_OUTPUT_CODES | COMPLETION_CODES | RECORD_CODES
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = (
        DetectionRule(10, _tuple_records),
        DetectionRule(60, _tagged_records),
    )
    requires_completion_delimiter: ClassVar[bool] = True
    tune_base: ClassVar[str | None] = "graphrag/extract_graph"
    strength_scale: ClassVar[tuple[float, float] | None] = (1.0, 10.0)  # "a whole number from 1 to 10"

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        return read_delimited_answer(self.name, text, delimiters, log, round, layout=None, detected=detected)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        td, rd, cd = delimiters.tuple, delimiters.record, delimiters.completion
        records = [f'("entity"{td}{e.name}{td}{e.type}{td}{e.description})' for e in example.entities]
        records += [
            f'("relationship"{td}{r.source}{td}{r.target}{td}{r.description}{td}{strength_text(r.strength)})'
            for r in example.relationships
        ]
        return f"\n{rd}\n".join(records) + f"\n{cd}"
