"""Suite files: schema, loading, and errors that name the file and the line."""

from __future__ import annotations

import json
from typing import Any
import os
import stat
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, TypeAdapter, ValidationError, field_validator, model_validator

from .errors import InputError
from .inputfiles import MAX_INPUT_BYTES, read_text, shown_path
from .judges.config import JudgeOptions
from .known_keys import learn_key_envs
from .llm.pricing import Price
from .llm.providers.base import check_base_url
from .llm.providers.registry import known_provider, provider_names
from .model import (GoldCase, GoldClaim, GoldEntity, GoldRelationship, check_judgements, MatchingConfig, Ontology, ReviewDay, ReviewState,
                    SuiteKind, Value)
from .names import CASE_ID, NAME_RULE  # anchored with \A...\Z: a trailing newline does not slip through
from .formats import AUTO, format_names, is_format
from .prompts.entity_types import DEFAULT_ENTITY_TYPES
from .gate_settings import Regression, Thresholds
from .scoring.normalize import normalize_predicate, normalize_type
from .kinds.registry import DEFAULT_KIND, case_problem, get_kind, kind_names
from .yamlfile import LineMap, format_loc, line_of, load_yaml, shown_key

# Largest chunk file read (a chunk is a few thousand tokens; this is far above).
MAX_CHUNK_BYTES = MAX_INPUT_BYTES
# Longest chunk path accepted, in characters (PATH_MAX is 4096 on Linux).
MAX_PATH_CHARS = 1024

MAX_TIMEOUT_S = 86_400.0  # a day: the longest `timeout_s` (and `harness tune --timeout`)
MAX_CONCURRENCY = 512


class ModelSettings(Value):
    name: str = "gpt-4o-mini"
    # null: no temperature is sent (the endpoint's default), as GraphRAG 3.x and LightRAG 1.4.7 and
    # later send none when their settings state none
    temperature: float | None = Field(0.0, ge=0.0, le=2.0, allow_inf_nan=False)
    top_p: float | None = Field(None, gt=0.0, le=1.0, allow_inf_nan=False)
    max_tokens: int | None = Field(None, ge=1)
    seed: int | None = None
    max_gleanings: int = Field(1, ge=0, le=10)
    base_url: str | None = None
    # replicas of one self-hosted model (llm/replicas.py): each call goes to one of them, each
    # with its own adaptive limit of `concurrency`; instead of base_url
    base_urls: list[str] | None = Field(None, min_length=1, max_length=64)
    # the variable that holds the base URL, when the suite names it rather than the URL (an imported
    # project's `api_base: ${VAR}`): read when the call is sent, so the suite never holds its value
    base_url_env: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    api_version: str | None = None  # Azure's api-version (else OPENAI_API_VERSION, else the provider's default)
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = Field(120.0, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    concurrency: int = Field(8, ge=1, le=MAX_CONCURRENCY)
    max_retries: int = Field(6, ge=0, le=50)
    # longest Retry-After a call waits for; a longer one gives the call up (exit 4)
    max_wait_s: float = Field(120.0, gt=0, le=86_400, allow_inf_nan=False)
    provider: str = "openai"  # how the endpoint is spoken to: a name in llm/providers/registry.py

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        if not known_provider(value):
            raise ValueError(f"'{value}' is not one of {', '.join(provider_names())}")
        return value

    @field_validator("base_url")
    @classmethod
    def _valid_url(cls, value: str | None) -> str | None:
        return None if value is None else check_base_url(value)

    @field_validator("base_urls")
    @classmethod
    def _valid_urls(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        for url in value:
            check_base_url(url)
        if len(set(value)) != len(value):
            raise ValueError("a URL is listed twice")
        paths = {urlsplit(url).path.rstrip("/") for url in value}
        if len(paths) > 1:  # the request path is in every cassette: replicas must serve the same one
            raise ValueError(f"the replicas' URLs must have the same path (have {', '.join(sorted(paths))})")
        return value

    @model_validator(mode="after")
    def _one_endpoint_setting(self) -> ModelSettings:
        if self.base_urls is not None and (self.base_url is not None or self.base_url_env is not None):
            raise ValueError("base_urls: give base_url, base_url_env or base_urls, not two of them")
        return self


class MatrixModel(ModelSettings):
    """One model of a suite's `models:` (docs/suites.md, "Model matrix"): a full model block and
    the label its cells are named by (`<variant>@<label>`); the label is the key of the mapping
    form, else `label:`, else the model's name."""

    label: str

    @field_validator("label")
    @classmethod
    def _safe_label(cls, value: str) -> str:
        if not CASE_ID.fullmatch(value):
            raise ValueError(f"model label {value!r} must be {NAME_RULE} (it names cassette folders); "
                             "give the model a `label:`")
        return value


class JudgeSpec(JudgeOptions):
    """A suite's `judge:` (docs/judges.md): the judge's own model block, like the suite's `model:`."""

    model: ModelSettings = Field(default_factory=ModelSettings)


class VariantSpec(Value):
    """A prompt version to evaluate. Unset values come from the prompt template's own
    declarations (YAML templates), then from GraphRAG's defaults."""

    prompt: str
    format: str | None = None
    entity_types: list[str] | None = None
    language: str | None = None
    tuple_delimiter: str | None = None
    record_delimiter: str | None = None
    completion_delimiter: str | None = None
    model: str | None = None  # overrides the suite's model name
    # the ids of the cases this variant runs (in suite order whatever the list's order); None:
    # every case. `import --cache` writes it: a cached model answers only the text units it saw
    cases: list[str] | None = None

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str | None) -> str | None:
        if value is not None and value != AUTO and not is_format(value):  # the output-format registry (harness.formats)
            raise ValueError(f"'{value}' is not one of {', '.join((AUTO, *format_names()))}")
        return value


class CitationSettings(Value):
    datasets: list[str] = Field(default_factory=lambda: ["Entities", "Relationships", "Claims", "Reports", "Sources"])


class CaseSpec(Value):
    id: str
    chunk: str | None = None
    text: str | None = None
    source_id: str | None = None  # the engine's id of this text (a GraphRAG text unit id), written by import
    entities: list[GoldEntity] = Field(default_factory=list)
    relationships: list[GoldRelationship] = Field(default_factory=list)
    annotated: bool | None = None  # true: the lists are complete, empty ones too (docs/scoring.md)
    # inputs and gold of the other suite kinds: see harness.model.GoldCase
    entity_name: str | list[str] | None = None  # a relationship's summary: [source, target]
    descriptions: list[str] = Field(default_factory=list)
    max_length: int | None = Field(None, ge=1)
    entity_specs: list[str] = Field(default_factory=list)
    claim_description: str | None = None
    question: str | None = None  # global_search_map: the user's question
    example: str | None = None  # extract_graph: this case's `{example}` (a worked example chosen per case)
    facts: list[str] = Field(default_factory=list)
    claims: list[GoldClaim] = Field(default_factory=list)
    review: ReviewState | None = None  # `harness annotate`: pending gold is no gold until reviewed
    reviewer: str | None = None
    reviewed: ReviewDay | None = None
    # a plugin kind's own inputs and gold (its `KindSpec.case_fields`), checked by its kind
    inputs: dict[str, Any] = Field(default_factory=dict)
    judgements: dict[str, str] = Field(default_factory=dict)

    _judgements = field_validator("judgements")(check_judgements)  # reviewers' verdicts (docs/judges.md)

    @field_validator("id")
    @classmethod
    def _safe_id(cls, value: str) -> str:
        if not CASE_ID.fullmatch(value):
            raise ValueError("case ids are letters, digits, '.', '_' and '-' (they name cassette files)")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> CaseSpec:
        # whether a source is needed at all depends on the suite's kind (kinds.registry.case_problem)
        if self.chunk is not None and self.text is not None:
            raise ValueError("give exactly one of `chunk` (a file) or `text` (inline)")
        return self

    @field_validator("entity_name")
    @classmethod
    def _one_or_two_names(cls, value: str | list[str] | None) -> str | list[str] | None:
        if isinstance(value, list) and len(value) != 2:
            raise ValueError("a relationship's entity_name is a pair: [source, target]")
        return value

    def entity_names(self) -> list[str]:
        """The entity a summary case is about, or both ends of a relationship."""
        if self.entity_name is None:
            return []
        return list(self.entity_name) if isinstance(self.entity_name, list) else [self.entity_name]

    def gold_entity_name(self) -> str | None:
        """`GoldCase.entity_name`: the name, or a pair as the JSON list GraphRAG writes."""
        if isinstance(self.entity_name, list):
            return json.dumps(self.entity_name, ensure_ascii=False)
        return self.entity_name


class SuiteSpec(Value):
    name: str
    kind: SuiteKind = DEFAULT_KIND  # which prompt the suite evaluates (docs/suites.md; harness/kinds/)
    description: str = ""
    notes: str = ""
    language: str = "English"
    entity_types: list[str] = Field(default_factory=lambda: list(DEFAULT_ENTITY_TYPES))
    model: ModelSettings = Field(default_factory=ModelSettings)
    # the model matrix: every variant runs with every model, each (variant, model) a cell of its
    # own (`<variant>@<label>`); the suite's `model:` gives each entry's unset settings
    models: list[MatrixModel] | None = None
    variants: dict[str, VariantSpec]
    baseline: str | None = None
    thresholds: Thresholds = Field(default_factory=Thresholds)
    regression: Regression = Field(default_factory=Regression)
    matching: MatchingConfig = Field(default_factory=MatchingConfig)
    ontology: Ontology | None = None  # entity types and relations the extraction may use (docs/scoring.md)
    citations: CitationSettings = Field(default_factory=CitationSettings)
    # the engine version the suite's prompts run in (`graphrag-1.2.0`, `graphrag-1` for the newest
    # 1.x, `lightrag-1.4.9`): a GraphRAG version gives the runner that version's gleaning
    # conversation (llm/engine_conversation.py), and every run shows what the engine's own parser
    # keeps (scoring/engine_reading.py); None: the harness's own conversation and reading only
    engine: str | None = None
    # gold kept beside the suite by `harness annotate` (docs/annotate.md); its cases' gold wins
    gold_file: str | None = None
    judge: JudgeSpec | None = None  # a model judge, recorded like extraction calls (docs/judges.md)
    # model -> prices per million tokens, over the built-in table and prices.yaml (llm/pricing.py)
    prices: dict[str, Price] = Field(default_factory=dict)
    cases: list[CaseSpec] = Field(min_length=1)

    @field_validator("prices", mode="before")
    @classmethod
    def _suite_prices(cls, value: Any) -> Any:
        """Each entry's source is the suite (not a key the suite may set)."""
        if not isinstance(value, dict):
            return value
        for model, entry in value.items():
            if isinstance(entry, dict) and "source" in entry:
                raise ValueError(f"{model}: `source` is not a price field (input, output, cached_input, "
                                 "batch_input, batch_output, as_of)")
        return {model: {**entry, "source": "suite"} if isinstance(entry, dict) else entry
                for model, entry in value.items()}

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        if not CASE_ID.fullmatch(value):
            raise ValueError("suite names are letters, digits, '.', '_' and '-' (they name folders)")
        return value

    @model_validator(mode="before")
    @classmethod
    def _matrix_entries(cls, data: Any) -> Any:
        """`models:` as a list of blocks, each with its label: a mapping's key is its entry's label
        (and its name when it gives none), a list entry's label is its `label:` or its name; every
        setting an entry leaves out is the suite `model:`'s (its name excepted)."""
        if not isinstance(data, dict) or not isinstance(data.get("models"), (dict, list)):
            return data
        shared = data.get("model")
        inherited = {key: value for key, value in shared.items() if key != "name"} if isinstance(shared, dict) else {}
        given = data["models"]
        entries: list[Any] = []
        pairs = given.items() if isinstance(given, dict) else ((None, entry) for entry in given)
        for key, entry in pairs:
            if key is not None and entry is None:
                entry = {}  # `models: {gpt-4o-mini: }`: the label is the model's name
            if not isinstance(entry, dict):
                entries.append(entry)  # refused by the schema, where it stands
                continue
            own = {**inherited, **entry}
            if key is not None:
                own = {"name": str(key), **own, "label": str(key)}
            elif "label" not in own and isinstance(own.get("name"), str):
                own["label"] = own["name"]
            entries.append(own)
        return {**data, "models": entries}

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        try:
            get_kind(value)
        except ValueError:
            raise ValueError(f"'{value}' is not a suite kind (one of {', '.join(kind_names())})") from None
        return value

    @field_validator("engine")
    @classmethod
    def _known_engine(cls, value: str | None) -> str | None:
        if value is not None:
            from .engine_names import parse_engine_name

            try:  # a release whose conversation or parser is not modelled is refused at load, by name
                parse_engine_name(value)
            except InputError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("variants")
    @classmethod
    def _variant_names(cls, value: dict[str, VariantSpec]) -> dict[str, VariantSpec]:
        if not value:
            raise ValueError("at least one variant is needed")
        for name in value:
            if not CASE_ID.fullmatch(name):
                raise ValueError(f"variant name {name!r} must be letters, digits, '.', '_' and '-'")
        return value


CELL_MARK = "@"  # no variant or model name holds it (names.CASE_ID): a cell's name is unambiguous


@dataclass(frozen=True)
class Cell:
    """One cell of a suite's model matrix: a prompt variant (as the suite file names it) run with
    one model of `models:` (its label)."""

    variant: str
    model: str

    @property
    def name(self) -> str:
        """The cell's variant name in runs, cassette folders and summaries: `<variant>@<model>`."""
        return f"{self.variant}{CELL_MARK}{self.model}"


class Suite:
    """A loaded suite: the validated spec plus resolved paths and gold cases."""

    def __init__(self, spec: SuiteSpec, path: Path, root: Path, cases: list[GoldCase], *,
                 allow_outside_files: bool = False, cells: dict[str, Cell] | None = None) -> None:
        self.spec = spec
        self.path = path
        self.root = root  # the project folder that relative paths in the suite start from
        self.cases = cases
        # --allow-outside-chunks: chunk and prompt files may resolve outside `root`
        self.allow_outside_files = allow_outside_files
        # the model matrix's cells by variant name (`<variant>@<model>`); empty without `models:`
        self.cells: dict[str, Cell] = dict(cells or {})

    def holds(self, file: Path) -> bool:
        """Whether `file` may be read for this suite: inside the project folder (symlinks
        followed), or anywhere with --allow-outside-chunks."""
        return self.allow_outside_files or _inside(file, self.root)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def baseline(self) -> str:
        return self.spec.baseline or next(iter(self.spec.variants))

    def model_settings(self, variant: str) -> ModelSettings:
        """The model block a variant (a matrix cell) calls: its `models:` entry, else the suite's `model:`."""
        cell = self.cells.get(variant)
        if cell is None:
            return self.spec.model
        return next(m for m in self.spec.models or () if m.label == cell.model)

    def model_blocks(self) -> list[ModelSettings]:
        """Every model block the suite may call (its key variables are learnt from these)."""
        return [self.spec.model, *(self.spec.models or ())]

    def prompt_variant(self, variant: str) -> str:
        """The variant as the suite file names it (a cell's prompt variant)."""
        cell = self.cells.get(variant)
        return variant if cell is None else cell.variant

    def select(self, variants: list[str] | None, models: list[str] | None) -> list[str]:
        """The variant names a run of `--variant` and `--model` selects, in suite order: a cell is
        selected when its prompt variant (or its own name) is among `variants` and its model among
        `models`; an unknown name is an InputError."""
        names = self.variant_names()
        if variants:
            known = set(names) | {cell.variant for cell in self.cells.values()}
            unknown = [v for v in variants if v not in known]
            if unknown:
                have = list(dict.fromkeys([*(c.variant for c in self.cells.values()), *names]))
                raise InputError(f"{self.path}: --variant: no variant named {', '.join(unknown)} (have {', '.join(have)})")
            names = [n for n in names if n in variants or self.prompt_variant(n) in variants]
        if models:
            labels = [m.label for m in self.spec.models or ()]
            if not labels:
                raise InputError(f"{self.path}: --model: the suite lists no `models:` to choose from")
            unknown = [m for m in models if m not in labels]
            if unknown:
                raise InputError(f"{self.path}: --model: no model named {', '.join(unknown)} (have {', '.join(labels)})")
            names = [n for n in names if self.cells[n].model in models]
        return names

    def variant_names(self) -> list[str]:
        return list(self.spec.variants)

    def variant_cases(self, name: str) -> list[GoldCase]:
        """The cases variant `name` runs, in suite order: those its `cases:` lists, else every case."""
        listed = self.spec.variants[name].cases
        if listed is None:
            return self.cases
        wanted = set(listed)
        return [case for case in self.cases if case.id in wanted]

    def pairs(self, variants: list[str] | None = None,
              cases: list[GoldCase] | None = None) -> list[tuple[str, GoldCase]]:
        """Every (variant, case) a run of `variants` on `cases` (default: all) makes, in suite
        order: variant, then case; a variant with a `cases:` list only on the cases it lists."""
        chosen = None if cases is None else {id(case) for case in cases}
        return [(name, case) for name in (self.variant_names() if variants is None else variants)
                for case in self.variant_cases(name) if chosen is None or id(case) in chosen]

    def resolve(self, relative: str) -> Path:
        return resolve_path(relative, self.path, self.root)

    def cassette_dir(self) -> Path:
        return self.root / "fixtures" / "cassettes" / self.name


def project_root(suite_path: Path) -> Path:
    """Suites live in `<root>/suites/`; a suite elsewhere is its own root."""
    folder = suite_path.resolve().parent
    return folder.parent if folder.name == "suites" else folder


class SuitePaths:
    """Where a suite's relative paths start from, resolved once for all of its chunk files.

    resolve_path and _inside resolve the suite's folder, the working folder and the project
    folder's real path for every file; a suite of 20,000 chunks would do that 20,000 times (the
    bigger part of its load time). Each is resolved when first needed, as those functions do.
    """

    def __init__(self, suite_path: Path, root: Path) -> None:
        self.suite_path = suite_path
        self.root = root
        self._real_folders: dict[str, str] = {}  # folder -> its real path (chunks share a few folders)

    @cached_property
    def bases(self) -> tuple[Path, Path, Path]:
        """The folders a relative path is looked for in, in order."""
        return (self.suite_path.resolve().parent, self.root, Path.cwd())

    @cached_property
    def real_root(self) -> Path:
        return Path(os.path.realpath(self.root))

    def resolve(self, relative: str) -> Path:
        """See resolve_path."""
        candidate = Path(relative)
        if candidate.is_absolute():
            return candidate
        for base in self.bases:
            try:
                joined = base / candidate
                if joined.exists():
                    return joined
            except (OSError, ValueError):  # a name too long for the file system, a NUL byte
                break
        return self.root / candidate

    def inside(self, path: Path) -> bool:
        """See _inside."""
        return Path(self.realpath(path)).is_relative_to(self.real_root)

    def realpath(self, path: Path) -> str:
        """`os.path.realpath(path)`, the real path of its folder looked up once per folder.

        realpath resolves a path one name at a time, left to right, so the real path of
        `folder/name` is that of `folder` joined with `name`, unless `name` is a symbolic link
        (or `.`/`..`): then the whole path is resolved as realpath would.
        """
        folder, name = os.path.split(os.fspath(path))
        if not folder or name in ("", ".", ".."):
            return os.path.realpath(path)
        real_folder = self._real_folders.get(folder)
        if real_folder is None:
            real_folder = self._real_folders[folder] = os.path.realpath(folder)
        joined = os.path.join(real_folder, name)
        try:
            link = stat.S_ISLNK(os.lstat(joined).st_mode)
        except OSError:  # realpath, too, takes a name it cannot stat as it is
            link = False
        return os.path.realpath(joined) if link else joined


def resolve_path(relative: str, suite_path: Path, root: Path) -> Path:
    """A suite's path: as given when absolute, else the first that exists under the suite's folder,
    the project folder and the working folder, else under the project folder."""
    return SuitePaths(suite_path, root).resolve(relative)


def _inside(path: Path, root: Path) -> bool:
    """Whether `path` resolves (symlinks followed) inside the project folder `root`."""
    return Path(os.path.realpath(path)).is_relative_to(Path(os.path.realpath(root)))


def read_chunk(relative: str, suite_path: Path, root: Path, *, allow_outside: bool = False,
               paths: SuitePaths | None = None) -> str:
    """The text of a case's chunk file, resolved like every suite path.

    The file must resolve (symlinks followed) inside the project folder `root`: a suite is
    often the least trusted file in a pull request, and a chunk is sent to the model and
    written to cassettes and reports, so `/proc/self/environ` would leak the API key. Only
    `allow_outside` (the `--allow-outside-chunks` flag) lifts that. Raises ValueError with the
    problem; the caller adds file and line. `paths`: the suite's SuitePaths, to resolve its
    folders once for all of its chunks.
    """
    paths = paths or SuitePaths(suite_path, root)
    if "\x00" in relative:
        raise ValueError("the chunk path holds a NUL byte")
    if len(relative) > MAX_PATH_CHARS:
        raise ValueError(f"the chunk path is longer than {MAX_PATH_CHARS} characters")
    chunk_path = paths.resolve(relative)
    try:
        exists = os.path.lexists(chunk_path)
        inside = paths.inside(chunk_path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read chunk {shown_path(relative)}: {exc}") from None
    if not exists:
        raise ValueError(f"chunk file not found: {shown_path(relative)}")
    if not inside and not allow_outside:
        raise ValueError(f"chunk {shown_path(relative)} resolves outside the project folder {root} "
                         "(pass --allow-outside-chunks to read it anyway)")
    try:
        return read_text(chunk_path, limit=MAX_CHUNK_BYTES, what="chunk")
    except InputError as exc:
        raise ValueError(exc.message) from None


def _fail(path: Path, lines: LineMap, loc: tuple, message: str) -> InputError:
    line = line_of(lines, loc)
    where = f"{path}:{line}" if line else str(path)
    field = format_loc(loc)
    text = f"{where}: {field + ': ' if field else ''}{message}"
    return InputError(text.replace("\r", "\\r").replace("\n", "\\n"))  # one line, whatever the keys hold


def _schema_error(path: Path, lines: LineMap, exc: ValidationError) -> InputError:
    """The first schema error, as one line naming the file, the line and the key."""
    error = exc.errors()[0]
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        message = f"unknown key '{shown_key(loc[-1])}'"
    elif error["type"] == "missing":
        message = f"missing required key '{loc[-1]}'"
        loc = loc[:-1]
    else:
        message = error["msg"].removeprefix("Value error, ")
    return _fail(path, lines, loc, message)


def _ontology_file(relative: str, path: Path, root: Path, lines: LineMap, *, allow_outside: bool) -> dict:
    """`ontology: FILE` (JSON or YAML, an `Ontology` mapping): its data, validated, with errors naming
    that file and line; the file resolves like a chunk (inside the project folder unless allowed)."""
    where = ("ontology",)
    if "\x00" in relative or len(relative) > MAX_PATH_CHARS or not relative.strip():
        raise _fail(path, lines, where, f"not a usable file name: {shown_path(relative)}")
    try:
        found = resolve_path(relative, path, root)
        exists, inside = found.is_file(), _inside(found, root)
    except (OSError, ValueError) as exc:
        raise _fail(path, lines, where, f"cannot use ontology path {shown_path(relative)}: {exc}") from None
    if not exists:
        raise _fail(path, lines, where, f"ontology file not found: {shown_path(relative)}")
    if not inside and not allow_outside:
        raise _fail(path, lines, where, f"ontology {shown_path(relative)} resolves outside the project folder {root} "
                                        "(pass --allow-outside-chunks to read it anyway)")
    data, file_lines = load_yaml(found)
    if not isinstance(data, dict):
        raise InputError(f"{found}: an ontology is a mapping with `entity_types` and `relations`")
    try:
        Ontology.model_validate(data)
    except ValidationError as exc:
        raise _schema_error(found, file_lines, exc) from None
    return data


def matching_problem(matching: MatchingConfig) -> tuple[tuple, str] | None:
    """The first problem of a `matching:` block's `predicate_synonyms` (location under `matching`,
    message): a spelling with no letters or digits, or one listed under two canonical predicates."""
    owner: dict[str, str] = {}
    for canonical in matching.predicate_synonyms:
        if not normalize_predicate(canonical):
            return ("predicate_synonyms", canonical), f"predicate '{shown_key(canonical)}' has no letters or digits"
        owner.setdefault(normalize_predicate(canonical), canonical)
    for canonical, synonyms in matching.predicate_synonyms.items():
        for index, synonym in enumerate(synonyms):
            key = normalize_predicate(synonym)
            where = ("predicate_synonyms", canonical, index)
            if not key:
                return where, f"predicate '{shown_key(synonym)}' has no letters or digits"
            first = owner.setdefault(key, canonical)
            if first != canonical:
                return where, f"'{shown_key(synonym)}' already means '{shown_key(first)}'"
    return None


def ontology_problem(ontology: Ontology) -> tuple[tuple, str] | None:
    """The first problem of an ontology (location under `ontology`, message): a blank entity type or
    a relation name with no letters or digits. Repeats and a domain or range outside `entity_types`
    are not problems: published ontologies have both (Text2KGBench lists `Place` twice and gives
    datatype ranges such as `string` and `Date`), and scoring reads them (docs/scoring.md)."""
    for index, name in enumerate(ontology.entity_types):
        if not normalize_type(name):
            return ("entity_types", index), "an entity type is blank"
    for index, relation in enumerate(ontology.relations):
        if not normalize_predicate(relation.name):
            return ("relations", index, "name"), "a relation's name has no letters or digits"
    return None


# the gold lists of a case that many cases may share through one YAML anchor, and their item model
_SHARED_GOLD: dict[str, TypeAdapter[list[GoldEntity]] | TypeAdapter[list[GoldRelationship]]
                   | TypeAdapter[list[GoldClaim]]] = {
    "entities": TypeAdapter(list[GoldEntity]), "relationships": TypeAdapter(list[GoldRelationship]),
    "claims": TypeAdapter(list[GoldClaim])}


def _validate_shared_gold(data: dict) -> dict:
    """`data` with each gold list that several cases share (one anchor, loaded with `shared=True`)
    validated once, so that those cases hold the same models instead of one copy each (a 20,000-case
    suite with one anchored gold: 160,000 models and their validation become 8). SuiteSpec then
    takes the models as they are (pydantic does not revalidate instances). A list that does not
    validate is left as it is, for SuiteSpec to report where it always did."""
    cases = data.get("cases")
    if not isinstance(cases, list):
        return data
    uses = Counter((key, id(case[key])) for case in cases if isinstance(case, dict)
                   for key in _SHARED_GOLD if isinstance(case.get(key), list))
    validated: dict[tuple[str, int], list | None] = {}
    shared_cases = []
    for case in cases:
        if isinstance(case, dict):
            models = {}
            for key, adapter in _SHARED_GOLD.items():
                value = case.get(key)
                if not isinstance(value, list) or uses[key, id(value)] < 2:
                    continue
                if (key, id(value)) not in validated:
                    try:
                        validated[key, id(value)] = adapter.validate_python(value)
                    except ValidationError:
                        validated[key, id(value)] = None
                if validated[key, id(value)] is not None:
                    models[key] = validated[key, id(value)]
            if models:
                case = {**case, **models}
        shared_cases.append(case)
    return {**data, "cases": shared_cases}


def load_suite(path: str | Path, *, allow_outside_chunks: bool = False) -> Suite:
    """Load and validate a suite file; every problem raises InputError naming file and line.

    `allow_outside_chunks` lets chunk files resolve outside the project folder (see read_chunk).
    """
    path = Path(path)
    # shared: the cases of a big suite often refer to one anchored gold; it is read once, not per case
    data, lines = load_yaml(path, shared=True)
    if not isinstance(data, dict):
        raise InputError(f"{path}: a suite is a YAML mapping with at least `name`, `variants` and `cases`")
    root = project_root(path)
    if isinstance(data.get("ontology"), str):
        data = {**data, "ontology": _ontology_file(data["ontology"], path, root, lines,
                                                   allow_outside=allow_outside_chunks)}
    try:
        spec = SuiteSpec.model_validate(_validate_shared_gold(data))
    except ValidationError as exc:
        raise _schema_error(path, lines, exc) from None
    # the suite's key is hidden wherever the harness writes or prints, a command sending nothing too
    # (`evaluate` writes answers that may hold it)
    learn_key_envs([spec.model.api_key_env, *(m.api_key_env for m in spec.models or ())])
    problem = matrix_problem(spec, data.get("models"))
    if problem is not None:
        raise _fail(path, lines, problem[0], problem[1])
    cells = matrix_cells(spec)

    problem = matching_problem(spec.matching)
    if problem is not None:
        raise _fail(path, lines, ("matching", *problem[0]), problem[1])
    if spec.ontology is not None:
        problem = ontology_problem(spec.ontology)
        if problem is not None:
            raise _fail(path, lines, ("ontology", *problem[0]), problem[1])
    if spec.baseline is not None and spec.baseline not in spec.variants and spec.baseline not in cells:
        raise _fail(path, lines, ("baseline",), f"baseline '{spec.baseline}' is not one of the variants "
                                                f"{sorted(spec.variants)}{' or their cells' if cells else ''}")
    for name in spec.thresholds.variants:
        if name not in spec.variants and name not in cells:
            raise _fail(path, lines, ("thresholds", "variants", name), f"no variant named '{name}'")
    for name, variant in spec.variants.items():
        if variant.prompt.startswith("builtin:"):
            continue  # resolved (and reported if unknown) by the prompt loader
        where = ("variants", name, "prompt")
        if "\x00" in variant.prompt or len(variant.prompt) > MAX_PATH_CHARS:
            raise _fail(path, lines, where, f"not a usable file name: {shown_path(variant.prompt)}")
        try:
            prompt_path = resolve_path(variant.prompt, path, root)
            found = prompt_path.exists()
        except OSError as exc:
            raise _fail(path, lines, where, f"cannot use prompt path {shown_path(variant.prompt)}: {exc.strerror}") from None
        if found and not allow_outside_chunks and not _inside(prompt_path, root):
            # like a chunk, a prompt is sent to the model and written to cassettes and reports
            raise _fail(path, lines, where, f"prompt {shown_path(variant.prompt)} resolves outside the project folder "
                                            f"{root} (pass --allow-outside-chunks to read it anyway)")
        if not found:
            # built-in prompts are resolved later by the prompt loader; only plain paths must exist
            if "/" in variant.prompt or variant.prompt.endswith((".txt", ".yaml", ".yml")):
                raise _fail(path, lines, where, f"prompt file not found: {shown_path(variant.prompt)}")

    # the suite's case ids first: which case a side file's gold belongs to depends on them, so a
    # duplicate id is what the user must fix first, and a side file's error never hides it
    seen: dict[str, int] = {}
    for index, case in enumerate(spec.cases):
        if case.id in seen:
            raise _fail(path, lines, ("cases", index, "id"),
                        f"duplicate case id '{case.id}' (first at case {seen[case.id]})")
        seen[case.id] = index
    for name, variant in spec.variants.items():
        problem = _variant_cases_problem(variant.cases, seen)
        if problem is not None:
            raise _fail(path, lines, ("variants", name, "cases", *problem[0]), problem[1])
    own_cases = spec.cases
    if spec.gold_file is not None:
        spec = _with_gold_file(spec, path, root, lines, allow_outside=allow_outside_chunks)
    cases: list[GoldCase] = []
    paths = SuitePaths(path, root)
    for index, (own, case) in enumerate(zip(own_cases, spec.cases)):
        loc = ("cases", index)
        for checked in (own,) if own is case else (own, case):  # the suite's own gold too, where a side file replaces it
            problem = case_problem(spec.kind, checked)
            if problem is not None:
                raise _fail(path, lines, (*loc, *problem[0]), problem[1])
        case_text = get_kind(spec.kind).case_text
        if case_text is not None:
            text = case_text(case)  # `text` fills the prompt's input: a kind without a source writes it
        elif case.chunk is not None:
            try:
                text = read_chunk(case.chunk, path, root, allow_outside=allow_outside_chunks, paths=paths)
            except ValueError as exc:
                raise _fail(path, lines, (*loc, "chunk"), str(exc)) from None
        else:
            text = case.text or ""
        if not text.strip():
            raise _fail(path, lines, loc, "the case's text is empty")
        # the gold written in the suite, validated even when a side file gives the case its gold
        # (the side file's own gold was validated with it, errors naming its lines)
        _check_gold_lists(own, path, lines, loc)
        cases.append(_gold_case(case, text))
    if cells:
        spec = _expanded(spec, cells)
    return Suite(spec, path, root, cases, allow_outside_files=allow_outside_chunks, cells=cells)


def matrix_problem(spec: SuiteSpec, written: object) -> tuple[tuple, str] | None:
    """The first problem of a suite's model matrix (location, message): a model listed twice,
    a variant naming its own `model:` (which of the matrix's would it replace?), a cell name too
    long for a folder. `written`: `models:` as the file gives it (a list's places are reported)."""
    if spec.models is None:
        return None
    if not spec.models:
        return ("models",), "the list is empty (leave `models:` out to run the suite's `model:`)"
    first: dict[str, int] = {}
    for index, model in enumerate(spec.models):
        if model.label in first:
            where = ("models", index) if isinstance(written, list) else ("models", model.label)
            return where, f"model '{model.label}' is listed twice (first at models[{first[model.label]}]); give each a `label:` of its own"
        first[model.label] = index
    for name, variant in spec.variants.items():
        if variant.model is not None:
            return (("variants", name, "model"), "a variant's own `model:` cannot be used with `models:` "
                    "(every variant runs with every model; choose cells with --model)")
        longest = max(len(m.label) for m in spec.models)
        if len(Cell(name, "").name) + longest > MAX_CELL_NAME:
            return ("variants", name), f"the cell names '{name}@<model>' would exceed {MAX_CELL_NAME} characters (they name folders)"
    return None


MAX_CELL_NAME = 255  # a cell's name is a cassette folder's: the longest file name Linux takes


def matrix_cells(spec: SuiteSpec) -> dict[str, Cell]:
    """Every (variant, model) cell of the suite's matrix, by name, variant by variant in suite
    order, then model by model as `models:` lists them; empty without `models:`."""
    cells = (Cell(variant, model.label) for variant in spec.variants for model in spec.models or ())
    return {cell.name: cell for cell in cells}


def _expanded(spec: SuiteSpec, cells: dict[str, Cell]) -> SuiteSpec:
    """The spec whose variants are the matrix's cells, so that planning, running, cassettes,
    scoring and the gate work per cell: the baseline is the baseline variant's cell with the first
    model (or the cell it names), and a variant's `thresholds.variants` entry applies to each of
    its cells (a cell's own entry wins)."""
    first_model = next(iter(spec.models or ())).label
    baseline = spec.baseline or next(iter(spec.variants))
    if baseline not in cells:
        baseline = Cell(baseline, first_model).name
    per_variant = spec.thresholds.variants
    thresholds = {name: per_variant.get(name, per_variant.get(cell.variant)) for name, cell in cells.items()}
    return spec.model_copy(update={
        "variants": {name: spec.variants[cell.variant] for name, cell in cells.items()},
        "baseline": baseline,
        "thresholds": spec.thresholds.model_copy(update={
            "variants": {name: limits for name, limits in thresholds.items() if limits is not None}}),
    })


def _variant_cases_problem(listed: list[str] | None, known: dict[str, int]) -> tuple[tuple, str] | None:
    """The first problem of a variant's `cases:` list (location under it, message): empty, an
    id that is no case of the suite, or an id listed twice."""
    if listed is None:
        return None
    if not listed:
        return (), "the list is empty (leave `cases:` out to run every case)"
    seen: set[str] = set()
    for index, case_id in enumerate(listed):
        if case_id not in known:
            return (index,), f"no case named '{shown_key(case_id)}'"
        if case_id in seen:
            return (index,), f"case '{shown_key(case_id)}' is listed twice"
        seen.add(case_id)
    return None


def _check_gold_lists(case: CaseSpec, path: Path, lines: LineMap, loc: tuple) -> None:
    """No entity name listed twice, every relationship endpoint an entity, every predicate readable."""
    known: set[str] = set()
    for e_index, entity in enumerate(case.entities):
        names = [entity.name, *entity.aliases]
        if any(n in known for n in names):
            raise _fail(path, lines, (*loc, "entities", e_index), f"entity '{entity.name}' is listed twice")
        known.update(names)
    for r_index, rel in enumerate(case.relationships):
        for end in ("source", "target"):
            name = getattr(rel, end)
            if name not in known:
                raise _fail(
                    path, lines, (*loc, "relationships", r_index, end),
                    f"'{name}' is not an entity of case '{case.id}'",
                )
        if rel.type.strip() and not normalize_predicate(rel.type):
            raise _fail(path, lines, (*loc, "relationships", r_index, "type"),
                        f"predicate '{shown_key(rel.type)}' has no letters or digits")


def _gold_case(case: CaseSpec, text: str) -> GoldCase:
    """A suite's case as runs take it: the values of its validated CaseSpec, which have the types
    GoldCase declares, so they are not validated again and its lists are shared, not copied (a
    20,000-case suite holds 120,000 lists fewer)."""
    return GoldCase.model_construct(
        id=case.id, text=text, chunk=case.chunk, source_id=case.source_id, entities=case.entities, relationships=case.relationships,
        annotated=case.annotated, entity_name=case.gold_entity_name(), descriptions=case.descriptions,
        max_length=case.max_length, entity_specs=case.entity_specs, claim_description=case.claim_description,
        question=case.question, example=case.example, facts=case.facts, claims=case.claims, review=case.review, reviewer=case.reviewer,
        reviewed=case.reviewed, inputs=case.inputs, judgements=case.judgements)


def _with_gold_file(spec: SuiteSpec, path: Path, root: Path, lines: LineMap, *, allow_outside: bool) -> SuiteSpec:
    """The spec with the gold of `gold_file:` in place of its cases' own (the side file was
    validated on its own, errors naming its lines; a case id it lists must be a case here)."""
    from .annotate.gold_file import gold_file_problem, read_gold_file

    where = ("gold_file",)
    relative = spec.gold_file or ""
    if "\x00" in relative or len(relative) > MAX_PATH_CHARS or not relative.strip():
        raise _fail(path, lines, where, f"not a usable file name: {shown_path(relative)}")
    found = resolve_path(relative, path, root)
    if not found.is_file():
        raise _fail(path, lines, where, f"gold file not found: {shown_path(relative)}")
    if not allow_outside and not _inside(found, root):
        raise _fail(path, lines, where, f"gold file {shown_path(relative)} resolves outside the project folder {root} "
                                        "(pass --allow-outside-chunks to read it anyway)")
    gold = read_gold_file(found)
    problem = gold_file_problem(gold, spec.name, [case.id for case in spec.cases])
    if problem is not None:
        raise InputError(f"{found}: {problem}")
    by_id = {case.id: case for case in gold.cases}
    cases = [
        case if case.id not in by_id else case.model_copy(update={
            "entities": by_id[case.id].gold_entities(), "relationships": by_id[case.id].gold_relationships(),
            "annotated": by_id[case.id].annotated, "review": by_id[case.id].review,
            "reviewer": by_id[case.id].reviewer, "reviewed": by_id[case.id].reviewed,
            "judgements": by_id[case.id].judgements})
        for case in spec.cases
    ]
    return spec.model_copy(update={"cases": cases})


class GoldFile(Value):
    """A single case on its own (for `harness score`), as in a suite's `cases:` list."""

    id: str = "case"
    chunk: str | None = None
    text: str | None = None
    entities: list[GoldEntity] = Field(default_factory=list)
    relationships: list[GoldRelationship] = Field(default_factory=list)
    annotated: bool | None = None  # true: the lists are complete, empty ones too (docs/scoring.md)
    matching: MatchingConfig = Field(default_factory=MatchingConfig)


def load_gold_case(path: str | Path, *, allow_outside_chunks: bool = False) -> tuple[GoldCase, MatchingConfig]:
    """Load one gold case file; errors name the file and line like suite errors do."""
    path = Path(path)
    data, lines = load_yaml(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: a gold file is a mapping with `text` (or `chunk`), `entities` and `relationships`")
    try:
        gold = GoldFile.model_validate(data)
    except ValidationError as exc:
        raise _schema_error(path, lines, exc) from None
    problem = matching_problem(gold.matching)
    if problem is not None:
        raise _fail(path, lines, ("matching", *problem[0]), problem[1])
    if gold.chunk is not None:
        try:
            text = read_chunk(gold.chunk, path, project_root(path), allow_outside=allow_outside_chunks)
        except ValueError as exc:
            raise _fail(path, lines, ("chunk",), str(exc)) from None
    else:
        text = gold.text or ""
    known = {n for e in gold.entities for n in (e.name, *e.aliases)}
    for index, rel in enumerate(gold.relationships):
        for end in ("source", "target"):
            if getattr(rel, end) not in known:
                raise _fail(path, lines, ("relationships", index, end), f"'{getattr(rel, end)}' is not one of the entities")
        if rel.type.strip() and not normalize_predicate(rel.type):
            raise _fail(path, lines, ("relationships", index, "type"), f"predicate '{shown_key(rel.type)}' has no letters or digits")
    case = GoldCase(id=gold.id, text=text, chunk=gold.chunk, entities=gold.entities, relationships=gold.relationships,
                    annotated=gold.annotated)
    return case, gold.matching
