"""The values that flow between stages, defined once.

Every stage imports its inputs and outputs from here, so a result written by one
version of the harness can be read back by the next (results.jsonl, summary.json).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SerializationInfo, field_validator, model_serializer, model_validator

CompletionStatus = Literal["present", "missing", "misplaced"]

_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _review_day(value: Any) -> Any:
    """A review's date as `YYYY-MM-DD`, a day of the calendar: YAML reads an unquoted one as a
    date (kept, as text), the review page writes text (checked: `2026-99-99` is no day)."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            if not _ISO_DAY.fullmatch(value):
                raise ValueError(value)
            dt.date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"'{value[:40]}' is not a date (YYYY-MM-DD, a day of the calendar)") from None
    return value


# `reviewed:` of a case or a reviewed gold file (docs/annotate.md)
ReviewDay = Annotated[str, BeforeValidator(_review_day)]


class Value(BaseModel):
    """Base for all values: unknown keys are errors, so typos in files surface."""

    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- extraction


class Entity(Value):
    name: str
    type: str = ""
    description: str = ""
    round: int = 0  # gleaning round that produced it (0 = first answer)


class Relationship(Value):
    source: str
    target: str
    description: str = ""
    strength: float | None = None
    keywords: str = ""
    round: int = 0
    # the predicate of a triple (`(Philz, founded in, Berkeley)`: "founded in"); "" for formats
    # that write none (GraphRAG, LightRAG), and then left out of what is written
    type: str = ""

    @model_serializer(mode="wrap")
    def _leave_out_empty_type(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("type") == "":
            del data["type"]
        return data


class Claim(Value):
    subject: str
    object: str = ""
    type: str = ""
    status: str = ""  # TRUE, FALSE or SUSPECTED
    start_date: str | None = None
    end_date: str | None = None
    description: str = ""
    source_text: str = ""
    round: int = 0


class ReportFinding(Value):
    """One finding of a community report (summary and explanation), as the model wrote it."""

    summary: str = ""
    explanation: str = ""


class CommunityReport(Value):
    title: str = ""
    summary: str = ""
    rating: float | None = None
    rating_explanation: str = ""
    findings: list[ReportFinding] = Field(default_factory=list)


class FormatIssue(Value):
    """One thing wrong with a model's output. `code` is stable and documented in docs/format-codes.md."""

    code: str
    message: str
    excerpt: str = ""
    round: int = 0
    dropped: bool = False  # True when a record was lost because of it


class FormatReport(Value):
    format: str = "graphrag"
    records_seen: int = 0
    records_parsed: int = 0
    records_dropped: int = 0
    completion: CompletionStatus = "missing"
    issues: list[FormatIssue] = Field(default_factory=list)


class ExtractedGraph(Value):
    entities: list[Entity] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    report: CommunityReport | None = None


class ParseResult(Value):
    format: str
    graph: ExtractedGraph
    format_report: FormatReport


# --------------------------------------------------------------------------- gold


class GoldEntity(Value):
    name: str
    type: str = ""
    aliases: list[str] = Field(default_factory=list)


class GoldRelationship(Value):
    source: str
    target: str
    description: str = ""
    directed: bool = False
    type: str = ""  # the predicate, when the gold is typed ("" : endpoints only); see docs/scoring.md


class GoldClaim(Value):
    """A claim a claims extraction should find (gold of an `extract_claims` case)."""

    subject: str
    object: str = ""  # "" or NONE: the claim has no object
    type: str = ""
    status: str = ""  # TRUE, FALSE or SUSPECTED; "" : any


# Suite kinds: which prompt a suite evaluates (docs/suites.md, "Suite kinds"). Every case
# of a suite has its kind's inputs; `text` is always what fills the prompt's input
# (`{input_text}`: the chunk; a report case's community context tables; a summary case's
# description list as the engine writes it).
# A kind is a module of harness/kinds/ or a plugin's (harness/kinds/registry.py), so the name is
# checked against the registry where a suite is loaded, not by this type.
SuiteKind = str

# the review state of a case's gold (`harness annotate`): pending (proposed, not gold yet) or done
ReviewState = Literal["pending", "done"]


# a judge's (or a reviewer's) verdict (harness/judges/): (a) "is this predicted item the gold
# one?" same | different; (b) "does the chunk support this description?" supported | unsupported
JudgeVerdict = Literal["same", "different", "supported", "unsupported"]
# what a reviewer may answer to a judge question, by the start of its id (docs/judges.md); a
# pairwise question (`pairwise: A vs B`) takes the preferred variant's name or `tie`
JUDGEMENT_CLASSES: dict[str, tuple[str, ...]] = {
    "entity:": ("same", "different"),
    "entity description:": ("supported", "unsupported"),
    "relationship description:": ("supported", "unsupported"),
    "summary kept:": ("supported", "unsupported"),
    "summary added:": ("supported", "unsupported"),
    "report finding:": ("supported", "unsupported"),
}
PAIRWISE_QUESTION = "pairwise:"


def check_judgements(value: dict[str, str]) -> dict[str, str]:
    """Reviewers' verdicts (`judgements:`): each question id starts as a judge question does and
    its verdict is one of that question's classes (a pairwise verdict is checked against the
    suite's variants when its judge is planned)."""
    for key, verdict in value.items():
        if key.startswith(PAIRWISE_QUESTION):
            if not verdict.strip():
                raise ValueError(f"{key!r}: give the preferred variant's name or tie")
            continue
        prefix = next((p for p in sorted(JUDGEMENT_CLASSES, key=len, reverse=True) if key.startswith(p)), None)
        if prefix is None:
            raise ValueError(f"{key!r} is no judge question (ids start with "
                             f"{', '.join([*JUDGEMENT_CLASSES, PAIRWISE_QUESTION])})")
        if verdict not in JUDGEMENT_CLASSES[prefix]:
            raise ValueError(f"{key!r}: {verdict!r} is not one of {', '.join(JUDGEMENT_CLASSES[prefix])}")
    return value


class GoldCase(Value):
    id: str
    text: str
    chunk: str | None = None  # path the text came from, when it came from a file
    # the engine's id of this text (a GraphRAG text unit id) when `harness import` took it from the
    # engine's chunks: what ties a case to the engine's cache and output tables
    source_id: str | None = None
    entities: list[GoldEntity] = Field(default_factory=list)
    relationships: list[GoldRelationship] = Field(default_factory=list)
    # None: a list is gold only when it is not empty (an empty list is "not annotated yet", as
    # `harness import` writes it); True: both lists are complete, so an empty one means "none
    # here"; False: a draft, no gold-based metric at all. See docs/scoring.md.
    annotated: bool | None = None
    # summarize_descriptions: the entity (or "A, B" relationship) and its descriptions
    entity_name: str | None = None
    descriptions: list[str] = Field(default_factory=list)
    max_length: int | None = None  # words, GraphRAG's {max_length}
    # extract_claims: the entities claims are about and what claims to look for
    entity_specs: list[str] = Field(default_factory=list)
    claim_description: str | None = None
    # global_search_map: the user's question (the map prompt's user message; `text` holds the reports)
    question: str | None = None
    # extract_graph: the worked example this case's prompt shows as `{example}`, when the example is
    # chosen per case (Text2KGBench shows the train sentence most like the test sentence); without
    # it the template's own `variables: {example: ...}` fills it
    example: str | None = None
    # a plugin kind's own inputs and gold (`inputs:` of the case, read by its `KindSpec.case_fields`)
    inputs: dict[str, Any] = Field(default_factory=dict)
    # optional gold of the other kinds: facts a summary or report should state; expected claims
    facts: list[str] = Field(default_factory=list)
    claims: list[GoldClaim] = Field(default_factory=list)
    # `harness annotate` (docs/annotate.md): "pending" gold was proposed from a run and is no gold
    # until reviewed, so a proposal never grades the model it came from; "done": reviewed
    review: ReviewState | None = None
    reviewer: str | None = None
    reviewed: ReviewDay | None = None  # the review's date, YYYY-MM-DD
    # a reviewer's verdicts on the judge's questions (docs/judges.md): question id -> verdict
    judgements: dict[str, str] = Field(default_factory=dict)

    _judgements = field_validator("judgements")(check_judgements)

    @property
    def pending(self) -> bool:
        return self.review == "pending"

    @property
    def has_entity_gold(self) -> bool:
        if self.pending:
            return False
        return bool(self.entities) if self.annotated is None else self.annotated

    @property
    def has_relationship_gold(self) -> bool:
        if self.pending:
            return False
        return bool(self.relationships) if self.annotated is None else self.annotated


# --------------------------------------------------------------------------- scores


class MatchingConfig(Value):
    """How predicted entities are aligned with gold ones (per suite: `matching:`)."""

    fuzzy_threshold: float = Field(0.90, ge=0.0, le=1.0)
    # canonical type -> other names that mean the same, e.g. {location: [geo, place]}
    type_synonyms: dict[str, list[str]] = Field(default_factory=dict)
    directed: bool = False  # relationships are undirected by default
    # canonical predicate -> other spellings that mean the same, e.g. {founded_by: [founder, "founded by"]}
    predicate_synonyms: dict[str, list[str]] = Field(default_factory=dict)


class OntologyRelation(Value):
    """One relation of an ontology: its predicate and, optionally, the entity types it joins."""

    name: str
    domain: str | None = None  # the subject's type
    range: str | None = None  # the object's type


class Ontology(Value):
    """What a suite's extraction may produce (`ontology:`): entity types and relations."""

    name: str = ""
    entity_types: list[str] = Field(default_factory=list)
    relations: list[OntologyRelation] = Field(default_factory=list)


class EntityScores(Value):
    # gold-based rates are None when they have nothing to stand on: no gold entities (recall),
    # no predictions (precision), neither (F1), or a case not annotated with entities (all)
    precision: float | None
    recall: float | None
    f1: float | None
    strict_f1: float | None
    type_accuracy: float | None  # None when nothing matched
    tp: int
    gold: int
    pred: int
    exact: int
    fuzzy: int
    missed: list[str] = Field(default_factory=list)
    unmatched: list[str] = Field(default_factory=list)
    typed_tp: int = 0
    annotated: bool = True  # the case has entity gold; suite aggregates pool annotated cases only


class RelationshipScores(Value):
    precision: float | None  # None as in EntityScores
    recall: float | None
    f1: float | None
    directed_recall: float | None
    endpoint_recall: float | None  # None when no gold edge had both endpoints found
    tp: int
    gold: int
    pred: int
    directed_tp: int = 0
    endpoint_gold: int = 0
    missed: list[list[str]] = Field(default_factory=list)  # [source, target] pairs
    unmatched: list[list[str]] = Field(default_factory=list)
    annotated: bool = True  # the case has relationship gold


class TypedRelationshipScores(Value):
    """Relationships matched on endpoints and predicate (docs/scoring.md, "Typed relationships"):
    only for a case whose gold is typed (every gold relationship has a `type`)."""

    precision: float | None  # None as in EntityScores
    recall: float | None
    f1: float | None
    tp: int  # gold (edge, predicate) pairs found with that predicate
    gold: int  # distinct gold (edge, canonical predicate) pairs
    pred: int  # distinct predicted (edge, canonical predicate) pairs
    missed: list[list[str]] = Field(default_factory=list)  # [source, predicate, target]
    unmatched: list[list[str]] = Field(default_factory=list)


class OntologyScores(Value):
    """Predicted relationships against the suite's ontology, no gold needed (docs/scoring.md,
    "Ontology conformance"). Counted over relationship records with both endpoints non-blank."""

    records: int  # relationship records
    conforming: int  # records whose canonical predicate is an ontology relation
    conformance: float | None  # conforming / records; None without records
    checked: int = 0  # conforming records whose relation declares a domain or a range
    domain_range_ok: int = 0  # of those, records whose endpoint types match what is declared
    domain_range: float | None = None  # domain_range_ok / checked; None when nothing was checked


class Grounding(Value):
    """Predicted entity names found verbatim (after normalisation) in the chunk."""

    grounded: int
    ungrounded: int
    unverified: list[str] = Field(default_factory=list)  # unmatched by gold but grounded in text
    rate: float | None  # None when nothing was predicted


class RoundYield(Value):
    """What one answer of a case added to the answers before it (docs/scoring.md, "Gleaning yield")."""

    round: int  # 0 = the first answer, k = the k-th gleaning answer
    index: int  # the records' `round`: the call index (loop checks take the indices in between)
    entities: int  # distinct normalised names no earlier answer of the case had
    relationships: int  # distinct unordered endpoint pairs no earlier answer had (self-loops out)
    grounded: int  # of the new entities, those whose name occurs in the chunk
    example_leaks: int | None = None  # of the new entities, leaked from the examples; None without examples


class ReferenceFreeScores(Value):
    """What one answer says about itself and its chunk, no gold needed (docs/scoring.md,
    "Reference-free figures"). The first eighteen keys are `harness score --json`'s `reference_free`."""

    entities: int  # distinct entities (by normalised name)
    relationships: int  # distinct relationships (normalised endpoint pairs, undirected, self-loops out)
    grounded: int  # distinct entities whose normalised name occurs in the chunk
    ungrounded: list[str] = Field(default_factory=list)  # the others, as first predicted
    type_conformance: float | None = None  # conforming / entity records; None without a type list
    duplicate_records: int = 0  # entity records beyond the first per normalised name
    type_conflicts: int = 0  # normalised names predicted with two or more canonical types
    dangling: int = 0  # relationship records with an endpoint that is no predicted entity
    self_loops: int = 0  # relationship records whose endpoints normalise to one name
    example_leaks: int | None = None  # None unless the prompt's example text was given
    example_leak_names: list[str] = Field(default_factory=list)
    # entity and relationship records with an empty or placeholder description; None when the format
    # writes no descriptions (triples)
    empty_descriptions: int | None = 0
    # distinct entities whose name is one of the prompt's entity types (name and type swapped), never
    # counted as example leaks; None without a type list
    type_word_names: int | None = None
    type_word_names_found: list[str] = Field(default_factory=list)
    # relationship records with an endpoint copied from the prompt's examples (in their text, not in
    # the chunk; a type word is never one); None unless the prompt's example text was given
    example_relationships: int | None = None
    example_endpoint_names: list[str] = Field(default_factory=list)
    # entity and relationship records whose description copies a passage of the prompt's text that
    # the chunk does not hold (harness/scoring/copied.py); None without the example text, or when
    # the format writes no descriptions
    example_descriptions: int | None = None
    # relationship records with an endpoint whose name is not in the chunk; None on rows scored
    # before the figure existed
    ungrounded_endpoints: int | None = None
    strengths_out_of_scale: int = 0  # relationship records whose strength is set and outside the scale
    # the counts a pooled (micro) rate needs
    entity_records: int = 0
    relationship_records: int = 0
    conforming_records: int | None = None  # None without a type list
    rounds: list[RoundYield] = Field(default_factory=list)  # per answer: what it added (gleaning yield)


class SummaryScore(Value):
    """One description summary against its case's descriptions (docs/scoring.md, "Description
    summaries"). Owned by harness/scoring/summary_score.py."""

    words: int  # CJK characters count one word each
    max_length: int | None = None  # the limit the prompt was filled with: the case's, else GraphRAG's 500
    within_length: bool | None = None  # None only without a limit
    names_entity: bool
    third_person: bool
    first_or_second_person: list[str] = Field(default_factory=list)  # the pronouns that break it
    description_facts: int  # distinct facts of the description list
    facts_kept: int  # of those, covered by the summary
    summary_facts: int  # facts the summary states
    facts_added: int  # of those, supported by no description
    gold_facts: int = 0
    gold_facts_found: int = 0
    dropped_facts: list[str] = Field(default_factory=list)  # description facts the summary does not keep
    added_facts: list[str] = Field(default_factory=list)  # summary facts no description supports


class ReportScore(Value):
    """One community report against its case's context (docs/scoring.md, "Community reports").
    Owned by harness/scoring/report_score.py."""

    schema_ok: bool  # a report object with every field, of the right types
    schema_problems: list[str] = Field(default_factory=list)
    rating: float | None = None
    rating_in_range: bool | None = None  # None: no rating to check
    findings: int = 0
    findings_in_range: bool = False  # 5 to 10 findings
    findings_cited: int = 0  # findings that cite at least one record of the context
    references: int = 0  # dataset references in [Data: ...] citations ("Entities (1, 2)" is one)
    overlong_references: int = 0  # references listing more than five ids (with or without +more)
    unknown_datasets: int = 0  # references to a dataset the report kind does not cite
    malformed_citations: int = 0  # [Data: ...] blocks that could not be read entirely
    citations: int = 0  # record ids cited (ranges spelled out)
    # ids that are no record of the context: an unknown dataset, a table the context lacks, an id
    # the table does not list; None when the context has no table to check against
    citations_invalid: int | None = None
    # the same ids by the dataset cited (as the prompt spells it; an unknown one as written); None
    # when the context has no table to check against
    citations_invalid_by_dataset: dict[str, int] | None = None
    # names of the prompt's own worked example (its tables) that the report uses and the context
    # does not hold; None when the prompt is not known
    example_names: int | None = None
    example_names_found: list[str] = Field(default_factory=list)
    context_entities: int = 0  # names in the context's Entities table
    entities_covered: int = 0  # context entities the report names
    gold_facts: int = 0
    gold_facts_found: int = 0


class ClaimsScore(Value):
    """One claims extraction against its case (docs/scoring.md, "Claims"). Owned by
    harness/scoring/claims_score.py."""

    claims: int = 0  # claim records parsed
    well_formed: int = 0  # with all eight fields
    bad_status: int = 0  # status not TRUE, FALSE or SUSPECTED
    bad_dates: int = 0  # claims with a start or end date that is neither ISO-8601 nor NONE
    # claims whose subject is one of the case's entity specs; None when the specs are entity
    # types (or absent): a subject cannot be checked against a type by name
    subjects_in_specs: int | None = None
    gold_claims: int = 0
    gold_claims_found: int = 0


class MapScore(Value):
    """One global-search map answer against its case's report table (docs/scoring.md, "Global
    search map points"). Owned by harness/scoring/map_score.py."""

    schema_ok: bool  # {"points": [...]}, every point an object with a string description and a numeric score
    schema_problems: list[str] = Field(default_factory=list)
    points: int = 0  # entries of the points list
    scores_in_range: int = 0  # points whose score is a number from 0 to 100
    points_to_cite: int = 0  # points with a description and a score other than 0 (GraphRAG drops score-0 points)
    points_cited: int = 0  # of those, the points that cite at least one report of the context
    references: int = 0  # dataset references in [Data: ...] citations
    overlong_references: int = 0  # references listing more than five ids (with or without +more)
    unknown_datasets: int = 0  # references to a dataset other than Reports
    malformed_citations: int = 0  # [Data: ...] blocks that could not be read entirely
    citations: int = 0  # report ids cited (ranges spelled out)
    # ids that are no report of the context (or of another dataset); None when the context has no
    # Reports table to check against
    citations_invalid: int | None = None
    gold_facts: int = 0
    gold_facts_found: int = 0


class JudgeQuestion(Value):
    """One question put to the suite's judge (harness/judges/): is this predicted item the gold one?
    `verdict` None: the judge's answer could not be read (n/a, never a guess)."""

    id: str  # "entity: GOLD = PREDICTED": what a reviewer's `judgements:` entry names
    gold: str
    pred: str
    verdict: JudgeVerdict | None


class SupportQuestion(Value):
    """(b) One statement put to the suite's judge: does the case's chunk support this extracted
    description? `id` is what a reviewer's `judgements:` entry names (`entity description: NAME`,
    `relationship description: SOURCE -> TARGET`); `verdict` None: unreadable (n/a)."""

    id: str
    statement: str  # as the judge was asked it: "NAME: description"
    verdict: JudgeVerdict | None


class JudgedFaithfulness(Value):
    """(b) Faithfulness: each extracted description (with text) put to the judge against the
    case's chunk; the figures are the shares judged supported (metrics/judged.py)."""

    entities: list[SupportQuestion] = Field(default_factory=list)
    relationships: list[SupportQuestion] = Field(default_factory=list)
    left_out: int = 0  # descriptions not asked (beyond judge.max_questions)


class FactQuestion(Value):
    """(c) One fact whose stem share is unsure, put to the suite's judge: `summary kept: FACT` (is
    this description fact in the summary?), `summary added: FACT` (do the descriptions support this
    summary fact?) or `report finding: SUMMARY` (does the context support this finding?)."""

    id: str
    statement: str
    share: float  # the share of its content words the stems found on the other side
    verdict: JudgeVerdict | None  # None: unreadable (the stem call stands)


class JudgedFacts(Value):
    """(c) A summary's facts kept and added, or a report's findings supported, with the judge's
    verdicts in place of the stems' where the stem share was unsure (docs/judges.md). Counts are
    None where the case's kind has none."""

    questions: list[FactQuestion] = Field(default_factory=list)
    description_facts: int | None = None
    facts_kept: int | None = None
    summary_facts: int | None = None
    facts_added: int | None = None
    findings: int | None = None
    findings_supported: int | None = None


class JudgedMatch(Value):
    """Matching after exact/alias/fuzzy: the judge's verdicts on the pairs those left open, and the
    counts with the judged matches added (docs/judges.md). Counts are None where the case has no
    gold of that list, as the string figures are."""

    questions: list[JudgeQuestion] = Field(default_factory=list)
    left_out: int = 0  # open pairs not asked (beyond judge.max_candidates / judge.max_questions)
    entity_tp: int | None = None  # string matches + judged matches (one predicted item per gold one)
    entity_gold: int | None = None
    entity_pred: int | None = None
    relationship_tp: int | None = None
    relationship_gold: int | None = None
    relationship_pred: int | None = None


class CaseScore(Value):
    entities: EntityScores
    relationships: RelationshipScores
    grounding: Grounding
    # what scoring set aside before counting: duplicate entities and edges, self-loops, ...
    dropped: dict[str, int] = Field(default_factory=dict)
    # the reference-free figures (the runner computes them with the variant's prompt); None in
    # rows written before they existed, and from `score_case` alone: such a case pools none of them
    reference_free: ReferenceFreeScores | None = None
    # relationships matched with their predicate; None unless the case's gold is typed
    typed: TypedRelationshipScores | None = None
    # predicted relationships against the suite's ontology; None for a suite without one
    ontology: OntologyScores | None = None
    # the suite kind's own figures (harness/kinds/: `KindSpec.score_key` -> its score model, e.g.
    # "summary" -> SummaryScore); empty in extraction suites. Written at the top level of the score
    # under that key, as the per-kind fields were, so results.jsonl reads the same.
    figures: dict[str, Value] = Field(default_factory=dict, exclude=True)
    # the suite judge's matching (harness/judges/); None without a `judge:` block
    judged: JudgedMatch | None = None
    # (b) the suite judge's faithfulness verdicts; None without `judge.faithfulness`
    faithful: JudgedFaithfulness | None = None
    # (c) summary facts and report findings with the judge's verdicts where the stems were unsure;
    # None without `judge.facts`
    judged_facts: JudgedFacts | None = None

    @model_validator(mode="before")
    @classmethod
    def _read_kind_figures(cls, data: Any) -> Any:
        """A kind's figures (a top-level key of a registered kind's `score_key`) into `figures`;
        a key no registered kind owns stays, and is refused as unknown."""
        if isinstance(data, dict) and any(key in _KIND_SCORES for key in data):
            data = dict(data)
            figures = dict(data.get("figures") or {})
            for key in [k for k in data if k in _KIND_SCORES]:
                value = data.pop(key)
                if value is not None:
                    figures[key] = _KIND_SCORES[key].model_validate(value)
            data["figures"] = figures
        return data

    @model_serializer(mode="wrap")
    def _leave_out_absent_figures(self, handler: Any, info: SerializationInfo) -> Any:
        """Optional figures are left out of results.jsonl when None (most suites have none); a
        kind's figures are written under their key."""
        data = handler(self)
        if isinstance(data, dict):
            for key in ("typed", "ontology", "judged", "faithful", "judged_facts"):
                if data.get(key, 0) is None:
                    del data[key]
            for key, model in self.figures.items():
                data[key] = model.model_dump(mode=info.mode, by_alias=info.by_alias, exclude_none=info.exclude_none)
        return data

    def with_figures(self, key: str, figures: Value) -> CaseScore:
        """This score with a kind's figures under `key` (its `KindSpec.score_key`)."""
        return self.model_copy(update={"figures": {**self.figures, key: figures}})

    def figures_of(self, key: str, model: type[V]) -> V | None:
        """The kind's figures under `key` when they are a `model`; None for a case of another kind."""
        found = self.figures.get(key)
        return found if isinstance(found, model) else None


# a kind's score key -> its score model (`KindSpec.score_key`, `score_model`), filled by the kind
# registry (harness/kinds/registry.py) as kinds register: how `CaseScore` reads them back
_KIND_SCORES: dict[str, type[Value]] = {}
V = TypeVar("V", bound=Value)


def register_kind_score(key: str, model: type[Value]) -> None:
    """Let `CaseScore` read a kind's figures written under `key` (the kind registry calls this)."""
    if key in CaseScore.model_fields or (key in _KIND_SCORES and _KIND_SCORES[key] is not model):
        raise ValueError(f"score key {key!r} is already taken")
    _KIND_SCORES[key] = model


GoldKindName = Literal["entities", "relationships"]


class CaseMetrics(Value):
    """A case's value of every registered metric and count (harness/metrics), computed once from
    its score where the case is evaluated (`scoring.case_metrics.measure`) and stored with it, so
    that the summary, comparisons, the gate, baselines, reports, junit.xml and the pytest plugin
    read them instead of running the registry again. An undefined value (None: n/a) is left out.

    `registry` names the set of metrics and counts they were computed against
    (`metrics.registry.fingerprint`): a row measured against another set (an older harness, other
    plugins) is measured again when read (`scoring.case_metrics.measured`)."""

    registry: str
    values: dict[str, int | float] = Field(default_factory=dict)  # metric name -> its value
    counts: dict[str, int] = Field(default_factory=dict)  # count name -> its value
    # the gold kinds the case is annotated for: only these pool their gold-based counts
    annotated: list[GoldKindName] = Field(default_factory=list)

    def value(self, metric: str) -> float | None:
        """The case's value of a metric (None: undefined on this case)."""
        return self.values.get(metric)

    def count(self, name: str) -> int | None:
        """The case's value of a count (None: the case has no such count)."""
        return self.counts.get(name)


# --------------------------------------------------------------------------- runs


class Usage(Value):
    """Tokens of one or more calls. `estimated`: some part was counted by the harness's own
    tokenizer because the endpoint reported no usage, or usage that could not be true."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    estimated: bool = False
    # of `prompt_tokens`, those the endpoint read from its prompt cache (`prompt_tokens_details.
    # cached_tokens`), billed at the cached-input price; left out of files while 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            estimated=self.estimated or other.estimated,
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )

    @model_serializer(mode="wrap")
    def _leave_out_no_cache(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("cached_tokens") == 0:
            del data["cached_tokens"]
        return data

    @property
    def counted(self) -> bool:
        """Some token was counted. Nothing counted is no usage known (answers another pipeline
        wrote, calls that all failed), not a free run: what it cost is n/a, never $0."""
        return bool(self.prompt_tokens or self.completion_tokens or self.total_tokens)


class Round(Value):
    """One model call of a case: the first extraction, a gleaning continuation, or a loop check."""

    index: int
    kind: Literal["extract", "continue", "loop"]
    output: str
    usage: Usage = Field(default_factory=Usage)
    # the endpoint's time for the call, and where it comes from: "measured" as the call was sent,
    # "recorded" as the cassette that answered it kept it when it was recorded. None (and no
    # `latency_from`) where none is known: evaluated outputs, a cassette recorded before latencies
    # were kept, answers from a batch or a cache. Only a round with `latency_from` counts in the
    # latency figures (a row written before it held the time to read a cassette back)
    latency_s: float | None = None
    latency_from: Literal["measured", "recorded"] | None = None
    batch: bool = False  # answered by the Batch API (`harness record --batch`): batch prices
    # why the model stopped, as the provider said ("stop"; "length": cut off at max_tokens, a
    # `truncated` finding); None where no provider said (evaluated outputs), then left out of the row
    finish_reason: str | None = None

    @model_serializer(mode="wrap")
    def _leave_out_unknown_finish(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key in ("finish_reason", "latency_from"):
                if data.get(key, "") is None:
                    del data[key]
            if data.get("batch") is False:
                del data["batch"]
        return data

    @property
    def timed(self) -> bool:
        """Whether the round's latency is known (measured, or kept in its cassette)."""
        return self.latency_from is not None and self.latency_s is not None


class EngineRead(Value):
    """What the engine version a suite names (`engine:`) keeps from one case's answers, read by its
    own parser as harness.cache_audit.engines models it (GraphRAG: the answers glued as it glues
    them, seams included), beside what the harness recovers (docs/scoring.md, "What the engine
    keeps"). `entities`, `relationships`: the engine's graph, merged as the engine merges (the
    graph the case is scored on); `lost`: records the harness recovers that have no counterpart
    in it (an entity kept only as a relationship's endpoint, untyped, counts as lost); `reasons`: why the engine's parser dropped the records it dropped (reason -> records)."""

    engine: str  # as the suite names it
    parser: str  # the modelled parser: graphrag-3.x, lightrag>=1.4.8, llamaindex-simple, ...
    entities: int
    relationships: int
    recovered_entities: int
    recovered_relationships: int
    lost: int
    reasons: dict[str, int] = Field(default_factory=dict)


class RecoveredResult(Value):
    """The harness's own graph of a case's answers and its figures: the second, labelled column
    of a suite that names its engine, whose default figures are on the engine's graph."""

    graph: ExtractedGraph = Field(default_factory=ExtractedGraph)
    score: CaseScore | None = None
    metrics: CaseMetrics | None = None  # the score's metric values (CaseResult.metrics)

    @model_serializer(mode="wrap")
    def _leave_out_unmeasured(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("metrics", "") is None:
            del data["metrics"]
        return data


class CaseResult(Value):
    """One row of results.jsonl: one case of one suite under one variant."""

    suite: str
    variant: str
    case_id: str
    request_hash: str = ""  # hash of the first request, to tell stale results from current ones
    rounds: list[Round] = Field(default_factory=list)
    graph: ExtractedGraph = Field(default_factory=ExtractedGraph)
    format_report: FormatReport = Field(default_factory=FormatReport)
    round_reports: list[FormatReport] = Field(default_factory=list)
    score: CaseScore | None = None
    # every registered metric's and count's value on `score`, computed when the case was scored
    # (scoring.case_metrics); None without a score, and in rows written before it existed (measured
    # when read). A copy given another score drops them (`metrics=None`), to be measured again
    metrics: CaseMetrics | None = None
    in_prompt_examples: bool = False  # the prompt's few-shot examples hold the chunk: scored on copying
    usage: Usage = Field(default_factory=Usage)
    # the rounds' latencies summed (the case's time at the endpoint); None when some round's is unknown
    latency_s: float | None = None
    error: str | None = None
    # which repeat of the case this row is (`--repeat N`: 0 .. N-1); left out of the file while 0,
    # so a run without repeats writes the rows it always wrote
    sample: int = Field(default=0, ge=0)
    # what the engine the suite names keeps from the answers; None (left out) where the suite names
    # no engine or its kind builds no graph. With it, `graph` and `score` are the engine's graph
    # and its figures, and `recovered` the harness's own graph and figures (left out without it)
    engine: EngineRead | None = None
    recovered: RecoveredResult | None = None

    @model_serializer(mode="wrap")
    def _leave_out_first_sample(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("sample") == 0:
            del data["sample"]
        for key in ("metrics", "engine", "recovered"):
            if isinstance(data, dict) and data.get(key, "") is None:
                del data[key]
        return data


def first_samples(rows: list[CaseResult]) -> list[CaseResult]:
    """Sample 0 of each case: the rows per-case views (case tables, per-case gate rules,
    baselines) show; with one sample per case that is every row."""
    return [row for row in rows if row.sample == 0]


# --------------------------------------------------------------------------- scoring aggregates


class MetricAggregate(Value):
    """One metric over a suite: `micro` pools the counts of all cases, `macro` averages per-case values.

    For a count metric (harness.metrics.registry, `kind`) micro is the total over the cases that
    have a value (an int) and macro the mean per case."""

    # None when the pooled denominator is empty (type accuracy, endpoint recall) or no case has
    # a value (a count); int | float: a total stays an int in summary.json
    micro: int | float | None
    macro: float | None  # None when no case had a value
    cases: int  # cases that contributed a value to the macro mean


class SuiteMetrics(Value):
    """Per-suite (per-variant) scores; every metric says which average is which."""

    cases: int
    metrics: dict[str, MetricAggregate] = Field(default_factory=dict)  # e.g. "entity_recall"
    counts: dict[str, int] = Field(default_factory=dict)  # summed per-case counts, e.g. "entity_tp"
    # cases that pooled each count (a case pools a count when it has a value for it, and for a
    # gold-based count when it is annotated for its kind); absent in older summaries
    pooled: dict[str, int] = Field(default_factory=dict)
    # cases annotated with gold entities / relationships: the only ones gold-based metrics pool
    annotated: dict[str, int] = Field(default_factory=dict)  # {"entities": n, "relationships": m}

    def get(self, metric: str, average: Literal["micro", "macro"] = "micro") -> float | None:
        agg = self.metrics.get(metric)
        return None if agg is None else getattr(agg, average)


class GraphStats(Value):
    """Statistics of a variant's union graph over all cases (nodes are normalised names)."""

    nodes: int
    edges: int
    components: int
    largest_component: int
    density: float
    isolates: int
    self_loops_dropped: int
    communities: int
    largest_community: int
    modularity: float | None  # None for a graph without edges
    algorithm: str = "louvain"
    resolution: float = 1.0
    library: str = "networkx"
    library_version: str = ""
    seed: int = 42
