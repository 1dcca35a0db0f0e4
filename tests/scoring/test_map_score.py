"""score_map: a global-search map answer against its report table, numbers worked by hand.

The worked example is the one in docs/scoring.md, "Global search map points".
"""

from __future__ import annotations

import json

from harness.model import GoldCase
from harness.scoring.map_score import score_map

# GraphRAG's map context: one batch of reports, `to_csv(index=False, sep="|")`, no header line
# (query/context_builder/community_context.py, single_batch=False); content with a line break is quoted
CONTEXT = """id|title|occurrence weight|content|rank
1|Pennant Mobile fined|1.0|"# Pennant Mobile fined

The Estrava Markets Authority fined Pennant Mobile."|8.0
4|The appeal|0.5|Pennant will appeal the fine.|6.0
7|Rival payment providers|0.25|Rivals complained to the authority.|4.0
"""

ANSWER = json.dumps({"points": [
    {"description": "Pennant Mobile was fined 400 million dollars by the authority [Data: Reports (1, 4)]", "score": 90},
    {"description": "The appeal is pending [Data: Reports (7, 9); Entities (2)]", "score": 60},
    {"description": "Rivals complained [Data: Reports (1, 4, 7, 1, 4, 7)]", "score": "40"},
    {"description": "Nothing else is known", "score": 0},
    {"description": "Reyland resigned", "score": 120},
    "not a point",
]})

FACTS = ["Pennant Mobile was fined 400 million dollars", "Augustin Reyland will step down as chief executive"]


def _case(text: str = CONTEXT, facts: list[str] | None = None) -> GoldCase:
    return GoldCase(id="c", text=text, question="What happened to Pennant Mobile?", facts=facts or [])


def test_worked_example() -> None:
    score = score_map(_case(facts=FACTS), ANSWER)
    # point 6 is no object: the shape is broken; a score of 120 is a figure of its own, not the schema
    assert (score.schema_ok, score.schema_problems) == (False, ["Point 6 is not an object."])
    # six entries; in range: 90, 60, "40" (GraphRAG reads numeric strings), 0; not 120, not the string
    assert (score.points, score.scores_in_range) == (6, 4)
    # to cite: every point with a description but the one scored 0 (points 1, 2, 3, 5); cited with a
    # valid id: 1, 2 (report 7), 3; point 5 cites nothing
    assert (score.points_to_cite, score.points_cited) == (4, 3)
    # references: Reports (1, 4) | Reports (7, 9), Entities (2) | Reports (six ids): 4; ids 2 + 2 + 1 + 6 = 11,
    # invalid: report 9 (not in the table) and Entities 2 (no dataset of the map prompt)
    assert (score.references, score.citations, score.citations_invalid) == (4, 11, 2)
    assert (score.overlong_references, score.unknown_datasets, score.malformed_citations) == (1, 1, 0)
    # the first fact's content words are all in point 1; of the second only "reyland" is said
    assert (score.gold_facts, score.gold_facts_found) == (2, 1)


def test_a_single_batch_context_with_its_header_line_reads_the_same() -> None:
    assert score_map(_case(text="-----Reports-----\n" + CONTEXT, facts=FACTS), ANSWER) == score_map(
        _case(facts=FACTS), ANSWER)


def test_a_clean_answer_and_a_context_without_a_reports_table() -> None:
    answer = '```json\n{"points": [{"description": "Fined [Data: Reports (3)]", "score": 80}]}\n```'
    clean = score_map(_case(), answer)
    assert clean.schema_ok and clean.schema_problems == []
    # report 3 is not in the table
    assert (clean.points, clean.points_to_cite, clean.points_cited, clean.citations, clean.citations_invalid) == (1, 1, 0, 1, 1)
    # no Reports table: nothing to check ids against (None, not 0), a Reports id counts as a citation
    untabled = score_map(_case(text="Pennant Mobile was fined."), answer)
    assert (untabled.citations_invalid, untabled.points_cited) == (None, 1)
    assert untabled.gold_facts == 0 and untabled.gold_facts_found == 0


def test_answers_that_are_no_points_object() -> None:
    prose = score_map(_case(), "Pennant Mobile was fined by the authority.")
    assert (prose.schema_ok, prose.schema_problems) == (False, ["No JSON object found in the answer."])
    assert (prose.points, prose.points_to_cite, prose.citations) == (0, 0, 0)
    wrong = score_map(_case(), '{"answer": "fined", "score": 50}')
    assert (wrong.schema_ok, wrong.schema_problems) == (False, ["The answer has no 'points' list."])
    missing = score_map(_case(), '{"points": [{"description": "x [Data: Reports (1)]"}]}')
    assert missing.schema_problems == ["Point 1 has no 'score'."] and missing.points_cited == 1
    # a point with no score must cite (only a score of 0 excuses it): it does, with a valid id
    assert missing.points_to_cite == 1 and missing.scores_in_range == 0
