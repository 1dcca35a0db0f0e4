"""Run artifacts: the typed values a finished run writes and later commands read back.

`summary.json` is a `RunSummary`, `gate.json` a `Verdict`, `baselines/<suite>.json` a `Baseline`,
and a comparison (`harness compare --json`, summary.json's `comparisons`) a `ComparisonSummary`.
Each file is its model's dump, key for key (order kept, optional keys absent when unset, ints
kept as ints), and reading one back validates it into the model. The JSON schemas in
`harness/schemas/` are generated from these models (`scripts/write_schemas.py`).

Upstream values (CaseScore, SuiteMetrics, GraphStats, Usage) live in `harness.model`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, TypeVar

from pydantic import Field, ValidationError, create_model, model_serializer, model_validator

from .errors import InputError
from .metrics.registry import get as get_metric
from .metrics.registry import metrics as registered_metrics
from .model import GraphStats, SuiteKind, SuiteMetrics, Usage, Value
from .significance import is_real_difference, min_paired_cases
from .gate_settings import Regression, Thresholds

if TYPE_CHECKING:
    import pandas as pd

Status = Literal["pass", "warn", "fail", "skip"]
Number = int | float  # a JSON number kept as computed: an int stays an int

# 2: a comparison's per-case diffs moved out of summary.json into case_diffs.jsonl (its
# `case_diffs` keeps the worst regressions' only); version 1 summaries, every diff inline, still read
SUMMARY_SCHEMA_VERSION: Final = 2
SUMMARY_SCHEMA_VERSIONS: Final = (1, 2)  # the versions this harness reads
GATE_SCHEMA_VERSION: Final = 1
BASELINE_SCHEMA_VERSION: Final = 1
_TOL = 1e-12


class Artifact(Value):
    """A value written to a file: keys named in `omit_if_none` are left out while unset."""

    omit_if_none: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _leave_out_unset(self, handler: Any) -> Any:
        data = handler(self)
        for key in self.omit_if_none:
            if isinstance(data, dict) and key in data and data[key] is None:
                del data[key]
        return data

    def to_json(self) -> dict[str, Any]:
        return self.model_dump()


A = TypeVar("A", bound=Value)


def read_artifact(model: type[A], data: Any, path: Path | str, what: str) -> A:
    """`data` (parsed JSON) as `model`; anything wrong is one InputError naming the file and the key."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "(top level)"
        raise InputError(f"{path}: not a valid {what}: {where}: {error['msg']}") from None


# --------------------------------------------------------------------------- comparisons


class MetricDelta(Value):
    """One metric, b - a, over the paired cases where both sides have a value."""

    metric: str = Field("", exclude=True)  # the key it is stored under
    n: int
    macro_a: float | None
    macro_b: float | None
    delta: float | None  # mean of per-case differences = macro_b - macro_a
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    improved: int
    regressed: int
    unchanged: int
    # a count metric's micro is its total: an int, kept as one (Number)
    micro_a: Number | None
    micro_b: Number | None
    micro_delta: Number | None
    significant: bool = False  # is_real_difference: enough cases, interval excludes zero, p < 1 - confidence


class GraphDiff(Value):
    """What one case's extracted graph gained and lost from a to b (names as the model wrote them)."""

    entities_gained: list[str] = []
    entities_lost: list[str] = []
    entities_retyped: list[list[str]] = []  # [name, type in a, type in b]
    relationships_gained: list[list[str]] = []  # [source, target]
    relationships_lost: list[list[str]] = []


class CaseDiff(Value):
    """One paired case: per-metric values and deltas, what gold items it newly missed or found, the graph diff."""

    case_id: str
    a: dict[str, float | None]
    b: dict[str, float | None]
    delta: dict[str, float | None]
    newly_missed_entities: list[str] = []
    newly_found_entities: list[str] = []
    newly_missed_relationships: list[list[str]] = []
    newly_found_relationships: list[list[str]] = []
    graph: GraphDiff = GraphDiff()

    @property
    def f1_change(self) -> float:
        """Ranking key for regressions: entity F1 delta plus relationship F1 delta. A sum of two
        changes (down to -2): never shown as "the F1 change" (`f1_changes_text` says each)."""
        return (self.delta.get("entity_f1") or 0.0) + (self.delta.get("relationship_f1") or 0.0)

    def f1_changes_text(self) -> str:
        """Each F1 change, labelled: "entity F1 -1.000, relationship F1 -1.000" (n/a without a value)."""
        return f1_changes_text(self.delta.get("entity_f1"), self.delta.get("relationship_f1"))


def f1_changes_text(entity: float | None, relationship: float | None) -> str:
    """The entity and relationship F1 changes of a case as one labelled text."""
    def cell(value: float | None) -> str:
        return "n/a" if value is None else f"{value:+.3f}"
    return f"entity F1 {cell(entity)}, relationship F1 {cell(relationship)}"


class ComparisonSettings(Artifact):
    omit_if_none: ClassVar[tuple[str, ...]] = ("significant",)
    delta: str
    interval: str
    p_value: str
    significant: str | None = None  # absent in files written before the rule was spelled out here
    seed: int
    resamples: int
    confidence: float


class PairedCases(Value):
    paired: int
    only_in_a: list[str]
    only_in_b: list[str]
    unscored: list[str]


class WorstRegression(Value):
    case_id: str
    f1_change: float  # entity F1 change + relationship F1 change: the ranking key, not one F1 change
    newly_missed_entities: list[str]
    newly_missed_relationships: list[list[str]]


class ComparisonSummary(Artifact):
    """A comparison as written: `harness compare --json`, and summary.json's `comparisons.<variant>`.

    `case_diffs` holds every paired case's diff, except in summary.json from schema version 2 on:
    there it holds the worst regressions' diffs only (what the reports show), and every diff is a
    line of the run folder's `case_diffs_file` (runfolder.read_case_diffs reads either)."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("repeat_spread", "case_diffs_file")
    a: str
    b: str
    settings: ComparisonSettings
    cases: PairedCases
    metrics: dict[str, MetricDelta]
    worst_regressions: list[WorstRegression]
    case_diffs: list[CaseDiff]
    # beside summary.json (schema version 2): the file holding every paired case's diff, one JSON
    # line each; absent in `harness compare --json` and in version 1 summaries (all inline)
    case_diffs_file: str | None = None
    # with repeated runs on both sides (`--repeat N`): per metric, whether the difference exceeds
    # the repeat-to-repeat spread (docs/reports.md); absent without repeats
    repeat_spread: SpreadVerdicts | None = None

    @model_validator(mode="after")
    def _name_metrics(self) -> ComparisonSummary:
        for name, delta in self.metrics.items():
            delta.metric = name
        return self

    def delta(self, metric: str) -> MetricDelta | None:
        return self.metrics.get(metric)

    def case_diff(self, case_id: str) -> CaseDiff | None:
        return next((d for d in self.case_diffs if d.case_id == case_id), None)

    def bounded(self, file: str) -> ComparisonSummary:
        """This comparison as summary.json (version 2) holds it: the worst regressions' diffs
        inline, every diff in `file` (written by the caller)."""
        worst = {w.case_id for w in self.worst_regressions}
        return self.model_copy(update={"case_diffs": [d for d in self.case_diffs if d.case_id in worst],
                                       "case_diffs_file": file})


class Comparison(Value):
    """b against a, case by case (`harness.compare.compare` computes it)."""

    label_a: str
    label_b: str
    seed: int
    resamples: int
    confidence: float
    metrics: dict[str, MetricDelta]
    cases: list[CaseDiff]
    only_in_a: list[str] = []
    only_in_b: list[str] = []
    unscored: list[str] = []  # paired cases without a score on at least one side
    repeat_spread: SpreadVerdicts | None = None  # both sides repeated (`--repeat N`): see SpreadVerdicts

    def worst_regressions(self, k: int = 10, metric: str | None = None) -> list[CaseDiff]:
        """The `k` cases that lost most (by `metric`'s delta, default entity F1 + relationship F1), worst first."""

        def key(case: CaseDiff) -> float:
            if metric is None:
                return case.f1_change
            value = case.delta.get(metric)
            return 0.0 if value is None else value

        losers = [case for case in self.cases if key(case) < -_TOL]
        return sorted(losers, key=lambda case: (key(case), case.case_id))[:k]

    def to_frame(self) -> pd.DataFrame:
        """One row per metric (index), columns as in MetricDelta, then the metric's `kind` (rate or
        count) and `higher_is_better` (which way `improved` and `regressed` count)."""
        import pandas as pd  # lazy: reading a summary needs no pandas

        rows = [{"metric": name, **delta.model_dump(), **_kind_columns(name)} for name, delta in self.metrics.items()]
        return pd.DataFrame(rows).set_index("metric")

    def case_frame(self) -> pd.DataFrame:
        """One row per paired case: `<metric>_a`, `<metric>_b`, `<metric>_delta`, and the diffs as lists."""
        import pandas as pd

        rows: list[dict[str, Any]] = []
        for case in self.cases:
            row: dict[str, Any] = {"case_id": case.case_id}
            for name in self.metrics:
                row[f"{name}_a"] = case.a.get(name)
                row[f"{name}_b"] = case.b.get(name)
                row[f"{name}_delta"] = case.delta.get(name)
            row["newly_missed_entities"] = case.newly_missed_entities
            row["newly_found_entities"] = case.newly_found_entities
            row["newly_missed_relationships"] = case.newly_missed_relationships
            row["newly_found_relationships"] = case.newly_found_relationships
            row.update(case.graph.model_dump())
            rows.append(row)
        frame = pd.DataFrame(rows)
        return frame.set_index("case_id") if rows else frame

    def summary(self, worst: int = 10) -> ComparisonSummary:
        """The comparison as written (`harness compare --json`, summary.json's comparisons)."""
        return ComparisonSummary(
            a=self.label_a,
            b=self.label_b,
            settings=ComparisonSettings(
                delta="b - a, macro (mean over paired cases of the per-case difference)",
                interval=f"{self.confidence:.0%} paired bootstrap, percentile method",
                p_value="paired sign-flip permutation, two-sided",
                significant=f"interval excludes zero, p < {1 - self.confidence:.2f} and at least "
                f"{min_paired_cases(self.confidence)} paired cases",
                seed=self.seed,
                resamples=self.resamples,
                confidence=self.confidence,
            ),
            cases=PairedCases(paired=len(self.cases), only_in_a=self.only_in_a, only_in_b=self.only_in_b,
                              unscored=self.unscored),
            metrics=self.metrics,
            worst_regressions=[
                WorstRegression(case_id=case.case_id, f1_change=case.f1_change,
                                newly_missed_entities=case.newly_missed_entities,
                                newly_missed_relationships=case.newly_missed_relationships)
                for case in self.worst_regressions(worst)
            ],
            case_diffs=self.cases,
            repeat_spread=self.repeat_spread,
        )

    def to_json(self, worst: int = 10) -> dict[str, Any]:
        """The `harness compare RUN_A RUN_B --json` document."""
        return self.summary(worst).model_dump()


def _kind_columns(name: str) -> dict[str, Any]:
    """A metric's kind and direction, as frame columns (None for a name the registry does not know)."""
    metric = get_metric(name)
    return {"kind": None if metric is None else metric.kind,
            "higher_is_better": None if metric is None else metric.higher_is_better}


class PairedStats(Value):
    """mean(b - a) over paired values, its bootstrap interval and its sign-flip p-value."""

    n: int
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    confidence: float

    @property
    def significant(self) -> bool:
        return is_real_difference(self.n, self.ci_low, self.ci_high, self.p_value, self.confidence)


# --------------------------------------------------------------------------- pinned inputs


class InputFingerprints(Value):
    """What a run was scored on (summary.json's `inputs`, so a baseline's too): fingerprints of the
    validated values, not of file bytes (`harness.fingerprint`: stable across runs, machines and
    YAML formatting). Absent in summaries written before they were recorded: unknown."""

    method: str  # harness.fingerprint.METHOD: fingerprints of another recipe are not compared
    suite: str  # the suite's settings: everything but its cases' contents (their ids, in order, count)
    ontology: str  # the suite's ontology (null when it has none is fingerprinted too)
    prompts: dict[str, str]  # variant -> its prompt as planned; a variant whose prompt is not known is absent
    gold: dict[str, str]  # case id -> its gold (the cases the run scored)
    chunks: dict[str, str]  # case id -> its input: the chunk's text and the kind's other inputs


InputStatus = Literal["same", "changed", "unknown"]


class InputPart(Value):
    """One part of the inputs, compared between two sides: `changed` lists the case ids (gold,
    chunks) or variants (prompts) that differ among those both sides have."""

    status: InputStatus
    compared: int = 0  # cases (variants) both sides have a fingerprint of
    changed: list[str] = []


class InputsCheck(Value):
    """The inputs of two sides compared (`harness.pins.check_inputs`): the gate's run against its
    baseline (gate.json's `inputs`), or `harness compare`'s two runs. `unknown`: the side(s) without
    fingerprints (a summary written before they were recorded): every part is then unknown, never
    "same". `allowed_changed_gold`: a verdict given across changed gold with `--allow-changed-gold`."""

    against: str  # what the run is compared with: "baseline", or the other run
    unknown: list[str] = []  # "run", "baseline" / "a", "b": the sides without fingerprints
    suite: InputPart
    ontology: InputPart
    prompts: InputPart
    gold: InputPart
    chunks: InputPart
    allowed_changed_gold: bool = False

    @property
    def gold_changed(self) -> bool:
        return self.gold.status == "changed"


# --------------------------------------------------------------------------- gate


class GateConfig(Value):
    """What the gate needs from a suite, recorded in summary.json (`gate_config`)."""

    thresholds: Thresholds
    regression: Regression


class RuleCase(Artifact):
    """A case a rule names: absent (coverage), shown in the prompt (leakage), or dropped (case_regression)."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("baseline", "value", "drop", "newly_missed_entities",
                                               "newly_missed_relationships")
    case_id: str
    baseline: float | None = None
    value: float | None = None
    drop: float | None = None
    newly_missed_entities: list[str] | None = None
    newly_missed_relationships: list[list[str]] | None = None


class RuleResult(Value):
    """One rule as applied to one variant."""

    rule: Literal["threshold", "regression", "case_regression", "coverage", "leakage", "calibration"]
    variant: str
    metric: str
    # "drop <=": a regression rule of a higher-is-better metric; "rise <=": of a lower-is-better one
    op: Literal[">=", "<=", "drop <=", "rise <="]
    value: float | None
    limit: float | None
    status: Status
    message: str
    interval: list[float] | None = None  # [low, high] of the delta (regression)
    cases: list[RuleCase] = []  # offending cases (case_regression, coverage, leakage)
    p_value: float | None = None  # sign-flip p-value of the delta (regression)


class Verdict(Artifact):
    """Every rule applied to one run (gate.json); the run fails when a rule fails."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("inputs",)
    schema_version: Literal[1] = GATE_SCHEMA_VERSION
    suite: str
    run_id: str
    status: Literal["pass", "warn", "fail"]
    baseline_file: str | None = None
    baseline_run_id: str | None = None
    counts: dict[str, int] = {}  # rules per status; always recounted from `rules`
    notes: list[str] = []
    rules: list[RuleResult] = []
    # the run's inputs against the baseline's (absent without a baseline); see InputsCheck
    inputs: InputsCheck | None = None

    @model_validator(mode="after")
    def _count(self) -> Verdict:
        self.counts = {s: sum(1 for r in self.rules if r.status == s) for s in ("pass", "warn", "fail", "skip")}
        return self

    @property
    def passed(self) -> bool:
        return self.status != "fail"

    @property
    def exit_code(self) -> int:
        return 1 if self.status == "fail" else 0

    def failed(self) -> list[RuleResult]:
        return [r for r in self.rules if r.status == "fail"]

    def warned(self) -> list[RuleResult]:
        return [r for r in self.rules if r.status == "warn"]

    def lines(self) -> list[str]:
        """The verdict as plain text, one rule a line (what `harness gate` prints)."""
        head = f"{self.suite} ({self.run_id}): gate {self.status.upper()}"
        if self.baseline_file:
            head += f" — baseline {self.baseline_file}"
        out = [head]
        out += [f"  {note}" if note.startswith("warning: ") else f"  note: {note}" for note in self.notes]
        for rule in self.rules:
            out.append(f"  {rule.status.upper():4s}  {rule.variant}: {rule.message}")
        return out


class CaseCheck(Value):
    """The per-case rules of one case × variant (junit.xml, the pytest plugin, the reports)."""

    variant: str
    case_id: str
    failures: list[str]
    # thresholds this case misses that its variant meets on average: the verdict passes them, so they warn
    warnings: list[str] = []
    missed_entities: list[str] = []
    missed_relationships: list[list[str]] = []
    newly_missed_entities: list[str] = []
    newly_missed_relationships: list[list[str]] = []
    error: str | None = None
    # per-case thresholds whose metric is undefined on this case (no gold of its kind, no example text, ...)
    undefined: list[str] = []
    checked: int = 0  # per-case rules that had a value to check

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def unchecked(self) -> bool:
        """Nothing could be checked: every per-case threshold is undefined here (junit and pytest skip it)."""
        return not self.failures and bool(self.undefined) and self.checked == 0

    def skip_reason(self) -> str:
        return "nothing to check against (no gold, or no value on this case): " + ", ".join(self.undefined)

    def message(self) -> str:
        return "; ".join(self.failures)

    def warning_message(self) -> str:
        return "; ".join(self.warnings) + " (the variant meets the threshold on average: a warning)"

    def details(self) -> str:
        """Multi-line text naming what the case missed (failure bodies of junit and pytest)."""
        lines: list[str] = []
        if self.error:
            lines.append(f"error: {self.error}")
        if self.missed_entities:
            lines.append(f"missed entities ({len(self.missed_entities)}): " + ", ".join(self.missed_entities))
        if self.missed_relationships:
            lines.append(
                f"missed relationships ({len(self.missed_relationships)}): "
                + ", ".join(" — ".join(pair) for pair in self.missed_relationships)
            )
        if self.newly_missed_entities:
            lines.append("newly missed against the baseline (entities): " + ", ".join(self.newly_missed_entities))
        if self.newly_missed_relationships:
            lines.append(
                "newly missed against the baseline (relationships): "
                + ", ".join(" — ".join(pair) for pair in self.newly_missed_relationships)
            )
        return "\n".join(lines)


# --------------------------------------------------------------------------- summary


class FormatSummary(Value):
    """How well a variant's answers kept the output format."""

    cases_with_errors: int
    # over no case there is no share: None (n/a), which fails a threshold, never 0% errors
    format_error_rate: float | None
    completion_rate: float | None
    records_seen: int
    records_parsed: int
    records_dropped: int
    issues_by_code: dict[str, int]


class EngineSummary(Value):
    """What the engine version the suite names keeps from a variant's answers, over its cases,
    beside what the harness recovers (harness.scoring.engine_reading; docs/scoring.md, "What the
    engine keeps"). `entities`, `relationships`: the engine's graphs, summed over the cases (the
    graphs the variant's figures are computed on); `lost`: records the harness recovers that have
    no counterpart in them; `reasons`: why the engine's parser dropped records."""

    engine: str
    parser: str
    cases: int
    entities: int
    relationships: int
    recovered_entities: int
    recovered_relationships: int
    lost: int
    cases_with_loss: int
    reasons: dict[str, int] = Field(default_factory=dict)


class RecoveredSummary(Value):
    """A variant's figures on the harness's own graphs, for a suite that names its engine (whose
    `metrics` and `graph` are on the engine's): the second, labelled column, never the gated one."""

    metrics: SuiteMetrics
    graph: GraphStats


class EntityTypesUsed(Value):
    """The entity types a variant's prompt was filled with, and where they came from (docs/prompts.md)."""

    values: list[str]
    source: str


# --------------------------------------------------------------------------- repeated runs


class MetricSpread(Value):
    """One metric across the samples of a repeated run: its micro value per sample (sample order)
    and their spread; each figure is None where it is undefined (no sample had a value; the
    standard deviation also needs two)."""

    values: list[float | None]
    min: float | None
    median: float | None
    max: float | None
    std: float | None  # sample standard deviation (ddof=1)


class RepeatSpread(Value):
    """A variant run `--repeat N` times: N, and the spread of every registered metric."""

    samples: int
    metrics: dict[str, MetricSpread]


class SpreadVerdict(Value):
    """Whether the variant difference of one metric exceeds the repeat-to-repeat spread: the
    ranges [min, max] of the two variants' per-sample values do not overlap (docs/reports.md).
    None when a side has fewer than two samples or a sample without a value."""

    a: MetricSpread
    b: MetricSpread
    exceeds: bool | None


class SpreadVerdicts(Value):
    """Per metric (registry order) the spread verdict of a comparison of two repeated runs."""

    rule: str
    metrics: dict[str, SpreadVerdict]


# ---- entity fragmentation and gleaning yield (docs/scoring.md, "Entity fragmentation", "Gleaning yield")


class GleaningRound(Value):
    """One answer position (0 = first answer, k = k-th gleaning) pooled over a variant's cases:
    what that answer added to the answers before it."""

    round: int
    cases: int  # cases that had this answer (and reference-free figures)
    entities: int  # new distinct entities
    relationships: int  # new distinct relationships
    grounded: int  # new entities whose name occurs in the chunk
    grounding_rate: float | None  # grounded / new entities; None when nothing new
    example_leaks: int | None  # None when no case knew its prompt's examples
    leak_rate: float | None  # leaks / new entities of the cases that knew their examples; None without


class NameCluster(Artifact):
    """Node keys (GraphRAG titles) that name one thing: joined by the harness, or matched to one gold entity."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("gold",)

    names: list[str]  # the node keys, in most cases first, then alphabetical
    cases: int  # cases in which at least one of them was predicted
    gold: str | None = None  # the gold entity they were matched to (gold fragments only)


class BCubed(Value):
    """B-cubed precision, recall and F1 of a clustering of items against gold clusters; None over no item."""

    precision: float | None
    recall: float | None
    f1: float | None


class GoldFragmentation(Value):
    """How many node keys one gold entity became across a variant's cases (annotated cases only)."""

    gold_entities: int  # gold identities across the annotated cases
    found: int  # of them, matched in at least one case
    fragmented: int  # found under two or more node keys
    mean_names: float | None  # node keys per found gold entity; None when none was found
    items: int  # B-cubed items: distinct (node key, gold entity) pairs the alignment made
    graphrag: BCubed  # every node key its own cluster, as GraphRAG merges (exact title)
    joined: BCubed  # node keys clustered by the harness's joining
    worst: list[NameCluster] = []  # the most fragmented gold entities, at most FRAGMENT_LIMIT


class Fragmentation(Value):
    """Entity names of a variant's union graph that GraphRAG keeps apart and the scoring's
    normalisation, fuzzy matching and person-name containment would join."""

    nodes: int  # distinct node keys (GraphRAG titles) of the entity records
    clusters: int  # clusters after joining
    joined_clusters: int  # clusters of two or more node keys
    fragmentation_rate: float | None  # (nodes - clusters) / nodes: surplus nodes; None without nodes
    top: list[NameCluster] = []  # clusters of two or more node keys, largest first, at most FRAGMENT_LIMIT
    gold: GoldFragmentation | None = None  # None without annotated cases

    def cluster_frame(self) -> pd.DataFrame:
        """One row per listed cluster: `names` (joined with " / "), `size`, `cases`."""
        import pandas as pd  # lazy: reading a summary needs no pandas

        return pd.DataFrame([{"names": " / ".join(c.names), "size": len(c.names), "cases": c.cases}
                             for c in self.top], columns=["names", "size", "cases"])


class PriceUsed(Value):
    """The price a variant's cost was reckoned at: the table entry's name, its date and its source."""

    model: str  # the price table's entry (the model's name, or the prefix that matched it)
    as_of: str | None  # the date its prices were read; None when the entry does not say
    source: str  # built-in, a price file's path, or "suite" (the suite's `prices:`)


class CostFigures(Value):
    """What a variant's calls cost per chunk (harness/cost_latency.py; docs/reports.md). A chunk is
    a case that got an answer (each (case, sample) with `--repeat`); n/a (None) where nothing stands
    under a figure: no chunk answered, no token counted, or no price for the model."""

    chunks: int  # cases answered (rows with at least one call)
    calls: int  # model calls of those cases: the extraction, every gleaning round and loop check
    calls_per_chunk: Number | None
    input_tokens: int
    output_tokens: int
    cached_tokens: int  # of the input tokens, those read from the endpoint's prompt cache
    tokens_estimated: bool  # some count came from the offline tokenizer (the endpoint reported none)
    batch_calls: int  # calls answered by the Batch API, priced at batch prices
    usd: Number | None
    usd_per_1k_chunks: Number | None
    price: PriceUsed | None  # None: the model has no price in the table


class LatencyFigures(Value):
    """Percentiles of a variant's latencies, per call and per chunk (a chunk: its calls' sum), over
    the calls whose latency is known. `source`: "measured" live, "recorded" (read from the
    cassettes that kept it when recording), "mixed" (both, record mode `once`); None when no call's
    latency is known (cassettes recorded before latencies were kept): every figure n/a, never 0."""

    source: Literal["measured", "recorded", "mixed"] | None
    calls_timed: int  # calls with a known latency
    chunks_timed: int  # chunks all of whose calls have one
    p50_call_s: Number | None
    p95_call_s: Number | None
    p50_chunk_s: Number | None
    p95_chunk_s: Number | None


class VariantSummary(Artifact):
    """One variant of a run: scores, graph, format, usage."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("entity_types", "repeats", "fragmentation", "engine", "recovered",
                                                "cost", "latency")
    prompt: str
    model: str
    cases: int
    metrics: SuiteMetrics
    graph: GraphStats
    format: FormatSummary
    records_from_gleaning: int
    usage: Usage
    cost_usd: Number | None
    # the calls' summed latency as measured live; None in a replay (`--record-mode none`), whose
    # calls were read from cassettes (about 0 s, which is no latency of the endpoint's)
    latency_total_s: Number | None
    entity_types: EntityTypesUsed | None = None  # None when the variant's prompt no longer loads
    # the spread across samples of `--repeat N` (N > 1); with repeats, `metrics` pools every
    # (case, sample) row and `cases` counts those rows (docs/reports.md); None without repeats
    repeats: RepeatSpread | None = None
    fragmentation: Fragmentation | None = None  # None in summaries written before it was computed
    gleaning: list[GleaningRound] = []  # per answer position; empty without reference-free figures
    # what the engine the suite names (`engine:`) keeps; None (left out) when it names none. With
    # it, `metrics` and `graph` are on the engine's graphs and `recovered` on the harness's own
    engine: EngineSummary | None = None
    recovered: RecoveredSummary | None = None
    # dollars per 1,000 chunks, tokens and calls per chunk, and latency percentiles; None (left out)
    # in summaries written before they were computed
    cost: CostFigures | None = None
    latency: LatencyFigures | None = None

    def metric(self, name: str, average: Literal["micro", "macro"] = "micro") -> float | None:
        return self.metrics.get(name, average)

    def annotated(self, kind: str) -> int | None:
        """Cases annotated for `kind` (None in a summary written before this was counted)."""
        return self.metrics.annotated.get(kind)

    @property
    def has_gold(self) -> bool:
        """Whether some case is annotated for a kind (true for a summary without the counts)."""
        return not self.metrics.annotated or any(self.metrics.annotated.values())


class OutputsSummary(Value):
    """What `harness evaluate` scored: answers another pipeline wrote, one row per case."""

    file: str  # the outputs file as given
    conventions: str  # harness, text2kgbench or webnlg (`--conventions`)
    rows: int  # rows read
    unknown_ids: list[str] = Field(default_factory=list)  # rows whose id is not a case (not scored)
    duplicate_ids: list[str] = Field(default_factory=list)  # ids given again (the last row is scored)
    missing_cases: list[str] = Field(default_factory=list)  # cases without a row (not scored: in no harness figure)


class ConventionsSummary(Value):
    """Another evaluation's figures of a run (`harness evaluate --conventions NAME`), computed as
    that evaluation does (harness.scoring.conventions), beside the harness's own."""

    name: str
    variant: str
    cases: int  # the test sentences the figures are averaged over
    metrics: dict[str, float | None]
    # rows whose own `triples` were scored (Text2KGBench's responses files carry them) instead of
    # the triples parsed from their answer
    rows_with_triples: int = 0


class ClassAgreement(Value):
    """One verdict class: how often the judge gave it, the reviewers gave it, and both did."""

    judge: int
    human: int
    both: int


class Calibration(Value):
    """A judge's agreement with reviewers' verdicts on the same questions (harness/judges/calibration.py)."""

    status: Literal["calibrated", "uncalibrated"]  # uncalibrated: no reviewer verdict to compare with
    questions: int  # questions with both a readable judge verdict and a reviewer's
    unreadable: int = 0  # reviewed questions whose judge answer could not be read (left out)
    accuracy: float | None = None
    kappa: float | None = None  # Cohen's kappa; None when undefined (one class only on both sides)
    per_class: dict[str, ClassAgreement] = Field(default_factory=dict)
    min_kappa: float | None = None  # the suite's `judge.min_kappa`


class PairwiseVerdict(Value):
    """One pairwise question: case, repeat, order ("ab": variant a's answer shown first), what the
    judge said and which variant that prefers (None: unreadable, n/a)."""

    case: str
    repeat: int
    order: Literal["ab", "ba"]
    answer: Literal["first", "second", "tie"] | None
    preferred: str | None  # a variant name, "tie", or None


class PairwiseSummary(Value):
    """(d) Pairwise preference between two variants (harness/judges/pairwise.py): b's win rate over
    a (ties counted as half a win) with a 95% Wilson interval, and the judge's order bias."""

    a: str
    b: str
    cases: int  # cases both variants answered
    verdicts: list[PairwiseVerdict]
    b_wins: int
    a_wins: int
    ties: int
    unreadable: int
    b_win_rate: float | None  # (b_wins + ties / 2) / readable verdicts
    interval: list[float] | None  # [low, high], Wilson score at 95%
    order_pairs: int  # (case, repeat) with a readable verdict in both orders
    order_flips: int  # of those, the ones whose preferred variant changed with the order
    first_position_rate: float | None  # of the readable non-tie verdicts, the share that chose the first shown
    calibration: Calibration  # against reviewers' `pairwise: A vs B` verdicts (uncalibrated without any)


class JudgesSummary(Value):
    """The suite judge's part of a run: its model, its questions, and per decision the judged
    figures it stands behind with their calibration (docs/judges.md)."""

    model: str
    questions: int  # put to the judge over the run (every variant)
    unreadable: int  # answers read as n/a
    left_out: int  # open pairs not asked (the caps)
    figures: dict[str, list[str]]  # decision -> its judged metrics
    calibration: dict[str, Calibration]  # decision -> agreement with reviewers
    pairwise: PairwiseSummary | None = None  # (d), with `judge.pairwise`


class MatrixFigure(Value):
    """One figure of one matrix cell: the mean of its cases' values and the 95% percentile
    bootstrap interval of that mean (cases resampled: `compare.macro_intervals`); None (n/a) where
    no case has a value."""

    value: float | None
    ci_low: float | None
    ci_high: float | None


class MatrixCell(Value):
    """One (prompt variant, model) cell of a suite's model matrix (docs/suites.md, "Model matrix")."""

    variant: str  # the cell's name in the run: `<prompt>@<model>`, the key of `RunSummary.variants`
    prompt: str  # the prompt variant, as the suite names it (the matrix's row)
    model: str  # the model's label in `models:` (the matrix's column)
    model_name: str  # the model the endpoint was asked for
    cases: int
    figures: dict[str, MatrixFigure]  # figure (a metric's name) -> value, in `MatrixSummary.figures` order


class MatrixComparison(Value):
    """A paired comparison of two cells of one row (two prompts under one model) or one column
    (two models under one prompt): b against a, as `compare.compare` makes every comparison,
    kept for the matrix's figures."""

    along: Literal["row", "column"]
    a: str  # the reference cell: the baseline prompt's (row) or the baseline model's (column)
    b: str
    paired: int  # cases both cells scored
    metrics: dict[str, MetricDelta]


class MatrixSummary(Value):
    """The model matrix of a suite with `models:`: rows are prompt variants, columns models,
    each cell its figures with intervals, the best cells per figure, and the paired comparisons
    along each row and column (harness/matrix.py)."""

    prompts: list[str]  # rows, in suite order
    models: list[str]  # columns, in `models:` order
    figures: list[str]  # the figures shown (metric names), in order
    cells: dict[str, MatrixCell]  # by cell name, row by row
    best: dict[str, list[str]]  # figure -> the cells with its best value (ties: every one); none when all n/a
    comparisons: list[MatrixComparison]


class FrontierPoint(Value):
    """One variant on the frontier: its quality figures, dollars per 1,000 chunks and p95 latency
    per chunk, and whether no other variant beats it on both quality and each of those."""

    variant: str
    quality: dict[str, Number | None]  # quality figure -> the variant's micro value
    usd_per_1k_chunks: Number | None
    p95_chunk_s: Number | None
    latency_source: Literal["measured", "recorded", "mixed"] | None = None
    pareto_cost: bool  # Pareto-optimal in (first quality figure, dollars per 1,000 chunks)
    pareto_latency: bool  # Pareto-optimal in (first quality figure, p95 latency per chunk)


class Frontier(Value):
    """Quality against cost and latency (harness/frontier.py; docs/reports.md, "Frontier")."""

    quality: list[str]  # the quality figures; the first decides Pareto optimality and the pick
    points: list[FrontierPoint]
    budget: Number | None = None  # `--budget`: dollars per 1,000 chunks
    pick: str | None = None  # the variant to pick for the budget (None: none fits, or no budget)
    sentence: str  # which variant to pick and why, in one sentence


class RunSummary(Artifact):
    """One finished run of one suite (summary.json). Timings live only under keys ending in `_s`
    (and `created_at`): every other value is reproduced byte for byte by a replayed run."""

    omit_if_none: ClassVar[tuple[str, ...]] = ("gate_config", "outputs", "conventions", "pending_review", "kind", "judges",
                                               "matrix", "inputs", "frontier")
    schema_version: Literal[1, 2] = SUMMARY_SCHEMA_VERSION
    harness_version: str
    suite: str
    suite_file: str
    description: str = ""
    notes: str = ""
    run_id: str
    created_at: str
    record_mode: Literal["none", "once", "rewrite", "all", "mixed"]
    baseline: str  # the variant the others are compared against
    variants: dict[str, VariantSummary]  # in suite order
    ratios: dict[str, dict[str, float | None]]  # variant -> value / the baseline variant's value
    comparisons: dict[str, ComparisonSummary]  # variant -> against the baseline variant
    timings: dict[str, Number]
    gate_config: GateConfig | None = None  # absent in summaries written before the gate recorded it
    outputs: OutputsSummary | None = None  # a run of `harness evaluate` (absent otherwise)
    conventions: ConventionsSummary | None = None  # `harness evaluate --conventions text2kgbench|webnlg`
    # cases of the run whose gold was proposed by `harness annotate` and is not reviewed yet: left
    # out of every gold-based metric (absent when there are none)
    pending_review: int | None = None
    # the suite's kind (docs/suites.md, "Suite kinds"); None (left out) for an extraction suite. A
    # string, not the built-in names: a plugin's kind is written here too (harness/kinds/registry.py)
    kind: SuiteKind | None = None
    # the suite's `judge:` (harness/judges/): its questions and calibration; absent without one
    judges: JudgesSummary | None = None
    # the suite's model matrix (`models:`, harness/matrix.py); absent without one
    matrix: MatrixSummary | None = None
    # fingerprints of the suite, gold, chunks, ontology and prompts the run was scored on (absent in
    # summaries written before they were recorded: unknown, see InputFingerprints)
    inputs: InputFingerprints | None = None
    # quality against dollars per 1,000 chunks and p95 latency (harness/frontier.py); absent in
    # summaries written before it was computed
    frontier: Frontier | None = None

    def to_frame(self) -> pd.DataFrame:
        """One row per variant and metric (a MultiIndex `variant`, `metric`): `micro`, `macro` and
        `cases` (a count's micro is its total, its macro the mean per case), `kind` and
        `higher_is_better`."""
        import pandas as pd  # lazy: reading a summary needs no pandas

        rows = [{"variant": name, "metric": metric, **agg.model_dump(), **_kind_columns(metric)}
                for name, variant in self.variants.items() for metric, agg in variant.metrics.metrics.items()]
        columns = ["variant", "metric", "micro", "macro", "cases", "kind", "higher_is_better"]
        return pd.DataFrame(rows, columns=columns).set_index(["variant", "metric"])

    @property
    def suite_kind(self) -> str:
        """The suite's kind: the figures its console, reports and gate lead with."""
        return self.kind or "extract_graph"

    @property
    def has_gold(self) -> bool:
        """Whether any case of any variant is annotated (a summary without the counts counts as gold):
        without gold, the console shows the reference-free set and regression defaults to it."""
        return any(variant.has_gold for variant in self.variants.values()) or not self.variants


class _BaselineCaseValues(Value):
    def value(self, metric: str) -> float | None:
        return getattr(self, metric, None)


if TYPE_CHECKING:
    class BaselineCase(_BaselineCaseValues):
        """What the type checker knows of the model built below from the metric registry: the
        metrics' values are read by name (`value`)."""

        missed_entities: list[str]
        missed_relationships: list[list[str]]

        def __init__(self, **values: float | list[str] | list[list[str]] | None) -> None: ...
else:
    # a baseline case: every registered metric's value, then what the case missed
    BaselineCase = create_model(
        "BaselineCase",
        __base__=_BaselineCaseValues,
        **{metric.name: (float | None, None) for metric in registered_metrics()},
        missed_entities=(list[str], []),
        missed_relationships=(list[list[str]], []),
    )


class Baseline(RunSummary):
    """An accepted run (`harness baseline update`): its summary plus the per-case values the
    regression rules compare against."""

    baseline_schema_version: int
    accepted_from: str
    cases: dict[str, dict[str, BaselineCase]]  # variant -> case id -> values


__all__ = [
    "BASELINE_SCHEMA_VERSION", "GATE_SCHEMA_VERSION", "SUMMARY_SCHEMA_VERSION", "SUMMARY_SCHEMA_VERSIONS", "Artifact", "Baseline",
    "BCubed", "BaselineCase", "CaseCheck", "CaseDiff", "Comparison", "ComparisonSummary", "EntityTypesUsed",
    "FormatSummary", "Fragmentation", "GateConfig", "GleaningRound", "GoldFragmentation", "GraphDiff",
    "InputFingerprints", "InputPart", "InputStatus", "InputsCheck", "MetricDelta",
    "NameCluster", "PairedStats", "RuleCase", "RuleResult",
    "RunSummary", "Status", "VariantSummary", "Verdict", "read_artifact",
]


# --------------------------------------------------------------------------- JSON schemas

_SCHEMAS: dict[str, tuple[type[Value], str, str]] = {
    "summary.schema.json": (RunSummary, "summary", "kg-prompt-harness run summary (summary.json)"),
    "gate.schema.json": (Verdict, "gate", "kg-prompt-harness gate verdict (gate.json, harness gate --json)"),
    "baseline.schema.json": (Baseline, "baseline", "kg-prompt-harness baseline (baselines/<suite>.json)"),
}


def json_schemas() -> dict[str, str]:
    """The text of every schema file in harness/schemas/, generated from the models
    (`scripts/write_schemas.py` writes them; a test keeps the shipped files equal to these)."""
    import json

    out: dict[str, str] = {}
    for name, (model, slug, title) in _SCHEMAS.items():
        generated = model.model_json_schema(mode="validation")
        document = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://kg-prompt-harness.invalid/schemas/{slug}/1.json",
            "title": f"{title}, schema version 1",
            "description": (generated.pop("description", "") + " Generated from harness/artifacts.py by "
                            "scripts/write_schemas.py; documented in docs/reports.md.").strip(),
            **{k: v for k, v in generated.items() if k != "title"},
        }
        out[name] = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return out
