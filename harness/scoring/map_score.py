"""A global-search map answer against its case's report table (docs/scoring.md, "Global search
map points").

`case.text` is the context the map prompt was filled with (`{context_data}`): one batch of
GraphRAG's report table (`id|title|occurrence weight|content|rank`, query/context_builder/
community_context.py), written without a header line by global search (`single_batch=False`),
under `-----Reports-----` by a single-batch context; its `id` column is what a point cites as
`[Data: Reports (ids)]`;
`text` is the raw answer, `{"points": [{"description", "score"}]}`. The answer is read and
checked by `checks.query` (`check_map_response`, `map_points`), the citations by
`checks.citations`. Nothing here needs gold except the facts (`case.facts`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from harness.checks.citations import CitationCount, ContextTables, count_citations, read_context_tables
from harness.checks.query import check_map_response, load_answer, map_points
from harness.content_words import facts_found
from harness.model import GoldCase, MapScore

# The dataset GraphRAG's map prompt cites, and the range of a point's importance score
MAP_DATASETS: tuple[str, ...] = ("Reports",)
SCORE_RANGE = (0.0, 100.0)

# Issues of `check_map_response` that break the answer's shape; a score out of range is a figure of
# its own and citation issues are counted below
_SCHEMA_CODES = frozenset({"query-invalid-json", "query-missing-field", "query-field-type", "json-truncated"})


def score_map(case: GoldCase, text: str, *, datasets: Sequence[str] = MAP_DATASETS,
              language: str = "English") -> MapScore:
    """The map-point figures of one case; `datasets` are the dataset names a point may cite,
    `language` the one its gold facts are stemmed in."""
    tables = report_table(case.text)
    issues = check_map_response(text, allowed_datasets=datasets, score_range=SCORE_RANGE)
    problems = [i.message for i in issues if i.code in _SCHEMA_CODES]
    value, _ = load_answer(text)
    raw = value.get("points") if isinstance(value, dict) else None
    entries: list[Any] = raw if isinstance(raw, list) else []
    points = map_points(text) or []
    checkable = tables.ids_of("Reports") is not None  # else a cited id counts when its dataset is known
    out = CitationCount()
    to_cite = cited = 0
    for description, must_cite in points:
        found = count_citations(description, tables, datasets, checkable=checkable)
        out.add(found)
        to_cite += must_cite
        cited += must_cite and found.valid > 0
    body = "\n".join(description for description, _ in points)
    return MapScore(
        schema_ok=not problems,
        schema_problems=problems,
        points=len(entries),
        scores_in_range=sum(1 for e in entries if isinstance(e, dict) and _in_range(e.get("score"))),
        points_to_cite=to_cite,
        points_cited=cited,
        references=out.references,
        overlong_references=out.overlong,
        unknown_datasets=out.unknown_datasets,
        malformed_citations=out.malformed,
        citations=out.ids,
        citations_invalid=out.invalid if checkable else None,
        gold_facts=len(case.facts),
        gold_facts_found=facts_found(case.facts, body, language=language) if case.facts else 0,
    )


def report_table(text: str) -> ContextTables:
    """The context's tables; a context without a section header whose first line has an `id`
    column is one Reports table, as global search writes each batch."""
    tables = read_context_tables(text)
    if tables.ids:
        return tables
    first = text.lstrip("\n").split("\n", 1)[0]
    if "id" in (c.strip().casefold() for c in re.split(r"[|,]", first)):
        return read_context_tables(f"-----Reports-----\n{text}")
    return tables


def _in_range(score: Any) -> bool:
    """A score GraphRAG reads (`int(element["score"])`: a number or a numeric string) within 0-100."""
    if isinstance(score, bool):
        return False
    if isinstance(score, str):
        try:
            score = float(score.strip())
        except ValueError:
            return False
    return isinstance(score, (int, float)) and SCORE_RANGE[0] <= score <= SCORE_RANGE[1]


