"""Triples as JSON: `[["s", "p", "o"]]`, `[{"subject", "predicate" | "relation", "object"}]`,
LlamaIndex's DynamicLLMPathExtractor (`head`, `head_type`, `relation`, `tail`, `tail_type`,
optional `*_props`) and SchemaLLMPathExtractor (`{"triplets": [{"subject": {"name", "type"},
"relation": {"type"}, "object": {"name", "type"}}]}`); see harness.parsing.triple_json."""

from __future__ import annotations

import json
from typing import ClassVar

from harness.formats.base import DetectionContext, DetectionRule, Delimiters, ExampleRecords, ReadOutcome
from harness.formats.reading import read_json_answer
from harness.formats.triple_common import TRIPLE_VARIABLES, TripleFormat, example_predicate
from harness.model import CommunityReport
from harness.parsing.codes import COMPLETION_CODES, JSON_CODES, TRIPLE_CODES, WHOLE_OUTPUT_CODES
from harness.parsing.delimited import ParsedRecords
from harness.parsing.detect import json_triples
from harness.parsing.issues_log import IssueLog
from harness.parsing.json_output import Loaded
from harness.parsing.triple_json import parse_json_triples
from harness.parsing.triples import TripleSink


def _detect(ctx: DetectionContext) -> bool:
    return json_triples(ctx.text)


class JsonTriplesFormat(TripleFormat):
    name: ClassVar[str] = "json_triples"
    # LlamaIndex's dynamic and schema extractors list the allowed entity types
    variables: ClassVar[tuple[str, ...]] = (*TRIPLE_VARIABLES, "entity_types")
    codes: ClassVar[frozenset[str]] = WHOLE_OUTPUT_CODES | COMPLETION_CODES | JSON_CODES | TRIPLE_CODES
    # Before the JSON graph's rule (90), which would read a triple's subject and object but lose its predicate.
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = (DetectionRule(85, _detect),)

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        def read_value(body: str) -> tuple[ParsedRecords, CommunityReport | None, Loaded | None]:
            sink = TripleSink(round, verbatim=True)  # a JSON string is the part as written
            loaded = parse_json_triples(body, sink, log)
            return sink.records, None, loaded

        return read_json_answer(self.name, text, delimiters, log, read_value)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        types = {e.name: e.type for e in example.entities}
        triples = [
            {"subject": r.source, "subject_type": types.get(r.source, ""), "predicate": example_predicate(r),
             "object": r.target, "object_type": types.get(r.target, "")}
            for r in example.relationships
        ]
        return json.dumps(triples, ensure_ascii=False, indent=2)
