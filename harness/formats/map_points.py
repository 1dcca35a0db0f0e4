"""Global-search map answers (GraphRAG's MAP_SYSTEM_PROMPT): one JSON object,
`{"points": [{"description": ..., "score": 0-100}]}`; each point is one record.

The format is never guessed (it has no detection rules): a variant reads its answers as map
points when its template (`format: map_points`) or the suite's kind (`global_search_map`) says
so. The reader flags the shape (the query-phase codes of `harness parse --format map`); the
citations and gold facts are scored, not parsed (harness/scoring/map_score.py), since they need
the case's report table. It builds no graph.
"""

from __future__ import annotations

import json
from typing import ClassVar

from harness.formats.base import Delimiters, ExampleRecords, OutputFormat, ReadOutcome
from harness.formats.reading import read_json_answer
from harness.model import CommunityReport
from harness.parsing.fields import json_number
from harness.parsing.codes import COMPLETION_CODES, JSON_CODES, WHOLE_OUTPUT_CODES
from harness.parsing.delimited import ParsedRecords
from harness.parsing.issues import short
from harness.parsing.issues_log import IssueLog
from harness.parsing.json_output import Loaded, load_json

MAP_CODES = frozenset({"query-missing-field", "query-field-type", "query-score-range"})


def read_points(text: str, log: IssueLog) -> tuple[Loaded | None, int, int]:
    """(loaded JSON, points seen, points GraphRAG keeps: an object with a string description and
    a numeric score); a point whose score is outside 0-100 is kept and flagged."""
    dropped_before = log.dropped_count
    loaded = load_json(text, log)
    unreadable = log.dropped_count - dropped_before  # further values load_json could not read: seen and lost
    if loaded is None:
        log.drop("json-invalid", text)
        return None, 1 + unreadable, 0
    if loaded.before:
        log.note("preamble", loaded.before)
    if loaded.after:
        log.note("closing-note", loaded.after)
    value = loaded.value
    points = value.get("points") if isinstance(value, dict) else None
    if not isinstance(points, list):
        code = "query-field-type" if isinstance(value, dict) and "points" in value else "query-missing-field"
        log.drop(code, short(value), "The answer has no 'points' list.")
        return loaded, 1 + unreadable, 0
    kept = 0
    for n, point in enumerate(points, 1):
        if not isinstance(point, dict):
            log.drop("query-field-type", short(point), f"Point {n} is not an object.")
            continue
        if not isinstance(point.get("description"), str):
            code = "query-field-type" if "description" in point else "query-missing-field"
            log.drop(code, short(point), f"Point {n} has no string 'description'.")
            continue
        score = json_number(point.get("score"))
        if score is None:
            code = "query-field-type" if "score" in point else "query-missing-field"
            log.drop(code, short(point), f"Point {n} has no numeric 'score'.")
            continue
        if not 0 <= score <= 100:
            log.note("query-score-range", short(point), f"Point {n}: score {score:g} outside 0-100.")
        kept += 1
    return loaded, len(points) + unreadable, kept


class MapPointsFormat(OutputFormat):
    name: ClassVar[str] = "map_points"
    delimited: ClassVar[bool] = False
    # GraphRAG fills {context_data} and (2.x, 3.x) {max_length}; the question is the user message,
    # which the harness's template writes as {question}; {input_text} is the context too
    variables: ClassVar[tuple[str, ...]] = ("context_data", "input_text", "max_length", "question", "language")
    codes: ClassVar[frozenset[str]] = WHOLE_OUTPUT_CODES | COMPLETION_CODES | JSON_CODES | MAP_CODES
    requires_completion_delimiter: ClassVar[bool] = False
    single_object: ClassVar[bool] = True  # one points object per answer
    example_template: ClassVar[str] = "Example {n}:\nData tables:\n{text}\n\nOutput:\n{output}"

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        def read_value(body: str) -> tuple[ParsedRecords, CommunityReport | None, Loaded | None]:
            loaded, seen, kept = read_points(body, log)
            records = ParsedRecords()
            records.seen, records.parsed = seen, kept
            return records, None, loaded

        return read_json_answer(self.name, text, delimiters, log, read_value)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        """A map example's answer: one point per entity of the example, its description, score 50."""
        points = [{"description": str(e.description).strip(), "score": 50} for e in example.entities
                  if str(e.description).strip()]
        return json.dumps({"points": points}, ensure_ascii=False, indent=2)
