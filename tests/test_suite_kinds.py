"""Suite kinds end to end: the shipped summary suite replays from its cassettes with GraphRAG's
own prompt filled as GraphRAG fills it, one call per case, and its figures lead every output."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness.kinds.registry import get_kind, rows_kind
from harness.run.plan import plan_variant
from harness.suites import load_suite

from .conftest import REPO
from .reports.helpers import harness

SUITE = REPO / "suites" / "podcast-summaries.yaml"

# GraphRAG v3.1.2 packages/graphrag/graphrag/prompts/index/summarize_descriptions.py (MIT,
# Copyright (c) Microsoft Corporation), the same text since v2.0.0
GRAPHRAG_SUMMARIZE_PROMPT = """
You are a helpful assistant responsible for generating a comprehensive summary of the data provided below.
Given one or more entities, and a list of descriptions, all related to the same entity or group of entities.
Please concatenate all of these into a single, comprehensive description. Make sure to include information collected from all the descriptions.
If the provided descriptions are contradictory, please resolve the contradictions and provide a single, coherent summary.
Make sure it is written in third person, and include the entity names so we have the full context.
Limit the final description length to {max_length} words.

#######
-Data-
Entities: {entity_name}
Description List: {description_list}
#######
Output:
"""


def test_the_default_variant_sends_graphrags_prompt_as_graphrag_fills_it() -> None:
    suite = load_suite(SUITE)
    plan = plan_variant(suite, "default")
    by_id = {case.id: case for case in suite.cases}
    for case_id, entity_id, limit in (("stratocore", "STRATOCORE", 500),
                                      ("whitfield-northgate", ["DANA WHITFIELD", "NORTHGATE ROBOTICS"], 60)):
        case = by_id[case_id]
        # GraphRAG: prompt.format(entity_name=json.dumps(id), description_list=json.dumps(sorted(...)), max_length=...)
        expected = GRAPHRAG_SUMMARIZE_PROMPT.format(
            entity_name=json.dumps(entity_id, ensure_ascii=False),
            description_list=json.dumps(sorted(case.descriptions), ensure_ascii=False), max_length=limit)
        assert plan.render(case) == [{"role": "user", "content": expected}]
    assert (plan.format, plan.max_gleanings) == ("summary", 0)  # the suite's model says nothing; no gleaning


def test_an_extraction_plan_fills_what_it_always_filled() -> None:
    suite = load_suite(REPO / "suites" / "podcast.yaml")
    plan = plan_variant(suite, "default")
    case = suite.cases[0]
    assert plan.variables(case) == {
        "input_text": case.text, "entity_types": "organization,person,geo,event", "tuple_delimiter": "<|>",
        "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>", "language": "English"}
    assert plan.max_gleanings == 1 and plan.kind is get_kind("extract_graph")


def test_an_extraction_case_may_give_its_own_example_over_the_templates() -> None:
    """`example:` of a case fills the prompt's `{example}` (Text2KGBench chooses one per sentence);
    a case without one leaves the template's own; another kind's case may not give one."""
    from harness.kinds.registry import case_problem
    from harness.prompts.template import PromptTemplate
    from harness.suites import CaseSpec

    suite = load_suite(REPO / "suites" / "podcast.yaml")
    plan = plan_variant(suite, "default")
    plan.template = PromptTemplate(user="{example}\n\n{input_text}", defaults={"example": "E: the template's"})
    case = suite.cases[0]
    assert "example" not in plan.variables(case)
    assert plan.render(case)[0]["content"].startswith("E: the template's\n\n")
    own = case.model_copy(update={"example": "E: this case's"})
    assert plan.variables(own)["example"] == "E: this case's"
    assert plan.render(own)[0]["content"] == f"E: this case's\n\n{case.text}"
    assert plan.examples_text(own) == "E: this case's\n\n" and plan.examples_text(case) == "E: the template's\n\n"
    assert case_problem("extract_graph", CaseSpec(id="c", text="t", example="E")) is None
    assert case_problem("summarize_descriptions", CaseSpec(id="c", entity_name="A", descriptions=["d"], example="E")) \
        == (("example",), "`example` is not an input of a summarize_descriptions case")


def test_the_shipped_summary_suite_runs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, out, err = harness(capsys, "run", str(SUITE), "--record-mode", "none", "--gate", "--reports", str(tmp_path))
    assert code == 0, err
    assert "facts kept" in out and "3rd person" in out and "entity recall" not in out and "communities" not in out
    run_dir = next((tmp_path / "podcast-summaries").iterdir())
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["kind"] == "summarize_descriptions"
    default, tuned = (summary["variants"][v]["metrics"]["metrics"] for v in ("default", "tuned"))
    # default keeps 4+3+4+4+4+2+1 = 22 of 4+3+4+4+4+4+1 = 24 description facts (ferrovia-pay drops 2)
    assert default["facts_kept"]["micro"] == pytest.approx(22 / 24)
    # tuned: stratocore keeps 1 of 4: 21 of 24; harcastle-bank adds 1 of its 4 summary facts: 1 of 15
    assert tuned["facts_kept"]["micro"] == pytest.approx(21 / 24)
    assert tuned["facts_added"]["micro"] == pytest.approx(1 / 15)
    # default: dana-whitfield is 61 words over its 40, stratocore says "we": 6 of 7 each
    assert default["within_length"]["micro"] == pytest.approx(6 / 7)
    assert default["third_person"]["micro"] == pytest.approx(6 / 7)
    assert default["gold_facts_recall"]["micro"] == 1.0  # dana-whitfield's two gold facts
    assert default["entity_recall"]["micro"] is None and default["grounding_rate"]["micro"] is None
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 14 and all(len(row["rounds"]) == 1 for row in rows)
    assert all("summary" in row["score"] and row["score"]["reference_free"] is None for row in rows)
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "| Description facts kept |" in report and "Entity recall" not in report and "## Graph size" not in report
    assert "dropped: Cloud provider that lost its Eastmarch region" in report
    junit = ET.parse(run_dir / "junit.xml").getroot()
    names = {p.get("name") for p in junit.iter("property")}
    assert "facts_kept" in names and "entity_recall" not in names


def test_a_runs_kind_is_read_from_its_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.run.schedule import RunOptions, run_suite

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    summaries = run_suite(load_suite(SUITE), RunOptions(record_mode="none", reports_dir=tmp_path, cases=["estrava"]))
    assert rows_kind(summaries.results) == "summarize_descriptions"
    extraction = run_suite(load_suite(REPO / "suites" / "podcast.yaml"),
                           RunOptions(record_mode="none", reports_dir=tmp_path, cases=["series-a-funding"]))
    assert rows_kind(extraction.results) == "extract_graph"


def test_engine_defaults_give_way_to_what_the_template_declares() -> None:
    from harness.prompts.template import PromptTemplate

    suite = load_suite(SUITE)
    plan = plan_variant(suite, "default")
    estrava = next(case for case in suite.cases if case.id == "estrava")  # gives no max_length
    plan.template = PromptTemplate(user="{entity_name}: {input_text} in {max_length}", format="summary")
    assert plan.variables(estrava)["max_length"] == "500"  # GraphRAG's default: the template declares none
    plan.template = PromptTemplate(user="{entity_name}: {input_text} in {max_length}", format="summary",
                                   defaults={"max_length": "120"})
    assert "max_length" not in plan.variables(estrava)  # the template's own 120 fills it
    assert plan.render(estrava)[0]["content"].endswith(" in 120")
    dana = next(case for case in suite.cases if case.id == "dana-whitfield")
    assert plan.variables(dana)["max_length"] == "40"  # the case's own limit wins over both


def test_report_and_claims_prompts_are_filled_as_graphrag_fills_them() -> None:
    from dataclasses import dataclass, field

    from harness.formats.base import Delimiters
    from harness.model import GoldCase

    @dataclass
    class Plan:
        entity_types: list[str] = field(default_factory=lambda: ["organization", "person"])
        delimiters: Delimiters = field(default_factory=lambda: Delimiters(tuple="<|>", record="##",
                                                                         completion="<|COMPLETE|>"))
        language: str = "English"

    report = get_kind("community_report")
    context = "-----Entities-----\nid,entity,description\n1,ACME,makes rockets"
    # GraphRAG 2.x/3.x: {input_text} the context, {max_report_length} community_reports.max_length (2000)
    assert report.variables(Plan(), GoldCase(id="r", text=context)) == {"input_text": context, "language": "English"}
    assert report.engine_defaults == {"max_report_length": "2000"}
    assert (report.answer_format, report.gleans) == ("report", False)
    claims = get_kind("extract_claims")
    filled = claims.variables(Plan(), GoldCase(id="c", text="Acme sued Bo."))
    # GraphRAG formats the entity types list itself; extract_claims.description's default
    assert filled["entity_specs"] == "['organization', 'person']" and filled["entity_types"] == "organization,person"
    assert "claim_description" not in filled and claims.engine_defaults == {
        "claim_description": "Any claims or facts that could be relevant to information discovery."}
    given = claims.variables(Plan(), GoldCase(id="c", text="t", entity_specs=["ACME"], claim_description="lawsuits"))
    assert (given["entity_specs"], given["claim_description"]) == ("['ACME']", "lawsuits")
    assert (claims.answer_format, claims.gleans) == ("claims", True)


def test_summary_thresholds_gate_the_run_and_each_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.finish import summarize
    from harness.gate import gate_config, judge
    from harness.run.schedule import RunOptions, run_suite
    from harness.gate_settings import Thresholds

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = load_suite(SUITE)
    suite.spec = suite.spec.model_copy(update={"thresholds": Thresholds(within_length=1.0, gold_facts_recall=0.5)})
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path))
    summary = summarize(suite, "t", outcome.results, record_mode="none", wall_s=0, entity_types=outcome.entity_types)
    judgement = judge(summary, outcome.results, config=gate_config(suite))
    rules = {(r.variant, r.metric): r.status for r in judgement.verdict.rules if r.rule == "threshold"}
    # default: 6 of 7 within their limit (dana-whitfield: 61 words over 40); tuned: 7 of 7
    assert rules[("default", "within_length")] == "fail" and rules[("tuned", "within_length")] == "pass"
    assert rules[("default", "gold_facts_recall")] == "pass"  # dana-whitfield's 2 gold facts, both found
    assert judgement.verdict.status == "fail"
    failing = sorted(key for key, check in judgement.checks.items() if not check.passed)
    assert failing == [("default", "dana-whitfield")]  # the case over its limit, and only it


def test_a_variant_whose_prompt_is_of_another_kind_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the summary suite with its tuned variant pointed at the tuned extraction prompt (kind graphrag.extract_graph)
    text = SUITE.read_text(encoding="utf-8").replace("prompts/podcast/auto.summarize_descriptions.yaml",
                                                      "prompts/podcast/auto.yaml")
    assert "prompts/podcast/auto.yaml" in text
    (tmp_path / "suites").mkdir()
    shutil.copytree(REPO / "prompts" / "podcast", tmp_path / "prompts" / "podcast")
    path = tmp_path / "suites" / SUITE.name
    path.write_text(text, encoding="utf-8")
    code, _, err = harness(capsys, "run", str(path), "--record-mode", "none")
    assert code == 2
    assert err.strip().count("\n") == 0 and "variant 'tuned'" in err
    assert "kind: graphrag.extract_graph" in err and "summarize_descriptions suite" in err


def test_a_report_is_scored_against_its_variants_own_example() -> None:
    """Issue 28: names copied from the prompt's example report are counted in a run (the runner
    hands the kind's scorer the prompt without the context)."""
    from harness.model import Round
    from harness.run.evaluation import evaluate_case

    suite = load_suite(REPO / "suites" / "podcast-reports.yaml")
    plan = plan_variant(suite, "default")  # builtin:graphrag.community_report: the Brightwater Shipping example
    case = suite.cases[0]
    finding = {"summary": "s", "explanation": "Brightwater Shipping was fined in the Essel estuary. [Data: Entities (1)]"}
    answer = json.dumps({"title": "Brightwater Shipping", "summary": "s", "rating": 5, "rating_explanation": "r",
                         "findings": [finding] * 5})
    row = evaluate_case(suite, plan, case, [Round(index=0, kind="extract", output=answer)], "h")
    assert row.score.figures.get("report") is not None
    assert row.score.figures["report"].example_names_found == ["BRIGHTWATER SHIPPING", "ESSEL ESTUARY"]
