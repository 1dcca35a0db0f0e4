"""A global-search map suite end to end: GraphRAG's stock map prompt filled as GraphRAG's global
search fills it, recorded from the local OpenAI-compatible server, replayed with no key, scored
by harness/scoring/map_score.py and pooled by the map metric family. The suite and the answers
are written here by hand; they measure no model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.kinds.registry import get_kind, rows_kind
from harness.run.plan import plan_variant
from harness.suites import load_suite

from .conftest import REPO
from .reports.helpers import harness, record_cassettes, replay
from .support.fake_server import FakeOpenAIServer, Script
from tests.support.suite_files import write_suite_file

# GraphRAG v3.1.2 MAP_SYSTEM_PROMPT (packages/graphrag/graphrag/prompts/query/global_search_map_system_prompt.py,
# MIT, Copyright (c) Microsoft Corporation), as `graphrag init` writes it
STOCK = (REPO / "tests" / "fixtures" / "stock_prompts" / "graphrag-3" / "prompts"
         / "global_search_map_system_prompt.txt").read_text(encoding="utf-8")

# one batch of reports as community_context.build_community_context writes it with the query
# factory's settings: to_csv(index=False, sep="|") of id, title, occurrence weight, content, rank,
# no "-----Reports-----" line (global search asks for batches: single_batch=False)
CONTEXT = """id|title|occurrence weight|content|rank
1|Pennant Mobile fined|1.0|"# Pennant Mobile fined

The Estrava Markets Authority fined Pennant Mobile 400 million dollars."|8.0
4|The appeal|0.5|Pennant will appeal the fine.|6.0
7|Rival payment providers|0.25|Rivals complained to the authority.|4.0
"""

QUESTIONS = {"pennant-fine": "What happened to Pennant Mobile?", "rivals": "Who complained about Pennant Mobile?"}
ANSWERS = {
    # clean: two points, report 12 is not in the table
    "pennant-fine": json.dumps({"points": [
        {"description": "The Estrava Markets Authority fined Pennant Mobile 400 million dollars [Data: Reports (1)]",
         "score": 95},
        {"description": "Pennant Mobile will appeal [Data: Reports (4, 12)]", "score": 70}]}),
    # six ids in one reference; a point scored 0 without a citation (fine); a score that is no number
    "rivals": json.dumps({"points": [
        {"description": "Rival payment providers complained [Data: Reports (7, 1, 4, 7, 1, 4)]", "score": 80},
        {"description": "The data does not say who else complained", "score": 0},
        {"description": "Regulators elsewhere may follow", "score": "high"}]}),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    suite = {
        "name": "map-demo",
        "kind": "global_search_map",
        "notes": "Written by hand in a test; the answers measure no model.",
        "model": {"name": "gpt-4o-mini"},
        "variants": {"default": {"prompt": "builtin:graphrag.global_search_map"}},
        "cases": [
            {"id": "pennant-fine", "text": CONTEXT, "question": QUESTIONS["pennant-fine"],
             "facts": ["Pennant Mobile was fined 400 million dollars", "Pennant Mobile will appeal the fine"]},
            {"id": "rivals", "text": CONTEXT, "question": QUESTIONS["rivals"], "max_length": 300},
        ],
    }
    return write_suite_file(tmp_path, suite)


def test_the_map_prompt_is_filled_as_graphrags_global_search_fills_it(project: Path) -> None:
    suite = load_suite(project)
    plan = plan_variant(suite, "default")
    first, second = suite.cases
    # search.py: map_system_prompt.format(context_data=..., max_length=map_max_length) as the system
    # message, the query as the user message; map_max_length 1000 by default, 300 where the case says
    assert plan.render(first) == [{"role": "system", "content": STOCK.format(context_data=CONTEXT, max_length=1000)},
                                  {"role": "user", "content": QUESTIONS["pennant-fine"]}]
    assert plan.render(second)[0]["content"] == STOCK.format(context_data=CONTEXT, max_length=300)
    assert (plan.format, plan.max_gleanings) == ("map_points", 0)
    assert get_kind("global_search_map").gleans is False


@pytest.mark.slow
def test_a_map_suite_records_replays_and_scores_its_points(project: Path, tmp_path: Path, api_key: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    suite = load_suite(project)
    with FakeOpenAIServer(Script(rounds={QUESTIONS[c]: [a] for c, a in ANSWERS.items()})) as server:
        record_cassettes(suite, server, tmp_path)
        assert server.calls == 2  # one call a case, no gleaning
    monkeypatch.delenv("OPENAI_API_KEY")
    outcome, summary = replay(suite, tmp_path / "reports", "r1")
    scores = {r.case_id: r.score for r in outcome.results}
    fine, rivals = scores["pennant-fine"].figures["map_points"], scores["rivals"].figures["map_points"]
    assert fine is not None and rivals is not None and "report" not in scores["rivals"].figures
    # pennant-fine: both points cite; 3 ids, report 12 unknown; both facts said
    assert (fine.schema_ok, fine.points, fine.scores_in_range, fine.points_to_cite, fine.points_cited) == (True, 2, 2, 2, 2)
    assert (fine.citations, fine.citations_invalid, fine.gold_facts, fine.gold_facts_found) == (3, 1, 2, 2)
    # rivals: "high" is no score (schema fails, out of range); the 0-scored point need not cite, point 3 must
    assert (rivals.schema_ok, rivals.points, rivals.scores_in_range, rivals.points_to_cite, rivals.points_cited) == (
        False, 3, 2, 2, 1)
    assert (rivals.citations, rivals.citations_invalid, rivals.overlong_references) == (6, 0, 1)
    assert rows_kind(outcome.results) == "global_search_map"
    # the reports fill {context_data}: a prompt rendered without the case's data holds none of it
    assert not any(r.in_prompt_examples for r in outcome.results)
    metrics = summary.variants["default"].metrics
    micro = {name: metrics.get(name) for name in ("map_schema_valid", "map_scores_in_range", "map_citation_validity",
                                                  "map_points_cited", "map_fact_recall", "map_overlong_references")}
    # schema 1/2; in range (2 + 2)/(2 + 3); valid ids (2 + 6)/(3 + 6); cited (2 + 1)/(2 + 2); facts 2/2 (rivals gives none)
    assert micro == pytest.approx({"map_schema_valid": 0.5, "map_scores_in_range": 0.8, "map_citation_validity": 8 / 9,
                                   "map_points_cited": 0.75, "map_fact_recall": 1.0, "map_overlong_references": 1})
    # extraction figures have nothing to stand on in a map suite: n/a, not 0
    assert metrics.get("entity_recall") is None and metrics.get("grounding_rate") is None
    assert summary.kind == "global_search_map"
    row = json.loads((outcome.run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert "map_points" in row["score"] and "report" not in row["score"]


@pytest.mark.slow
def test_the_console_and_report_show_the_map_figures(project: Path, tmp_path: Path, api_key: str,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    suite = load_suite(project)
    with FakeOpenAIServer(Script(rounds={QUESTIONS[c]: [a] for c, a in ANSWERS.items()})) as server:
        record_cassettes(suite, server, tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY")
    code, out, err = harness(capsys, "run", str(project), "--record-mode", "none", "--reports",
                             str(tmp_path / "reports"), "--run-id", "cli")
    assert code == 0, err
    assert "cites ok" in out and "schema ok" in out and "entity recall" not in out
    report = next((tmp_path / "reports").rglob("cli/report.md")).read_text(encoding="utf-8")
    assert "Map citation validity" in report and "88.9%" in report


def test_the_shipped_map_suite_scores_as_its_readme_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # fixtures/responses/podcast-global-map/README.md, worked by hand there
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = load_suite(REPO / "suites" / "podcast-global-map.yaml")
    outcome, summary = replay(suite, tmp_path / "reports", "shipped")
    figures = {r.case_id: r.score.figures.get("map_points") for r in outcome.results}
    table = {case: (m.points, m.scores_in_range, m.points_to_cite, m.points_cited, m.citations, m.citations_invalid,
                    m.gold_facts_found, m.schema_ok) for case, m in figures.items()}
    assert table == {"regulators": (3, 3, 3, 3, 3, 0, 2, True), "funding": (2, 1, 2, 2, 5, 3, 1, True),
                     "outage": (3, 3, 2, 1, 1, 0, 1, True)}
    metrics = summary.variants["default"].metrics
    assert [metrics.get(n) for n in ("map_schema_valid", "map_scores_in_range", "map_citation_validity",
                                     "map_points_cited", "map_fact_recall")] == pytest.approx(
        [1.0, 7 / 8, 6 / 9, 6 / 7, 4 / 6])
    # the batches are GraphRAG's: no header line, the report ids of the README's table
    assert not suite.cases[0].text.startswith("-----") and suite.cases[0].text.startswith("id|title|occurrence weight|content|rank")


def test_a_template_that_declares_no_max_length_gets_graphrags_default(project: Path) -> None:
    # the built-in without its `max_length: "1000"`: the engine default (global_search.map_max_length) fills it
    text = (REPO / "harness" / "builtin_prompts" / "graphrag.global_search_map.yaml").read_text(encoding="utf-8")
    assert '  max_length: "1000"\n' in text
    prompt = project.parent.parent / "map.yaml"
    prompt.write_text(text.replace('  max_length: "1000"\n', ""), encoding="utf-8")
    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    data["variants"]["default"]["prompt"] = "../map.yaml"
    project.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    suite = load_suite(project)
    plan = plan_variant(suite, "default")
    assert plan.render(suite.cases[0])[0]["content"] == STOCK.format(context_data=CONTEXT, max_length=1000)
    assert plan.render(suite.cases[1])[0]["content"] == STOCK.format(context_data=CONTEXT, max_length=300)
