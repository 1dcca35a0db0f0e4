"""The run's judging: after the rows are scored, before the run is finished (finish.finish_run).

`run.schedule.run_suite` calls `judge_rows_async` once every row of a run is settled (no missing
cassette, no failed call), while it still holds the run folder's lock: `harness run`, `harness
record`, a resumed run and the pytest plugin all judge there, the same way, once; `harness
merge` joins shards that were each judged so. For each row (sample 0, without an error) of a suite with `judge:`, the pairs the string stages
left open are put to the judge (judges.matching), the row's `CaseScore.judged` is set, and
results.jsonl is written again with them, so `harness report` and `harness gate` read the same
rows. The run's `RunSummary.judges` is made from the rows and the pairwise file by
`judges.summary.judges_summary`, and its gate rules by `judges.summary.calibration_rules`: they
import no planning or calls, so the gate and the finish stay low in the layers.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts import PairwiseVerdict
from ..errors import CassetteMissingError, InputError, ModelCallError
from ..model import PAIRWISE_QUESTION, CaseResult, JudgeVerdict
from ..prompts.template import PromptTemplate
from ..scoring.case_metrics import measure
from . import pairwise
from .matching import judged_match, open_pairs
from . import facts
from .faithfulness import judged_faithfulness, statements
from .prompts import match_prompt, pairwise_prompt, support_prompt
from .verdict import read_support
from .config import PAIRWISE_FILE

FACT_KINDS = ("summarize_descriptions", "community_report")  # the suite kinds (c) judges


@dataclass
class JudgePlan:
    spec: Any  # suites.JudgeSpec
    template: PromptTemplate
    pairwise: PromptTemplate | None = None
    support: PromptTemplate | None = None  # (b) and (c), with `judge.faithfulness` or `judge.facts`


def plan_judge(suite: Any) -> JudgePlan | None:
    """The suite's judge, its prompt loaded (bad input: one line, exit 2); None without `judge:`."""
    spec = suite.spec.judge
    if spec is None:
        return None
    from ..suites import resolve_path

    path = None if spec.prompt is None else resolve_path(spec.prompt, suite.path, suite.root)
    plan = JudgePlan(spec, match_prompt(path))
    if spec.pairwise is not None:
        names = suite.variant_names()
        for end in ("a", "b"):
            if getattr(spec.pairwise, end) not in names:
                raise InputError(f"{suite.path}: judge.pairwise.{end}: no variant named "
                                 f"'{getattr(spec.pairwise, end)}' (have {', '.join(names)})")
        if spec.pairwise.a == spec.pairwise.b:
            raise InputError(f"{suite.path}: judge.pairwise: a and b name the same variant")
        prompt = spec.pairwise.prompt
        plan.pairwise = pairwise_prompt(None if prompt is None else resolve_path(prompt, suite.path, suite.root))
    _check_pairwise_judgements(suite, spec)
    if spec.facts and suite.spec.kind not in FACT_KINDS:
        raise InputError(f"{suite.path}: judge.facts: judges the facts of {' and '.join(FACT_KINDS)} suites, "
                         f"not of a {suite.spec.kind or 'extract_graph'} suite")
    if spec.faithfulness or spec.facts:
        prompt = spec.support_prompt
        plan.support = support_prompt(None if prompt is None else resolve_path(prompt, suite.path, suite.root))
    return plan


def _check_pairwise_judgements(suite: Any, spec: Any) -> None:
    """Reviewers' pairwise verdicts name the suite's pairwise question and one of its answers."""
    for case in suite.cases:
        for key, verdict in case.judgements.items():
            if not key.startswith(PAIRWISE_QUESTION):
                continue
            if spec.pairwise is None:
                raise InputError(f"{suite.path}: case '{case.id}': judgements {key!r}: the suite's judge has no pairwise:")
            expected = pairwise.question_id(spec.pairwise.a, spec.pairwise.b)
            allowed = (spec.pairwise.a, spec.pairwise.b, "tie")
            if key != expected:
                raise InputError(f"{suite.path}: case '{case.id}': judgements {key!r}: the pairwise question is {expected!r}")
            if verdict not in allowed:
                raise InputError(f"{suite.path}: case '{case.id}': judgements {key!r}: {verdict!r} is not one of "
                                 f"{', '.join(allowed)}")


def judge_rows(suite: Any, rows: list[CaseResult], record_mode: str, results_path: Path | None = None, *,
               base_url: str | None = None) -> int:
    """`judge_rows_async` from outside an event loop (tests, scripts/record_handwritten.py)."""
    return asyncio.run(judge_rows_async(suite, rows, record_mode, results_path, base_url=base_url))


async def judge_rows_async(suite: Any, rows: list[CaseResult], record_mode: str, results_path: Path | None = None, *,
                           base_url: str | None = None) -> int:
    """Judge every row in place (see the module docstring); returns the cassettes recorded.
    A missing or stale judge cassette is a `CassetteMissingError` naming the first one.
    `base_url` overrides the judge model's endpoint (tests, scripts/record_handwritten.py)."""
    plan = plan_judge(suite)
    if plan is None:
        return 0
    recorded = 0
    if plan.spec.match:
        recorded += await _judge(suite, plan, rows, record_mode, base_url)
    if plan.support is not None and plan.spec.faithfulness:
        recorded += await _faithful(suite, plan, rows, record_mode, base_url)
    if plan.support is not None and plan.spec.facts:
        recorded += await _facts(suite, plan, rows, record_mode, base_url)
    if results_path is not None and (plan.spec.match or plan.support is not None):
        from ..runfolder import write_results

        write_results(results_path, rows)
    if plan.pairwise is not None:
        found, verdicts = await _pairwise(suite, plan, rows, record_mode, base_url)
        recorded += found
        if results_path is not None:
            from ..atomicfile import atomic_write

            atomic_write(results_path.parent / PAIRWISE_FILE,
                         json.dumps([v.model_dump() for v in verdicts], ensure_ascii=False, indent=1) + "\n")
    return recorded


def _client(plan: JudgePlan, record_mode: str, base_url: str | None) -> Any:
    from ..llm.client import ModelClient
    from ..run.plan import endpoint_settings
    from .call import JUDGE_SETTINGS

    return ModelClient(endpoint_settings(plan.spec.model, base_url=base_url), replay=record_mode == "none",
                       setting_names=JUDGE_SETTINGS)


def _missing(suite: Any, what: str, path: Path, existed: bool) -> CassetteMissingError:
    why = "stale" if existed else "missing"
    return CassetteMissingError(f"{suite.path}: judge cassette {why} for {what} ({path}); record it with: "
                                f"harness record {suite.path} --record-mode {'rewrite' if existed else 'once'}")


async def _pairwise(suite: Any, plan: JudgePlan, rows: list[CaseResult], record_mode: str,
                    base_url: str | None) -> tuple[int, list[PairwiseVerdict]]:
    """(d): every case both variants answered (sample 0, no error), in both orders, `repeat` times."""
    from .call import judge_caller

    spec, template = plan.spec.pairwise, plan.pairwise
    assert spec is not None and template is not None
    answered = {(r.variant, r.case_id): r for r in rows if r.sample == 0 and r.error is None}
    verdicts: list[PairwiseVerdict] = []
    client = _client(plan, record_mode, base_url)
    try:
        with judge_caller(client, template, record_mode, suite.root) as caller:
            for case in suite.cases:
                a, b = answered.get((spec.a, case.id)), answered.get((spec.b, case.id))
                if a is None or b is None:
                    continue
                asked = pairwise.questions(case, a, b, spec.repeat)
                conversations = [template.render({"input_text": case.text, "first": first, "second": second}, case=case.id)
                                 for _, _, first, second in asked]
                path = pairwise.cassette_path(suite.root, suite.name, spec.a, spec.b, case.id)
                existed = path.exists()
                try:
                    texts = await caller.answers(path, conversations)
                except CassetteMissingError:
                    raise _missing(suite, f"the pairwise questions of case '{case.id}'", path, existed) from None
                except ModelCallError as exc:
                    raise ModelCallError(f"{suite.path}: judge, pairwise, case '{case.id}': {exc.message}") from None
                verdicts += [pairwise.verdict(case.id, k, order, text, spec.a, spec.b)
                             for (k, order, _, _), text in zip(asked, texts)]
            return caller.recorded, verdicts
    finally:
        await client.close()


async def _judge(suite: Any, plan: JudgePlan, rows: list[CaseResult], record_mode: str, base_url: str | None) -> int:
    from .call import judge_cassette_path, judge_caller

    cases = {case.id: case for case in suite.cases}
    client = _client(plan, record_mode, base_url)
    spec = plan.spec
    try:
        with judge_caller(client, plan.template, record_mode, suite.root) as caller:
            for row in rows:
                case, score = cases.get(row.case_id), row.score
                if case is None or score is None or row.sample != 0 or row.error is not None:
                    continue
                pairs, left_out = open_pairs(score, case, max_candidates=spec.max_candidates,
                                             max_questions=spec.max_questions)
                verdicts: dict[tuple[str, str], JudgeVerdict | None] = {}
                if pairs:
                    path = judge_cassette_path(suite.root, suite.name, row.variant, case.id)
                    existed = path.exists()
                    try:
                        verdicts = await caller.ask(path, case, pairs)
                    except CassetteMissingError:
                        raise _missing(suite, f"case '{case.id}' of variant '{row.variant}'", path, existed) from None
                    except ModelCallError as exc:
                        raise ModelCallError(f"{suite.path}: judge, case '{case.id}' of variant '{row.variant}': "
                                             f"{exc.message}") from None
                score.judged = judged_match(score, case, verdicts, left_out)
                row.metrics = measure(score)  # the row's stored values, judged figures included
            return caller.recorded
    finally:
        await client.close()


def faithful_cassette_path(root: Path, suite: str, variant: str, case_id: str) -> Path:
    return root / "fixtures" / "judge-cassettes" / suite / f"faithful.{variant}" / f"{case_id}.json"


@dataclass
class _Asked:
    """What a support question family asks of one row, and how its verdicts settle the row's score."""

    questions: list[tuple[str, str]]  # (the text to judge against, the statement), one a question
    settle: Callable[[list[JudgeVerdict | None]], None]  # the verdicts (None: unreadable), in order


async def _support_stage(suite: Any, plan: JudgePlan, rows: list[CaseResult], record_mode: str, base_url: str | None,
                         *, family: str, label: str, path_of: Callable[[Path, str, str, str], Path],
                         ask: Callable[[CaseResult, Any, Any], _Asked]) -> int:
    """A family asked with the support prompt ((b) and (c)): every row (sample 0, no error) asked
    what `ask` says, from its own cassette (`path_of`), and settled; the calls recorded."""
    from .call import judge_caller

    template = plan.support
    assert template is not None
    cases = {case.id: case for case in suite.cases}
    client = _client(plan, record_mode, base_url)
    try:
        with judge_caller(client, template, record_mode, suite.root) as caller:
            for row in rows:
                case, score = cases.get(row.case_id), row.score
                if case is None or score is None or row.sample != 0 or row.error is not None:
                    continue
                asked = ask(row, case, score)
                texts: list[str] = []
                if asked.questions:
                    conversations = [template.render({"input_text": against, "statement": statement}, case=case.id)
                                     for against, statement in asked.questions]
                    path = path_of(suite.root, suite.name, row.variant, case.id)
                    existed = path.exists()
                    try:
                        texts = await caller.answers(path, conversations)
                    except CassetteMissingError:
                        raise _missing(suite, f"{label} of case '{case.id}' of variant '{row.variant}'",
                                       path, existed) from None
                    except ModelCallError as exc:
                        raise ModelCallError(f"{suite.path}: judge, {family}, case '{case.id}' of variant "
                                             f"'{row.variant}': {exc.message}") from None
                asked.settle([read_support(t) for t in texts])
                row.metrics = measure(score)  # the row's stored values, judged figures included
            return caller.recorded
    finally:
        await client.close()


async def _faithful(suite: Any, plan: JudgePlan, rows: list[CaseResult], record_mode: str, base_url: str | None) -> int:
    """(b): every row's described entities and relationships against its chunk (sample 0, no error)."""

    def ask(row: CaseResult, case: Any, score: Any) -> _Asked:
        asked, left_out = statements(row.graph, plan.spec.max_questions)

        def settle(verdicts: list[JudgeVerdict | None]) -> None:
            score.faithful = judged_faithfulness(asked, verdicts, left_out)

        return _Asked([(case.text, statement) for _, _, statement in asked], settle)

    return await _support_stage(suite, plan, rows, record_mode, base_url, family="faithfulness",
                                label="the descriptions", path_of=faithful_cassette_path, ask=ask)


def facts_cassette_path(root: Path, suite: str, variant: str, case_id: str) -> Path:
    return root / "fixtures" / "judge-cassettes" / suite / f"facts.{variant}" / f"{case_id}.json"


def fact_questions(suite: Any, row: CaseResult, case: Any) -> tuple[list[tuple[str, str, str, float]], str]:
    """(c)'s unsure facts of a row, and the language its stems were taken in (the variant's, else the suite's)."""
    variant = suite.spec.variants.get(row.variant)
    language = (getattr(variant, "language", None) or suite.spec.language or "English")
    if suite.spec.kind == "summarize_descriptions":
        from ..kinds.summarize_descriptions import answer_text

        return facts.summary_questions(case, answer_text(row.rounds), language), language
    report = row.graph.report
    return ([] if report is None else facts.report_questions(report, case.text, language)), language


async def _facts(suite: Any, plan: JudgePlan, rows: list[CaseResult], record_mode: str, base_url: str | None) -> int:
    """(c): every row's unsure facts (sample 0, no error), each against its own text."""

    def ask(row: CaseResult, case: Any, score: Any) -> _Asked:
        asked, language = fact_questions(suite, row, case)

        def settle(verdicts: list[JudgeVerdict | None]) -> None:
            if suite.spec.kind == "summarize_descriptions":
                from ..kinds.summarize_descriptions import answer_text

                score.judged_facts = facts.judged_summary(case, answer_text(row.rounds), language, asked, verdicts)
            elif row.graph.report is not None:
                score.judged_facts = facts.judged_report(row.graph.report, case.text, language, asked, verdicts)

        return _Asked([(against, statement) for _, statement, against, _ in asked], settle)

    return await _support_stage(suite, plan, rows, record_mode, base_url, family="facts",
                                label="the unsure facts", path_of=facts_cassette_path, ask=ask)
