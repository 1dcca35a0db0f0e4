"""A case's answers parsed and scored: its rounds merged into one graph, the engine's reading,
the suite kind's figures and the reference-free ones, into the row of results.jsonl."""

from __future__ import annotations
from collections.abc import Iterable
from ..model import (
    CaseResult, CaseScore, ExtractedGraph, FormatIssue, FormatReport, GoldCase, RecoveredResult, Round, Usage,
)
from ..formats.answer import parse
from ..scoring import measure, score_case
from ..scoring.engine_reading import read_as_engine
from ..kinds.spec import ScoreInput
from ..suites import Suite
from .plan import ScoringPlan


def merge_rounds(rounds: list[Round], plan: ScoringPlan) -> tuple[ExtractedGraph, FormatReport, list[FormatReport]]:
    """Parse each extraction round on its own and combine them; loop checks are not parsed."""
    graph = ExtractedGraph()
    reports: list[FormatReport] = []
    for rnd in rounds:
        if rnd.kind == "loop":
            continue
        result = parse(
            rnd.output,
            plan.format,
            **plan.delimiters.as_variables(),
            round=rnd.index,
        )
        if rnd.finish_reason == "length":
            result.format_report.issues.append(truncated_issue(rnd))
        graph.entities.extend(result.graph.entities)
        graph.relationships.extend(result.graph.relationships)
        graph.claims.extend(result.graph.claims)
        graph.report = graph.report or result.graph.report
        reports.append(result.format_report)
    combined = FormatReport(
        format=reports[0].format if reports else plan.format,
        records_seen=sum(r.records_seen for r in reports),
        records_parsed=sum(r.records_parsed for r in reports),
        records_dropped=sum(r.records_dropped for r in reports),
        completion=_worst_completion(r.completion for r in reports),
        issues=[issue for r in reports for issue in r.issues],
    )
    return graph, combined, reports


def truncated_issue(rnd: Round) -> FormatIssue:
    """The finding for an answer the model stopped at its token limit: its own code, so a cut-off
    answer is told apart from one that merely forgot the completion delimiter."""
    return FormatIssue(code="truncated", round=rnd.index, excerpt=rnd.output[-80:],
                       message=f"answer {rnd.index} was cut off at the token limit (finish_reason length)")


def _worst_completion(statuses: Iterable[str]) -> str:
    statuses = list(statuses)
    for status in ("misplaced", "missing"):
        if status in statuses:
            return status
    return "present" if statuses else "missing"


def suite_citation_datasets(suite: Suite) -> list[str] | None:
    """The datasets a suite's answers may cite when the suite says (`citations: {datasets: ...}`);
    None: the suite kind's own (a graph community report cites Entities, Relationships, Claims and
    Reports, GraphRAG's graph context)."""
    return list(suite.spec.citations.datasets) if "citations" in suite.spec.model_fields_set else None


def _score(suite: Suite, plan: ScoringPlan, case: GoldCase, rounds: list[Round], graph: ExtractedGraph,
           read_format: str) -> CaseScore:
    """The case's figures on one graph: gold, reference-free (extraction kinds) and the kind's own."""
    extraction = plan.kind.extraction_figures
    score = score_case(case, graph, suite.spec.matching, suite.spec.ontology if extraction else None)
    if extraction:  # other kinds' answers hold no graph: grounding, types, leaks... are n/a, not 0
        score.reference_free = plan.reference_free(case, graph, read_format, suite.spec.matching,
                                                   answers=[rnd.index for rnd in rounds if rnd.kind != "loop"])
    return plan.kind.score(ScoreInput(case=case, graph=graph, rounds=rounds, matching=suite.spec.matching,
                                      ontology=suite.spec.ontology, language=plan.language,
                                      datasets=suite_citation_datasets(suite), examples=plan.examples_text(case)),
                           score)


def evaluate_case(suite: Suite, plan: ScoringPlan, case: GoldCase, rounds: list[Round], digest: str,
                  sample: int = 0) -> CaseResult:
    """One case scored. A graph-building suite that names its engine (`engine:`) is scored on the
    graph that engine's parser would keep; the harness's own graph is scored too, as `recovered`."""
    graph, combined, per_round = merge_rounds(rounds, plan)
    usage = Usage()
    for rnd in rounds:
        usage = usage + rnd.usage
    engine, recovered = None, None
    if suite.spec.engine and plan.kind.extraction_figures:
        view = read_as_engine(suite.spec.engine, rounds, graph, plan.delimiters, plan.format)
        engine = view.read
        own = _score(suite, plan, case, rounds, graph, combined.format)
        recovered = RecoveredResult(graph=graph, score=own, metrics=measure(own))
        graph = view.graph
    score = _score(suite, plan, case, rounds, graph, combined.format)
    return CaseResult(
        engine=engine,
        recovered=recovered,
        suite=suite.name,
        variant=plan.name,
        case_id=case.id,
        request_hash=digest,
        rounds=rounds,
        graph=graph,
        format_report=combined,
        round_reports=per_round,
        score=score,
        metrics=measure(score),  # the one evaluation of the metric registry on this case
        in_prompt_examples=plan.prompt_contains_chunk(case),
        usage=usage,
        latency_s=round(sum(r.latency_s for r in rounds if r.latency_s is not None), 6)
        if rounds and all(r.timed for r in rounds) else None,
        sample=sample,
    )
