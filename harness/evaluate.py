"""`harness evaluate`: score answers another pipeline produced, with no model and no cassettes.

Each row of the outputs file (`{"id": CASE_ID, "output": TEXT}`, or `response` for `output`) is
one case's answer; a row `{"id": CASE_ID, "rounds": [FIRST, CONTINUATION, ...]}` is one case's
conversation (the first answer, then each gleaning answer). Either goes through the runner's own
per-round parse, merge and score (`run.evaluation.evaluate_case`) as the answer rounds of one variant, as a
recorded conversation is read, and the run ends in `finish.finish_run` like any other: a normal
run folder with results.jsonl, summary.json, reports and the gate. Rows whose id is not a case and
ids given twice are reported (the last row of an id counts, as in Text2KGBench's run_eval.py). A
case without a row is missing, not answered: it is listed (notes, summary.json's `outputs`, the
report) and gets no result row, so it is in no figure of the harness's (format errors, scores,
graph), where an empty answer would count as a format error and a miss. `--conventions
text2kgbench` adds Text2KGBench's figures (harness.scoring.conventions.text2kgbench) to the
summary, where a case without a row counts zero, as run_eval.py counts it; `--conventions webnlg`
adds the WebNLG+ 2020 text-to-RDF figures (harness.scoring.conventions.webnlg), where a case
without a row is an entry without a triple.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .artifacts import ConventionsSummary, EntityTypesUsed, OutputsSummary
from .errors import InputError
from .finish import FinishedRun, finish_run
from .formats import AUTO, DEFAULT_FORMAT, format_names
from .formats.base import Delimiters
from .inputfiles import MAX_RUN_FILE_BYTES, jsonl_lines, parse_json, read_bytes
from .llm.request_digest import request_hash
from .metrics.registry import metrics as registered_metrics
from .model import CaseResult, GoldCase, Round
from .names import check_name, safe_name
from .prompts.entity_types import effective_entity_types, suite_entity_types
from .prompts.template import PromptTemplate
from .runfolder import RESULTS, open_run_folder, selection_of, write_results
from .run.plan import ScoringPlan, plan_variant, variant_delimiters
from .run.evaluation import evaluate_case
from .scoring.conventions import CONVENTIONS
from .suites import Suite, VariantSpec

DEFAULT_VARIANT = "outputs"  # the variant's name when the file's name gives none


@dataclass(frozen=True)
class OutputRow:
    line: int
    id: str
    # the case's answers in order: the first answer, then each gleaning answer (one for `output`)
    answers: tuple[str, ...]
    # the row's own `triples` ([[subject, relation, object], ...]), as Text2KGBench's responses files
    # carry them: what its run_eval.py scores, so its conventions use them instead of the parse
    triples: list[tuple[str, str, str]] | None = None


@dataclass
class OutputsFile:
    """The rows of an outputs file matched against a suite's cases."""

    path: Path
    rows: list[OutputRow]
    by_case: dict[str, OutputRow] = field(default_factory=dict)  # the first row of each case id
    unknown: list[OutputRow] = field(default_factory=list)
    duplicates: list[OutputRow] = field(default_factory=list)  # rows a later row of their id replaced
    missing: list[str] = field(default_factory=list)  # case ids without a row

    def notes(self, *, conventions: str) -> list[str]:
        """One line per problem, for stderr and the JSON."""
        lines = [f"{self.path}:{row.line}: id '{row.id}' is not a case of the suite; row not scored"
                 for row in self.unknown]
        lines += [f"{self.path}:{row.line}: id '{row.id}' given again at line {self.by_case[row.id].line}; "
                  "only the last row is scored" for row in self.duplicates]
        counted = {"text2kgbench": "contributes zero to every Text2KGBench figure, and is left out of the harness's",
                   "webnlg": "scored as an entry without a triple by the WebNLG figures, and left out of the harness's",
                   }.get(conventions, "missing: not scored (n/a), left out of every figure")
        lines += [f"{self.path}: case '{case}' has no row; {counted}" for case in self.missing]
        return lines


def read_outputs(path: Path) -> list[OutputRow]:
    """Every non-blank line as a row; a line that is not a JSON object with a string `id` and
    either a string `output` (or `response`) or `rounds`, a non-empty list of strings, is bad
    input naming file:line."""
    data = read_bytes(path, limit=MAX_RUN_FILE_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    rows: list[OutputRow] = []
    for number, line in jsonl_lines(text):  # "\n" only: an answer may hold U+2028 inside a string
        if not line.strip():
            continue
        where = f"{path}:{number}"
        row = parse_json(line, where)
        if not isinstance(row, dict):
            raise InputError(f"{where}: a row is a JSON object {{\"id\": CASE_ID, \"output\": TEXT}}")
        case_id = row.get("id")
        if not isinstance(case_id, str) or not case_id:
            raise InputError(f"{where}: the row needs a string `id` (a case id)")
        rows.append(OutputRow(number, case_id, _answers(row, where, case_id),
                              _triples(row.get("triples"), where)))
    return rows


def _answers(row: dict, where: str, case_id: str) -> tuple[str, ...]:
    """The row's answer rounds: `rounds`, or its one `output` (`response`); never both."""
    single = next((key for key in ("output", "response") if key in row), None)
    if "rounds" in row:
        if single is not None:
            raise InputError(f"{where}: the row of '{case_id}' gives both `{single}` and `rounds`; give one of them")
        rounds = row["rounds"]
        if not isinstance(rounds, list) or not rounds or not all(isinstance(text, str) for text in rounds):
            raise InputError(f"{where}: `rounds` of '{case_id}' must be a non-empty list of strings "
                             "(the first answer, then each continuation)")
        return tuple(rounds)
    answer = row.get(single) if single is not None else None
    if not isinstance(answer, str):
        raise InputError(f"{where}: the row needs a string `output` (or `response`), "
                         "or `rounds`, a list of strings")
    return (answer,)


def answer_rounds(answers: tuple[str, ...]) -> list[Round]:
    """The rounds a recorded conversation of these answers holds: the first extraction, then one
    continuation per gleaning answer. The row holds no loop-check answers, so none is made up;
    each answer's index is its position in the row."""
    return [Round(index=position, kind="extract" if position == 0 else "continue", output=text)
            for position, text in enumerate(answers)]


def _triples(value: object, where: str) -> list[tuple[str, str, str]] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(
            isinstance(t, list) and len(t) == 3 and all(isinstance(part, str) for part in t) for t in value):
        raise InputError(f"{where}: `triples` must be a list of [subject, relation, object] strings")
    return [(t[0], t[1], t[2]) for t in value]


def match_cases(path: Path, rows: list[OutputRow], cases: list[GoldCase]) -> OutputsFile:
    """Rows by case; of an id given more than once the last row counts, as in Text2KGBench's
    run_eval.py (which reads the rows into a dict by id), and the earlier ones are reported."""
    known = {case.id for case in cases}
    matched = OutputsFile(path, rows)
    for row in rows:
        if row.id not in known:
            matched.unknown.append(row)
            continue
        if row.id in matched.by_case:
            matched.duplicates.append(matched.by_case[row.id])
        matched.by_case[row.id] = row
    matched.missing = [case.id for case in cases if case.id not in matched.by_case]
    return matched


def variant_name(given: str | None, outputs: Path) -> str:
    """`--variant`, else the file's name without its extension made a safe name, else 'outputs'."""
    if given is not None:
        return check_name(given, "--variant", "variant name")
    return safe_name(outputs.name.split(".")[0], fallback=DEFAULT_VARIANT)


def examples_prompt(suite: Suite, reference: str) -> PromptTemplate:
    """`--examples`: the prompt the outputs answered, a file (from the working folder) or
    `builtin:<name>`, read as the suite's engine reads prompt files."""
    from .prompts.resolve import resolve_prompt

    try:
        resolved = resolve_prompt(reference)
    except InputError as exc:
        raise InputError(f"--examples: {exc.message}") from None
    reader = None
    if suite.spec.engine is not None:
        from .llm.engine_conversation import conversation_for

        reader = conversation_for(suite.spec.engine).read_prompt_bytes
    return resolved.load(reader=reader)


def _suite_view(suite: Suite, name: str, spec: VariantSpec) -> Suite:
    """The suite with one variant, the evaluated one (the summary, gate and reports see only it)."""
    thresholds = suite.spec.thresholds.model_copy(
        update={"variants": {k: v for k, v in suite.spec.thresholds.variants.items() if k == name}})
    view = suite.spec.model_copy(update={"variants": {name: spec}, "baseline": None, "thresholds": thresholds})
    return Suite(view, suite.path, suite.root, suite.cases, allow_outside_files=suite.allow_outside_files)


def plan_outputs(suite: Suite, name: str, fmt: str | None, outputs: Path,
                 examples: str | None = None) -> tuple[Suite, ScoringPlan]:
    """A variant of the suite's name: its prompt's format, delimiters, entity types and examples
    (`--format` overriding the format; `examples`, `--examples`, the prompt whose example text the
    answers are read against). Another name: `--format` (default auto), the ontology's entity types
    (else the suite's), and with `examples` that prompt's example text, delimiters and entity
    types (the ontology's, else its own, else the suite's); without it no prompt at all."""
    if name in suite.spec.variants:
        spec = suite.spec.variants[name]
        if fmt is not None:
            spec = spec.model_copy(update={"format": fmt})
        view = _suite_view(suite, name, spec)
        plan: ScoringPlan = plan_variant(view, name)
        if examples is not None:
            fields = {f.name: getattr(plan, f.name) for f in dataclasses.fields(ScoringPlan) if f.init}
            plan = ScoringPlan(**{**fields, "template": examples_prompt(suite, examples)})
        return view, plan
    spec = VariantSpec(prompt=f"(outputs of another pipeline: {outputs})", format=fmt or AUTO)
    view = _suite_view(suite, name, spec)
    ontology = suite.spec.ontology
    template = PromptTemplate(user="{input_text}", source="<outputs>", format=spec.format or DEFAULT_FORMAT)
    suite_types = list(suite.spec.entity_types)
    types = suite_types
    effective = None
    if examples is not None:
        template = examples_prompt(suite, examples)
        effective = effective_entity_types(template, variant=None, suite=suite_entity_types(suite))
        types = effective.values
    if ontology is not None and ontology.entity_types:
        types = list(ontology.entity_types)
    plan = ScoringPlan(
        name=name, spec=spec, template=template, entity_types=types, language=suite.spec.language,
        format=spec.format or AUTO, delimiters=variant_delimiters(spec, template.meta, spec.format or AUTO),
        types=effective, prompt_known=examples is not None,
    )
    return view, plan


def text2kgbench_figures(suite: Suite, results: list[CaseResult], answered: dict[str, OutputRow],
                         delimiters: Delimiters | None = None) -> dict[str, float | None]:
    """Text2KGBench's averages over every case of the suite (a case not in `answered` counts zero).

    Its run_eval.py scores each triple's strings as they are (a leading space, quotes), so the
    triples are read as written, whichever door they came by: a row's own `triples` as given,
    else those of its answers, read by the format each answer was parsed in with every part kept
    as the answer writes it (`formats.answer.triples_as_written`), not the names the harness's parse
    keeps (stripped, unquoted) for its own figures. `delimiters`: the variant's, as parsed."""
    from .scoring.conventions import text2kgbench as t2k

    ontology = suite.spec.ontology
    if ontology is None:
        raise InputError(f"{suite.path}: --conventions text2kgbench needs the suite's `ontology:` "
                         "(its relations and concept labels)")
    relations = [relation.name for relation in ontology.relations]
    by_case = {row.case_id: row for row in results}
    figures = []
    for case in suite.cases:
        gold = [(r.source, r.type, r.target) for r in case.relationships]
        row = answered.get(case.id)
        if row is None:
            predicted = None
        elif row.triples is not None:
            predicted = row.triples
        else:
            predicted = _written(by_case.get(case.id), {} if delimiters is None else delimiters.as_variables())
        figures.append(t2k.sentence_figures(case.text, gold, predicted, relations=relations,
                                            concepts=ontology.entity_types))
    return t2k.average(figures, len(suite.cases))


def _written(result: CaseResult | None, delimiters: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """A case's triples as its answers write them, each answer read in the format it was parsed in."""
    from .formats.answer import triples_as_written

    if result is None:
        return []
    answers = [rnd for rnd in result.rounds if rnd.kind != "loop"]  # as runner.merge_rounds parses them
    formats = [report.format for report in result.round_reports] or [result.format_report.format] * len(answers)
    return [triple for rnd, fmt in zip(answers, formats) 
            for triple in triples_as_written(rnd.output, fmt, **delimiters, round=rnd.index)]


def webnlg_figures(suite: Suite, results: list[CaseResult], answered: dict[str, OutputRow],
                   delimiters: Delimiters | None = None) -> dict[str, float | None]:
    """The WebNLG+ 2020 text-to-RDF figures over every case of the suite, its gold relationships
    in order as the references. A row's triples, whichever door they came by, are read as the
    challenge's gtriples: its own `triples`, else its answers' JSON lists or `s | p | o` lines
    (webnlg.answer_triples), else the triples of the format the answer was parsed in, as written."""
    from .scoring.conventions import webnlg as wn

    by_case = {row.case_id: row for row in results}
    kept: list[wn.PairScore] = []
    for case in suite.cases:
        references = [wn.triple_line(r.source, r.type, r.target) for r in case.relationships]
        row = answered.get(case.id)
        candidates: list[str] = []
        if row is not None and row.triples is not None:
            candidates = [wn.triple_line(*triple) for triple in row.triples]
        elif row is not None:
            read = [wn.answer_triples(text) for text in row.answers]
            if all(lines is not None for lines in read):
                candidates = [line for lines in read for line in lines or []]
            else:
                candidates = [wn.triple_line(*t) for t in _written(by_case.get(case.id),
                                                                          {} if delimiters is None else delimiters.as_variables())]
        try:
            kept += wn.entry_pairs(references, candidates)
        except ValueError as exc:
            raise InputError(f"{suite.path}: case '{case.id}': {exc}") from None
    return wn.pooled(kept)


@dataclass
class Evaluation:
    """What `harness evaluate` prints: the run written, and the figures under the conventions asked."""

    finished: FinishedRun
    suite: str
    variant: str
    conventions: str
    cases: int  # the suite's cases (what Text2KGBench's figures average over)
    metrics: dict[str, float | None]
    notes: list[str]
    missing: list[str] = field(default_factory=list)  # cases without a row: not scored, in no harness figure

    @property
    def scored(self) -> int:
        """Cases the harness's figures stand on: those with a row."""
        return self.cases - len(self.missing)

    def to_json(self) -> dict:
        return {"suite": self.suite, "variant": self.variant, "conventions": self.conventions, "cases": self.cases,
                "scored": self.scored, "missing": list(self.missing), "metrics": self.metrics, "notes": self.notes}


def evaluate_outputs(suite: Suite, outputs: Path, *, variant: str | None = None, fmt: str | None = None,
                     conventions: str = "harness", reports_dir: Path = Path("reports"),
                     run_id: str | None = None, baseline: Path | None = None,
                     examples: str | None = None) -> Evaluation:
    """Score the outputs file against the suite into a new run folder (`run_id`: that folder,
    started over); `examples`: the prompt the outputs answered (`plan_outputs`)."""
    started = time.perf_counter()
    if conventions not in CONVENTIONS:
        raise InputError(f"--conventions: '{conventions}' is not one of {', '.join(CONVENTIONS)}")
    if fmt is not None and fmt not in (AUTO, *format_names()):
        raise InputError(f"--format: '{fmt}' is not one of {', '.join((AUTO, *format_names()))}")
    name = variant_name(variant, outputs)
    matched = match_cases(outputs, read_outputs(outputs), suite.cases)
    if not matched.by_case:
        raise InputError(f"{outputs}: no row answers a case of the suite {suite.name} ({len(matched.rows)} row(s); "
                         f"case ids look like '{suite.cases[0].id}')" if suite.cases else
                         f"{suite.path}: the suite has no case to score")
    view, plan = plan_outputs(suite, name, fmt, outputs, examples)
    if conventions == "text2kgbench" and suite.spec.ontology is None:
        text2kgbench_figures(suite, [], {})  # raises: the ontology is needed
    results = []
    answered = [case for case in suite.cases if case.id in matched.by_case]
    for case in answered:  # a case without a row is missing, not an empty answer: no result row
        answers = matched.by_case[case.id].answers
        # a one-answer row keeps the hash it always had; a conversation hashes all its answers
        digest = request_hash({"output": answers[0]} if len(answers) == 1 else {"rounds": list(answers)})
        results.append(evaluate_case(view, plan, case, answer_rounds(answers), digest))
    folder = open_run_folder(reports_dir, suite.name, selection_of([name], [c.id for c in answered]),
                             run_id=run_id, fresh=True, project=suite.root)
    try:
        write_results(folder.path / RESULTS, results)
        notes = matched.notes(conventions=conventions)
        block = OutputsSummary(file=str(outputs), conventions=conventions, rows=len(matched.rows),
                               unknown_ids=[r.id for r in matched.unknown],
                               duplicate_ids=[r.id for r in matched.duplicates], missing_cases=matched.missing)
        figures: dict[str, float | None]
        extra = None
        if conventions == "text2kgbench":
            figures = text2kgbench_figures(suite, results, matched.by_case, plan.delimiters)
            given = sum(1 for row in matched.by_case.values() if row.triples is not None)
            extra = ConventionsSummary(name=conventions, variant=name, cases=len(suite.cases), metrics=figures,
                                       rows_with_triples=given)
        elif conventions == "webnlg":
            figures = webnlg_figures(suite, results, matched.by_case, plan.delimiters)
            given = sum(1 for row in matched.by_case.values() if row.triples is not None)
            extra = ConventionsSummary(name=conventions, variant=name, cases=len(suite.cases), metrics=figures,
                                       rows_with_triples=given)
        types_used = {name: EntityTypesUsed.model_validate(plan.types.to_json())} if plan.types is not None else {}
        finished = finish_run(view, folder.path, results, record_mode="none", wall_s=time.perf_counter() - started,
                              entity_types=types_used, baseline=baseline, fallback=True, outputs=block, conventions=extra,
                              prompts={name: fp} if (fp := plan.fingerprint()) is not None else {})
    finally:
        folder.lock.release()
    if conventions == "harness":
        summary = finished.summary.variants[name]
        figures = {metric.name: summary.metric(metric.name) for metric in registered_metrics()}
    return Evaluation(finished, suite.name, name, conventions, len(suite.cases), figures, notes, list(matched.missing))


__all__ = ["DEFAULT_VARIANT", "Evaluation", "OutputRow", "OutputsFile", "answer_rounds", "evaluate_outputs",
           "examples_prompt",
           "match_cases", "plan_outputs", "read_outputs", "text2kgbench_figures", "variant_name", "webnlg_figures"]
