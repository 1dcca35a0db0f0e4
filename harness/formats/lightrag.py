"""LightRAG's records: since 1.4.8 one record per line, `entity<|#|>name<|#|>type<|#|>description`
and `relation<|#|>source<|#|>target<|#|>keywords<|#|>description`; up to 1.4.7 GraphRAG-style
tuples with a `content_keywords` record."""

from __future__ import annotations

from typing import ClassVar

from harness.formats.base import COMPLETION, DetectionContext, DetectionRule, Delimiters, ExampleRecords, OutputFormat, ReadOutcome
from harness.formats.reading import read_delimited_answer
from harness.parsing.codes import COMPLETION_CODES, RECORD_CODES, WHOLE_OUTPUT_CODES
from harness.parsing.issues_log import IssueLog
from harness.parsing.lightrag_records import LIGHTRAG_TUPLE


def _tuple_records_with_keywords(ctx: DetectionContext) -> bool:
    return ctx.tuple_records and "content_keywords" in ctx.text


def _lines_without_tuple_delimiter(ctx: DetectionContext) -> bool:
    return not ctx.has_td and ctx.lightrag_records


def _tagged_with_keywords(ctx: DetectionContext) -> bool:
    return ctx.has_td and ctx.tagged and ("content_keywords" in ctx.text or "CONTENT_KEYWORDS" in ctx.text)


def _lines(ctx: DetectionContext) -> bool:
    return ctx.has_td and ctx.lightrag_records


class LightRAGFormat(OutputFormat):
    name: ClassVar[str] = "lightrag"
    delimited: ClassVar[bool] = True
    variables: ClassVar[tuple[str, ...]] = ("input_text", "entity_types", "tuple_delimiter", "completion_delimiter", "language")
    codes: ClassVar[frozenset[str]] = WHOLE_OUTPUT_CODES | COMPLETION_CODES | RECORD_CODES
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = (
        DetectionRule(10, _tuple_records_with_keywords),
        DetectionRule(30, _lines_without_tuple_delimiter),
        DetectionRule(50, _tagged_with_keywords),
        DetectionRule(70, _lines),
    )
    requires_completion_delimiter: ClassVar[bool] = True
    tune_base: ClassVar[str | None] = "lightrag/extract_graph"

    def default_delimiters(self, tuple_delimiter: str | None = None) -> Delimiters:
        """LightRAG's own (`<|#|>`, one record per line) unless another tuple delimiter is chosen
        (a LightRAG <= 1.4.7 prompt): then GraphRAG's."""
        if tuple_delimiter in (None, LIGHTRAG_TUPLE):
            return Delimiters(LIGHTRAG_TUPLE, "\n", COMPLETION)
        return Delimiters()

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        return read_delimited_answer(self.name, text, delimiters, log, round, layout="lightrag", detected=detected)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        # LightRAG >= 1.4.8: one record per line, keywords before the description, no strength.
        # (Older LightRAG prompts wrote GraphRAG tuples; keep those as raw `output`/`block` examples.)
        td, cd = delimiters.tuple, delimiters.completion
        lines = [f"entity{td}{e.name}{td}{e.type}{td}{e.description}" for e in example.entities]
        lines += [f"relation{td}{r.source}{td}{r.target}{td}{r.keywords}{td}{r.description}" for r in example.relationships]
        return "\n".join(lines) + f"\n{cd}"
