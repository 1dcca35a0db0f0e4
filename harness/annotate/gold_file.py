"""The gold side file a suite includes (`gold_file: podcast.gold.yaml`): per case, its gold and its
review state. `harness annotate` writes it; `load_suite` reads it and gives each case listed the
file's gold instead of the suite's own (docs/annotate.md says why a side file: the suite file the
user wrote, comments and layout included, is never rewritten; one line `gold_file:` is appended).

A proposal keeps, per item, what the reviewer needs to judge it (`found_by`, `grounded`,
`type_votes`); those keys are not gold and are dropped when the case becomes a `GoldCase`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationError, field_validator

from ..errors import InputError
from ..model import GoldEntity, GoldRelationship, ReviewDay, ReviewState, Value, check_judgements
from ..names import CASE_ID
from ..scoring.normalize import normalize_predicate
from ..yamlfile import LineMap, Location, format_loc, line_of, load_yaml, shown_key

GOLD_FILE_SUFFIX = ".gold.yaml"


class ProposedEntity(GoldEntity):
    found_by: list[str] = Field(default_factory=list)  # the variants whose answer named it
    grounded: bool | None = None  # whether one of its spellings occurs in the chunk (reference-free rule)
    type_votes: dict[str, int] = Field(default_factory=dict)  # canonical type -> variants that gave it


class ProposedRelationship(GoldRelationship):
    found_by: list[str] = Field(default_factory=list)
    grounded: bool | None = None  # both endpoints grounded


class GoldFileCase(Value):
    id: str
    review: ReviewState | None = None
    reviewer: str | None = None
    reviewed: ReviewDay | None = None
    annotated: bool | None = None
    entities: list[ProposedEntity] = Field(default_factory=list)
    relationships: list[ProposedRelationship] = Field(default_factory=list)
    # reviewers' verdicts on the suite judge's questions: question id -> same | different (docs/judges.md)
    judgements: dict[str, str] = Field(default_factory=dict)

    _judgements = field_validator("judgements")(check_judgements)

    def gold_entities(self) -> list[GoldEntity]:
        return [GoldEntity(name=e.name, type=e.type, aliases=e.aliases) for e in self.entities]

    def gold_relationships(self) -> list[GoldRelationship]:
        return [GoldRelationship(source=r.source, target=r.target, description=r.description,
                                 directed=r.directed, type=r.type) for r in self.relationships]


class ProposedFrom(Value):
    run: str = ""  # the run folder the proposals came from (relative to the project folder when inside it)
    other_runs: list[str] | None = None  # the other runs of a `--from A --from B` proposal, merged with `run`
    variants: list[str] = Field(default_factory=list)
    sample: int = 0  # the sample of a `--repeat` run that was read (always the first)


class GoldSideFile(Value):
    """The whole side file (also the shape of a reviewed file from the review page)."""

    suite: str | None = None
    proposed_from: ProposedFrom | None = None
    reviewer: str | None = None  # defaults for the cases of a reviewed file
    reviewed: ReviewDay | None = None
    cases: list[GoldFileCase] = Field(default_factory=list)


def side_file_name(suite_path: Path) -> str:
    """`suites/podcast.yaml` -> `podcast.gold.yaml` (beside the suite)."""
    return suite_path.name.rsplit(".", 1)[0] + GOLD_FILE_SUFFIX


def _fail(path: Path, lines: LineMap, loc: Location, message: str) -> InputError:
    line = line_of(lines, loc)
    where = f"{path}:{line}" if line else str(path)
    field = format_loc(loc)
    text = f"{where}: {field + ': ' if field else ''}{message}"
    return InputError(text.replace("\r", "\\r").replace("\n", "\\n"))


def validate_gold_file(data: object, path: Path, lines: LineMap) -> GoldSideFile:
    """A gold file's data, validated: schema, case ids, no name listed twice in a case, every
    relationship endpoint an entity of its case. Errors are one line naming file, line and key."""
    if not isinstance(data, dict):
        raise InputError(f"{path}: a gold file is a mapping with `cases` (a list of cases with `id`, `entities`, `relationships`)")
    try:
        gold = GoldSideFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(error["loc"])
        if error["type"] == "extra_forbidden":
            message = f"unknown key '{shown_key(loc[-1])}'"
        elif error["type"] == "missing":
            message, loc = f"missing required key '{loc[-1]}'", loc[:-1]
        else:
            message = error["msg"].removeprefix("Value error, ")
        raise _fail(path, lines, loc, message) from None
    seen: dict[str, int] = {}
    for index, case in enumerate(gold.cases):
        loc = ("cases", index)
        if not CASE_ID.fullmatch(case.id):
            raise _fail(path, lines, (*loc, "id"), "case ids are letters, digits, '.', '_' and '-'")
        if case.id in seen:
            raise _fail(path, lines, (*loc, "id"), f"duplicate case id '{case.id}' (first at case {seen[case.id]})")
        seen[case.id] = index
        known: set[str] = set()
        for e_index, entity in enumerate(case.entities):
            if not entity.name.strip():
                raise _fail(path, lines, (*loc, "entities", e_index, "name"), "an entity name is blank")
            names = [entity.name, *entity.aliases]
            if any(n in known for n in names) or len(set(names)) < len(names):
                raise _fail(path, lines, (*loc, "entities", e_index), f"entity '{entity.name}' is listed twice")
            known.update(names)
        for r_index, rel in enumerate(case.relationships):
            for end in ("source", "target"):
                if getattr(rel, end) not in known:
                    raise _fail(path, lines, (*loc, "relationships", r_index, end),
                                f"'{getattr(rel, end)}' is not an entity of case '{case.id}'")
            if rel.type.strip() and not normalize_predicate(rel.type):
                raise _fail(path, lines, (*loc, "relationships", r_index, "type"),
                            f"predicate '{shown_key(rel.type)}' has no letters or digits")
    return gold


def gold_file_problem(gold: GoldSideFile, suite: str, case_ids: list[str]) -> str | None:
    """Why a side file is not this suite's gold: it names another suite, or lists a case the suite
    lacks (a side file copied or left from another suite would give cases gold they never had)."""
    if gold.suite is not None and gold.suite != suite:
        return f"gold of suite '{gold.suite}', refused by suite '{suite}'"
    ids = set(case_ids)
    unknown = next((case.id for case in gold.cases if case.id not in ids), None)
    if unknown is not None:
        return f"case '{unknown}' is not a case of suite '{suite}'"
    return None


def read_gold_file(path: Path) -> GoldSideFile:
    data, lines = load_yaml(path)
    return validate_gold_file(data, path, lines)


def write_gold_file(path: Path, gold: GoldSideFile, *, header: str = "", roots: tuple[Path, ...] = ()) -> None:
    """The side file as YAML (block style, keys in model order, unset values left out); `roots`: the
    project folder it is written inside (harness/confined.py)."""
    import yaml

    from ..atomicfile import atomic_write

    data = gold.model_dump(mode="json", exclude_none=True, exclude_defaults=False)
    for case in data.get("cases", []):
        for item in (*case.get("entities", []), *case.get("relationships", [])):
            for key in [k for k, v in item.items() if v in ([], {}, "") or (k == "directed" and v is False)]:
                del item[key]
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120, default_flow_style=None)
    atomic_write(path, [header, text], roots=roots)
