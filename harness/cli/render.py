"""How the CLI prints results: JSON documents, and the plain-text blocks of the commands that read
one answer or compare two runs (run tables and verdicts: reports/console.py)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..checks.answer_citations import CitationCheck
    from ..checks.query import QueryCheck


def emit_json(data: object) -> None:
    """Write `data` to stdout as indented JSON, non-ASCII kept as is (names in any script stay readable)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def parse_lines(result: Any) -> list[str]:
    """The plain-text view of `harness parse`: what was read, then each issue."""
    report = result.format_report
    lines = [f"format: {result.format}; entities {len(result.graph.entities)}, "
             f"relationships {len(result.graph.relationships)}, claims {len(result.graph.claims)}; "
             f"records {report.records_parsed}/{report.records_seen} parsed, {report.records_dropped} dropped; "
             f"completion {report.completion}"]
    for issue in report.issues:
        lines.append(f"  {issue.code}{' (dropped)' if issue.dropped else ''}: {issue.message}"
                     + (f"  [{issue.excerpt[:80]!r}]" if issue.excerpt else ""))
    return lines


def citation_lines(result: CitationCheck) -> list[str]:
    """The plain-text view of `harness citations`: counts, how the answer was read, each issue."""
    read_as = {"report": "a community report", "map": "a global-search map answer", "text": "a query answer"}[result.mode]
    lines = [f"{len(result.citations)} citation(s), {len(result.issues)} issue(s); read as {read_as}"]
    for issue in result.issues:
        lines.append(f"  {issue.code}: {issue.message}" + (f"  [{issue.excerpt[:80]!r}]" if issue.excerpt else ""))
    return lines


def score_lines(score: Any) -> list[str]:
    """The gold block of `harness score`: entities, relationships (typed too), what was missed."""
    from ..scoring import rate_text

    lines: list[str] = []
    ent, rel = score.entities, score.relationships
    lines.append(f"entities:      P {rate_text(ent.precision)}  R {rate_text(ent.recall)}  F1 {rate_text(ent.f1)}  "
                 f"({ent.tp} of {ent.gold} gold, {ent.pred} predicted; {ent.exact} exact, {ent.fuzzy} fuzzy)")
    lines.append(f"relationships: P {rate_text(rel.precision)}  R {rate_text(rel.recall)}  F1 {rate_text(rel.f1)}  "
                 f"({rel.tp} of {rel.gold} gold, {rel.pred} predicted; endpoints only)")
    typed = score.typed
    if typed is not None:  # typed gold: the predicate must match too
        lines.append(f"  typed:       P {rate_text(typed.precision)}  R {rate_text(typed.recall)}  "
                     f"F1 {rate_text(typed.f1)}  ({typed.tp} of {typed.gold} gold, {typed.pred} predicted; "
                     "endpoints and predicate)")
    if ent.missed:
        lines.append("missed entities: " + ", ".join(ent.missed))
    if rel.missed:
        lines.append("missed relationships: " + ", ".join(" — ".join(pair) for pair in rel.missed))
    if typed is not None and typed.missed:
        lines.append("missed typed relationships: " + ", ".join(f"({s}, {p}, {o})" for s, p, o in typed.missed))
    return lines


def query_lines(checked: QueryCheck) -> list[str]:
    """The plain-text view of a query-phase answer: what was read, then the issues."""
    from ..checks.query import SummaryAnswer

    fmt, answer = checked.format, checked.answer
    if isinstance(answer, SummaryAnswer):
        head = f"format: summary; {answer.words} word(s)"
        body: list[str] = []
    elif fmt == "map":
        points = answer.get("points") if isinstance(answer, dict) else None
        points = points if isinstance(points, list) else []
        head = f"format: map; {len(points)} point(s)"
        body = [f"  point {n} (score {p.get('score')!s}): {str(p.get('description', ''))[:100]}"
                if isinstance(p, dict) else f"  point {n}: {str(p)[:100]}" for n, p in enumerate(points, 1)]
    elif fmt == "drift":
        value = answer if isinstance(answer, dict) else {}
        text = value.get("intermediate_answer", value.get("response", ""))
        queries = value.get("follow_up_queries")
        head = (f"format: drift ({'primer' if 'intermediate_answer' in value else 'local'}); score {value.get('score')!s}; "
                f"{len(queries) if isinstance(queries, list) else 0} follow-up quer(ies)")
        body = [f"  answer: {str(text)[:100]}"] if text else []
    else:
        value = answer if isinstance(answer, dict) else {}
        head = f"format: rate; rating {value.get('rating')!s}"
        body = [f"  reason: {str(value.get('reason'))[:100]}"] if "reason" in value else []
    lines = [f"{head}; {len(checked.issues)} issue(s)", *body]
    for issue in checked.issues:
        lines.append(f"  {issue.code}: {issue.message}" + (f"  [{issue.excerpt[:80]!r}]" if issue.excerpt else ""))
    return lines


def reference_free_lines(rf: Any) -> list[str]:
    """The plain-text block of `harness score`: one figure family a line."""
    from ..scoring import rate_text

    def count(n: int | None, word: str) -> str:
        return f"{word}s n/a" if n is None else f"{n} {word}{'' if n == 1 else 's'}"

    lines = [f"reference-free: {rf.entities} {'entity' if rf.entities == 1 else 'entities'}, "
             f"{rf.grounded} grounded in the chunk; {count(rf.relationships, 'relationship')}"]
    if rf.ungrounded:
        lines.append("  ungrounded: " + ", ".join(rf.ungrounded))
    lines.append(f"  type conformance {rate_text(rf.type_conformance)}"
                 + (" (no --entity-types)" if rf.type_conformance is None and rf.conforming_records is None else "")
                 + f"; {count(rf.duplicate_records, 'duplicate record')}, {count(rf.type_conflicts, 'type conflict')}")
    lines.append(f"  {rf.dangling} dangling, {count(rf.self_loops, 'self-loop')}, "
                 f"{count(rf.empty_descriptions, 'empty description')}, "
                 f"{count(rf.strengths_out_of_scale, 'strength')} out of scale")
    if rf.example_leaks is None:
        lines.append("  example leaks: n/a (no --examples)")
    else:
        lines.append(f"  example leaks: {rf.example_leaks}"
                     + (f" ({', '.join(rf.example_leak_names)})" if rf.example_leak_names else ""))
    if rf.type_word_names:  # a finding only when there is one: no line for 0 or n/a
        lines.append(f"  names that are type words (name and type swapped): {rf.type_word_names} "
                     f"({', '.join(rf.type_word_names_found)})")
    if rf.example_relationships:
        lines.append(f"  {count(rf.example_relationships, 'relationship')} with an endpoint from the examples "
                     f"({', '.join(rf.example_endpoint_names)})")
    if rf.example_descriptions:
        lines.append(f"  {count(rf.example_descriptions, 'description')} copied from the prompt's text")
    if rf.ungrounded_endpoints:
        lines.append(f"  {count(rf.ungrounded_endpoints, 'relationship')} with an endpoint not in the chunk")
    return lines


def compare_line(name: str, delta: Any) -> str:
    """One metric of `harness compare`: macro a -> b in the metric's unit (a rate in %, a count per
    case), the change with its interval, p, whether it is real, and cases better/worse/same in the
    metric's direction (fewer dangling edges is better)."""
    from ..metrics import get as get_metric

    spec = get_metric(name)
    assert spec is not None  # compare reports registered metrics only
    unit = " per case" if spec.is_count else ""
    real = "  real" if delta.significant else ""
    return (f"{spec.format(delta.macro_a):>7} -> {spec.format(delta.macro_b):>7}{unit}  "
            f"Δ {spec.format_change(delta.delta)} [{spec.format_change(delta.ci_low)}, "
            f"{spec.format_change(delta.ci_high)}]  p={delta.p_value:.3f}{real}  "
            f"better {delta.improved} · worse {delta.regressed} · same {delta.unchanged}")


def comparison_lines(comparison: Any) -> list[str]:
    """One comparison of `harness compare`: its two sides, each metric's change, the worst regressions."""
    lines: list[str] = []
    alone = [f"{len(cases)} only in {label}" for cases, label in
             ((comparison.only_in_a, comparison.label_a), (comparison.only_in_b, comparison.label_b)) if cases]
    lines.append(f"{comparison.label_a} -> {comparison.label_b}  ({len(comparison.cases)} paired cases; "
                 + (f"{', '.join(alone)}: left out; " if alone else "") + "changes are B minus A)")
    spread = comparison.repeat_spread
    if spread is not None:  # both runs repeated (--repeat N): per metric, beyond the repeat spread or not
        lines.append(f"  repeats: spread {spread.rule}")
    for name, delta in comparison.metrics.items():
        if delta.delta is None:
            continue
        verdict = spread.metrics[name].exceeds if spread is not None and name in spread.metrics else None
        beyond = "" if spread is None else "  spread: " + ("n/a" if verdict is None else
                                                          "exceeded" if verdict else "within")
        lines.append(f"  {name:24s} {compare_line(name, delta)}{beyond}")
    for case in comparison.worst_regressions(5):
        lost = ", ".join(case.newly_missed_entities) or "—"
        lines.append(f"  regressed: {case.case_id} ({case.f1_changes_text()}); newly missed: {lost}")
    return lines
