"""A claims suite end to end: recorded from the local OpenAI-compatible server, replayed with no
key, scored by harness/scoring/claims_score.py and pooled by the claims metric family. The suite
and the answers are written here by hand; no shipped suite is of this kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.run.plan import plan_variant
from harness.suites import load_suite

from .reports.helpers import record_cassettes, replay
from .support.fake_server import FakeOpenAIServer, Script
from tests.support.suite_files import write_suite_file

TEXT = ("The Estrava Markets Authority fined Pennant Mobile 400 million dollars on 1 March 2024 for "
        "blocking rival payment providers. Augustin Reyland, Pennant's chief executive, said the "
        "company will appeal.")

# Two claims: the first well formed and matching the first gold claim; the second with a status
# GraphRAG does not know (MAYBE) and a start date that is no ISO-8601 date.
ANSWER = (
    "(PENNANT MOBILE<|>ESTRAVA MARKETS AUTHORITY<|>ANTI-COMPETITIVE PRACTICES<|>TRUE<|>2024-03-01T00:00:00<|>"
    "2024-03-01T00:00:00<|>Pennant Mobile was fined 400 million dollars for blocking rival payment providers<|>"
    "The Estrava Markets Authority fined Pennant Mobile 400 million dollars)\n##\n"
    "(AUGUSTIN REYLAND<|>NONE<|>LEGAL ACTION<|>MAYBE<|>March 2024<|>NONE<|>"
    "Augustin Reyland says Pennant will appeal the fine<|>said the company will appeal)\n<|COMPLETE|>"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    suite = {
        "name": "claims-demo",
        "kind": "extract_claims",
        "notes": "Written by hand in a test; the answers measure no model.",
        "model": {"name": "gpt-4o-mini", "max_gleanings": 0},
        "variants": {"default": {"prompt": "builtin:graphrag.extract_claims"}},
        "cases": [{
            "id": "pennant-fine",
            "text": TEXT,
            "entity_specs": ["Pennant Mobile", "Augustin Reyland"],
            "claims": [
                {"subject": "Pennant Mobile", "object": "Estrava Markets Authority",
                 "type": "anti-competitive practices", "status": "TRUE"},
                {"subject": "Augustin Reyland", "type": "legal action", "status": "SUSPECTED"},
            ],
        }],
    }
    return write_suite_file(tmp_path, suite)


@pytest.mark.slow
def test_a_claims_suite_records_replays_and_scores_its_claims(project: Path, tmp_path: Path, api_key: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    suite = load_suite(project)
    plan = plan_variant(suite, "default")
    prompt = [m["content"] for m in plan.render(suite.cases[0]) if m["role"] == "user"][0]
    assert "Pennant Mobile" in prompt and TEXT in prompt  # the entity specs and the chunk are filled in
    with FakeOpenAIServer(Script(rounds={prompt: [ANSWER]})) as server:
        record_cassettes(suite, server, tmp_path)
        assert server.calls == 1  # max_gleanings 0: one call
    monkeypatch.delenv("OPENAI_API_KEY")
    outcome, summary = replay(suite, tmp_path / "reports", "r1")
    score = outcome.results[0].score
    assert list(score.figures) == ["claims"]  # no summary or report figures
    claims = score.figures["claims"]
    # 2 records, both with eight fields; MAYBE is no status; "March 2024" is no ISO date; both
    # subjects are among the specs (names, not types); gold 1 matches record 1, gold 2 wants
    # SUSPECTED and record 2 says MAYBE: 1 of 2 found
    assert (claims.claims, claims.well_formed, claims.bad_status, claims.bad_dates) == (2, 2, 1, 1)
    assert (claims.subjects_in_specs, claims.gold_claims, claims.gold_claims_found) == (2, 2, 1)
    metrics = summary.variants["default"].metrics
    micro = {name: metrics.get(name) for name in ("claims_well_formed", "claim_status_valid",
                                                          "claim_dates_valid", "claim_subjects_in_specs",
                                                          "claim_recall", "claims_extracted")}
    assert micro == {"claims_well_formed": 1.0, "claim_status_valid": 0.5, "claim_dates_valid": 0.5,
                     "claim_subjects_in_specs": 1.0, "claim_recall": 0.5, "claims_extracted": 2}
    # extraction figures have nothing to stand on in a claims suite: n/a, not 0
    assert metrics.get("entity_recall") is None and metrics.get("grounding_rate") is None
