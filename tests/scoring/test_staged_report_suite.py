"""The podcast-reports suite's hand-written answers score as
fixtures/responses/podcast-reports/README.md says (worked by hand there)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.model import GoldCase
from harness.formats.answer import parse
from harness.scoring.report_score import GRAPH_DATASETS, score_report

REPO = Path(__file__).resolve().parents[2]


def home() -> Path:
    """The folder holding suites/podcast-reports.yaml and its fixtures."""
    return REPO


# (variant, case): schema ok, rating in range, findings, findings cited, ids cited, ids invalid,
# overlong references, context entities, entities covered, gold facts, gold facts found
EXPECTED = {
    ("default", "corvid-tessellate"): (True, True, 5, 5, 12, 1, 0, 10, 7, 3, 2),
    ("default", "stratocore-outage"): (True, True, 5, 5, 16, 0, 1, 9, 7, 0, 0),
    ("default", "pennant-fine"): (True, True, 4, 4, 12, 0, 0, 9, 8, 3, 2),
    ("default", "quillstack-round"): (True, False, 5, 5, 10, 0, 0, 9, 7, 2, 1),
    ("default", "kestrel-launch"): (False, True, 3, 2, 7, 0, 0, 9, 5, 0, 0),
    ("tuned", "corvid-tessellate"): (True, True, 7, 7, 30, 0, 0, 10, 10, 3, 3),
    ("tuned", "stratocore-outage"): (True, True, 6, 6, 25, 0, 0, 9, 9, 0, 0),
    ("tuned", "pennant-fine"): (True, True, 6, 5, 30, 0, 0, 9, 9, 3, 3),
    ("tuned", "quillstack-round"): (True, True, 6, 6, 27, 0, 0, 9, 9, 2, 2),
    ("tuned", "kestrel-launch"): (True, True, 5, 5, 27, 0, 0, 9, 9, 0, 0),
}


@pytest.mark.parametrize(("variant", "case_id"), sorted(EXPECTED))
def test_staged_answer_scores(variant: str, case_id: str) -> None:
    base = home()
    suite = yaml.safe_load((base / "suites" / "podcast-reports.yaml").read_text(encoding="utf-8"))
    spec = next(c for c in suite["cases"] if c["id"] == case_id)
    case = GoldCase(id=case_id, text=(base / spec["chunk"]).read_text(encoding="utf-8"), facts=spec.get("facts", []))
    answer_file = base / "fixtures" / "responses" / "podcast-reports" / variant / f"{case_id}.yaml"
    answer = yaml.safe_load(answer_file.read_text(encoding="utf-8"))["rounds"][0]
    s = score_report(case, answer, parse(answer, "report").graph, datasets=GRAPH_DATASETS)
    got = (s.schema_ok, s.rating_in_range, s.findings, s.findings_cited, s.citations, s.citations_invalid,
           s.overlong_references, s.context_entities, s.entities_covered, s.gold_facts, s.gold_facts_found)
    assert got == EXPECTED[(variant, case_id)]
