"""A JSON graph: `{"entities": [...], "relationships": [...]}` (and the many shapes models write
instead: nodes/edges, LightRAG-style keys, lists), in or out of fences, repaired when broken."""

from __future__ import annotations

import json
from typing import ClassVar

from harness.formats.base import DetectionContext, DetectionRule, Delimiters, ExampleRecords, OutputFormat, ReadOutcome
from harness.formats.reading import read_json_answer
from harness.model import CommunityReport
from harness.parsing.codes import COMPLETION_CODES, JSON_CODES, WHOLE_OUTPUT_CODES
from harness.parsing.delimited import ParsedRecords
from harness.parsing.detect import JSON_GRAPH_KEYS, JSON_OBJECT
from harness.parsing.issues_log import IssueLog
from harness.parsing.json_output import Loaded, parse_json_graph


def _json_value(ctx: DetectionContext) -> bool:
    text = ctx.text
    return "{" in text and (
        ctx.head in ("{", "[") or JSON_GRAPH_KEYS.search(text) is not None or JSON_OBJECT.search(text) is not None
    )


class JsonGraphFormat(OutputFormat):
    name: ClassVar[str] = "json"
    delimited: ClassVar[bool] = False
    variables: ClassVar[tuple[str, ...]] = ("input_text", "entity_types", "language")
    codes: ClassVar[frozenset[str]] = WHOLE_OUTPUT_CODES | COMPLETION_CODES | JSON_CODES | frozenset(
        {"missing-type", "missing-description", "empty-name", "placeholder-value", "strength-repaired",
         "strength-placeholder", "strength-invalid"}  # the record codes the JSON reader shares
    )
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = (DetectionRule(90, _json_value),)
    requires_completion_delimiter: ClassVar[bool] = False
    json_mode: ClassVar[bool] = True
    tune_base: ClassVar[str | None] = "graphrag/extract_graph_json"
    strength_scale: ClassVar[tuple[float, float] | None] = (1.0, 10.0)  # "a whole number from 1 to 10"

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        def read_value(body: str) -> tuple[ParsedRecords, CommunityReport | None, Loaded | None]:
            records, loaded = parse_json_graph(body, log, round=round)
            return records, None, loaded

        return read_json_answer(self.name, text, delimiters, log, read_value)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        data = {
            "entities": [{"name": e.name, "type": e.type, "description": e.description} for e in example.entities],
            "relationships": [
                {"source": r.source, "target": r.target, "description": r.description,
                 **({"strength": r.strength} if r.strength is not None else {})}
                for r in example.relationships
            ],
        }
        return json.dumps(data, ensure_ascii=False, indent=2)
