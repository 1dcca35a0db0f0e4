"""Import a GraphRAG project: its settings (v0.x to v3), prompt files and input folder.

What differs between GraphRAG versions, and what is read:

| | v0.x | v1.x | v2.x | v3.x |
| --- | --- | --- | --- | --- |
| models | `llm` | `llm` | `models.<id>` | `completion_models.<id>` (graphrag_settings.py) |
| extraction | `entity_extraction` | `entity_extraction` | `extract_graph` | `extract_graph` |
| claims | `claim_extraction` | `claim_extraction` | `extract_claims` | `extract_claims` |
| report prompt | `community_reports.prompt` | same | `graph_prompt` / `text_prompt` | same |
| input folder | `input.base_dir` | same | `input.base_dir` or `input.storage.base_dir` | `input_storage.base_dir` |
| chunk size | `chunks.size` | same | same | `chunking.size` |
| input files | `input.type`, `text_column`, `title_column` | `input.file_type`, same columns | same | `input.type`, same columns |

Prompt files default to `prompts/<name>.txt` with the names of each version (entity_extraction,
extract_graph, summarize_descriptions, claim_extraction, extract_claims, community_report,
community_report_graph). `${VAR}` is substituted from the environment and the `.env` file beside
the settings (the environment wins, as in GraphRAG). CSV and JSON inputs are read as GraphRAG's
loaders read them (graphrag_input.py).
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..confined import check_source
from ..errors import InputError
from ..inputfiles import read_bytes, read_text
from ..known_keys import learn_key_envs
from ..yamlfile import Location, line_of, parse_yaml
from ..names import safe_name
from ..prompts.builtin import PREFIX
from ..prompts.entity_types import DEFAULT_ENTITY_TYPES, effective_entity_types
from ..prompts.graphrag_layout import settings_line, unread_sections
from .common import (
    DEFAULT_MAX_CASES,
    MAX_DOCUMENT_BYTES,
    Destination,
    SuiteDraft,
    destination,
    document_cases,
    outside_project,
    project_file_reference,
    project_env,
    reference_free_thresholds,
    relative_path,
    settle_language,
    substitute_env,
)
from .graphrag_chunks import (
    ChunkSettings,
    MAJORS,
    NEWEST,
    EngineDocument,
    TextUnit,
    chunk_documents,
    chunk_settings,
    find_output_table,
    parse_version,
    read_output_text_units,
    read_text_documents,
    version_of_output,
)
from .graphrag_input import InputSettings, input_settings, read_documents
from .graphrag_settings import EngineModel, engine_model, key_variables

SETTINGS_FILES = ("settings.yaml", "settings.yml", "settings.json")
DEFAULT_CHUNK_SIZE = 1200
DEFAULT_PATTERN = r".*\.txt$"
# GraphRAG's own stock extraction prompt, word for word, per version (scripts/write_stock_builtins.py):
# the `default` variant of an import is the prompt a user of that version runs, never a rewrite
STOCK_DEFAULT = {0: f"{PREFIX}graphrag.stock_extract_graph_2x", 1: f"{PREFIX}graphrag.stock_extract_graph_2x",
                 2: f"{PREFIX}graphrag.stock_extract_graph_2x", 3: f"{PREFIX}graphrag.stock_extract_graph_3x"}


def stock_default(version: tuple[int, ...]) -> str:
    """The built-in that is GraphRAG `version`'s stock extraction prompt."""
    return STOCK_DEFAULT[min(max(version[0], 0), 3)]

# kind -> (settings sections, prompt keys, default file names), newest names first
PROMPT_SETTINGS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "extract_graph": (("extract_graph", "entity_extraction"), ("prompt",), ("extract_graph.txt", "entity_extraction.txt")),
    "summarize_descriptions": (("summarize_descriptions",), ("prompt",), ("summarize_descriptions.txt",)),
    "extract_claims": (("extract_claims", "claim_extraction"), ("prompt",), ("extract_claims.txt", "claim_extraction.txt")),
    "community_report": (("community_reports",), ("graph_prompt", "prompt"), ("community_report_graph.txt", "community_report.txt")),
    "community_report_text": (("community_reports",), ("text_prompt",), ("community_report_text.txt",)),
}

# the registered prompt kind (harness.prompts.kinds) of each prompt the importer reads: lint checks
# each against the variables the project's GraphRAG version fills
KIND_NAMES = {"extract_graph": "graphrag.extract_graph", "summarize_descriptions": "graphrag.summarize_descriptions",
              "extract_claims": "graphrag.extract_claims", "community_report": "graphrag.community_report",
              "community_report_text": "graphrag.community_report_text"}


@dataclass
class GraphRAGProject:
    """What the importer read from a GraphRAG project."""

    root: Path
    settings_path: Path
    version: str  # v0, v1, v2 or v3
    settings: dict[str, Any]
    prompts: dict[str, Path] = field(default_factory=dict)  # kind -> file
    entity_types: list[str] = field(default_factory=lambda: list(DEFAULT_ENTITY_TYPES))
    max_gleanings: int | None = None
    model: str | None = None
    delimiters: dict[str, str] = field(default_factory=dict)
    input_dir: Path | None = None
    file_pattern: str = DEFAULT_PATTERN
    input: InputSettings = field(default_factory=InputSettings)
    chunk_size: int = DEFAULT_CHUNK_SIZE
    chunking: ChunkSettings = field(default_factory=lambda: ChunkSettings(version=(0, 9, 0)))
    version_assumed: bool = True  # chunking.version is the layout's last version, not --graphrag-version
    claim_description: str | None = None
    version_note: str | None = None  # how the version was told when no --graphrag-version named it
    query_prompts: dict[str, Path] = field(default_factory=dict)  # query kind (kinds.PROMPT_KINDS) -> file
    settings_text: str = ""  # as written, before `${VAR}` substitution (graphrag_settings tells them apart)
    settings_lines: Any = None  # the settings' line map (yamlfile.LineMap)


def find_settings(root: Path) -> Path:
    if root.is_file():
        return root
    for name in SETTINGS_FILES:
        if (root / name).is_file():
            return root / name
    raise InputError(f"{root}: no GraphRAG settings found (looked for {', '.join(SETTINGS_FILES)})")


def detect_version(settings: Mapping[str, Any]) -> str:
    """The settings' layout label (`v0` ... `v3`, the keys of graphrag_chunks' tables): the major
    line `graphrag_layout.settings_line` reads, the one reader of GraphRAG's layout."""
    return f"v{settings_line(settings)}"


def _section(settings: Mapping[str, Any], *names: str) -> dict[str, Any]:
    for name in names:
        value = settings.get(name)
        if isinstance(value, dict):
            return value
    return {}


def _model(settings: Mapping[str, Any], extract: Mapping[str, Any]) -> str | None:
    if "completion_models" in settings:
        models = _section(settings, "completion_models")
        model_id = extract.get("completion_model_id") or "default_completion_model"
    elif "models" in settings:
        models = _section(settings, "models")
        model_id = extract.get("model_id") or "default_chat_model"
    else:
        llm = _section(settings, "llm")
        model = llm.get("model") or llm.get("deployment_name")
        return str(model) if model else None
    chosen = models.get(model_id) if isinstance(models.get(model_id), dict) else None
    if chosen is None:  # take the first chat model listed
        chosen = next((m for m in models.values() if isinstance(m, dict) and "embedding" not in str(m.get("type", ""))), None)
    if not chosen:
        return None
    model = chosen.get("model") or chosen.get("deployment_name")
    return str(model) if model and "$" not in str(model) else None


def _input_dir(settings: Mapping[str, Any], base: Path) -> Path:
    candidates = [
        _section(settings, "input_storage").get("base_dir"),
        _section(_section(settings, "input"), "storage").get("base_dir"),
        _section(settings, "input").get("base_dir"),
    ]
    folder = next((str(c) for c in candidates if c), "input")
    return (base / folder) if not Path(folder).is_absolute() else Path(folder)


def read_graphrag_project(root: Path, environ: Mapping[str, str] | None = None, *,
                          graphrag_version: str | None = None) -> GraphRAGProject:
    """Read settings, `.env`, prompt files, input and chunking settings; InputError names the
    settings line. `graphrag_version` (e.g. 0.5.0) tells apart versions whose settings look alike;
    without it the last version of the settings' line is assumed."""
    settings_path = find_settings(root)
    base = settings_path.parent
    raw = read_text(settings_path, what="GraphRAG settings file")  # bounded, regular files only, strict UTF-8
    learn_key_envs(key_variables(raw, str(settings_path)))  # before the .env's keys are told apart
    env = project_env(base / ".env", environ)
    data, lines = parse_yaml(substitute_env(raw, env), str(settings_path))
    if not isinstance(data, dict):
        raise InputError(f"{settings_path}: GraphRAG settings are a mapping of sections")
    if isinstance(data.get("root_dir"), str) and data["root_dir"].strip():
        root_dir = Path(data["root_dir"])
        base = root_dir if root_dir.is_absolute() else base / root_dir
    project = GraphRAGProject(root=base, settings_path=settings_path, version=detect_version(data), settings=data)

    for kind, (sections, keys, defaults) in PROMPT_SETTINGS.items():
        found: Path | None = None
        for section_name in sections:
            section = _section(data, section_name)
            for key in keys:
                value = section.get(key)
                if isinstance(value, str) and value.strip():
                    path = Path(value) if Path(value).is_absolute() else base / value
                    if not path.is_file():
                        loc: Location = (section_name, key)
                        line = line_of(lines, loc)
                        where = f"{settings_path}:{line}" if line else str(settings_path)
                        raise InputError(f"{where}: {section_name}.{key}: prompt file not found: {value}")
                    found = path
                    break
            if found:
                break
        if found is None:
            found = next((base / "prompts" / name for name in defaults if (base / "prompts" / name).is_file()), None)
        if found is not None:
            check_source(found, settings_path.parent, f"{kind} prompt")  # copied into the suite's files
            project.prompts[kind] = found

    project.query_prompts = _query_prompts(data, base)
    for path in project.query_prompts.values():
        check_source(path, settings_path.parent, "query prompt")
    extract = _section(data, "extract_graph", "entity_extraction")
    types = extract.get("entity_types")
    if isinstance(types, str):
        types = [t.strip() for t in types.split(",")]
    if isinstance(types, list) and types:
        project.entity_types = [str(t).strip() for t in types if str(t).strip()]
    if isinstance(extract.get("max_gleanings"), int):
        project.max_gleanings = extract["max_gleanings"]
    given_strategy = extract.get("strategy")
    strategy = given_strategy if isinstance(given_strategy, dict) else {}
    for key in ("tuple_delimiter", "record_delimiter", "completion_delimiter"):
        value = extract.get(key, strategy.get(key))
        if isinstance(value, str) and value:
            project.delimiters[key] = value
    project.model = _model(data, extract)
    project.settings_text, project.settings_lines = raw, lines
    claims = _section(data, "extract_claims", "claim_extraction")
    if isinstance(claims.get("description"), str):
        project.claim_description = claims["description"]
    project.input_dir = _input_dir(data, base)
    project.input = input_settings(_section(data, "input"))
    project.file_pattern = project.input.pattern
    version = parse_version(graphrag_version) if graphrag_version else NEWEST[project.version]
    if not graphrag_version:
        table = find_output_table(data, base)
        told = version_of_output(table) if table is not None else None
        if told is not None and told[0][0] in MAJORS[project.version]:
            version = told[0]
            project.version_note = (f"GraphRAG {'.'.join(map(str, version))} assumed: {told[1]} "
                                    "(--graphrag-version X.Y.Z names the version that made it)")
    if version[0] not in MAJORS[project.version]:
        raise InputError(f"--graphrag-version {graphrag_version}: {settings_path} is in the settings layout of GraphRAG "
                         f"{' and '.join(f'{m}.x' for m in MAJORS[project.version])}")
    project.chunking = chunk_settings(data, version)
    project.version_assumed = not graphrag_version
    project.chunk_size = project.chunking.size
    return project


def _query_prompts(settings: Mapping[str, Any], base: Path) -> dict[str, Path]:
    """The query prompts of the project (local, global map/reduce/knowledge, DRIFT, basic search,
    question generation): each kind's settings key for the project's version, else its file name
    under prompts/. Only files that exist: the query settings are not checked at import."""
    from ..prompts.kinds import PROMPT_KINDS, engine_of_settings

    engine = engine_of_settings(settings)
    found: dict[str, Path] = {}
    for kind in PROMPT_KINDS.values():
        if kind.family != "graphrag" or kind.name.removeprefix("graphrag.") in KIND_NAMES or kind.name.endswith(("_untyped", "_json")):
            continue
        candidates: list[Path] = []
        for setting in kind.settings_keys.get(engine, ()):
            section, key = setting.split(".")
            value = _section(settings, section).get(key)
            if isinstance(value, str) and value.strip():
                candidates.append(Path(value) if Path(value).is_absolute() else base / value)
        candidates += [base / "prompts" / name for name in kind.files.get(engine, ())]
        path = next((c for c in candidates if c.is_file()), None)
        if path is not None:
            found[kind.name] = path
    return found


def graphrag_draft(
    project: GraphRAGProject, out: Path, *, name: str | None = None, limit: int = DEFAULT_MAX_CASES,
    documents: Sequence[str] | None = None,
) -> SuiteDraft:
    """The suite skeleton: the project's extraction prompt against its GraphRAG version's stock
    prompt (`default`, word for word: MIT, attributed in the built-in), one case
    per text unit of the project (project_text_units), the first `limit` of the `documents` named."""
    where = destination(project, out, name=name, max_cases=limit)
    # read here, not with the project: lint reads projects whose endpoint a suite could not call
    engine = engine_model(project.settings_path, project.settings_text, project.settings, project.settings_lines)
    root = where.root
    variants: dict[str, dict[str, Any]] = {}
    files: dict[Path, str] = {}
    extract = project.prompts.get("extract_graph")
    if extract is not None:
        variant: dict[str, Any] = {"prompt": project_file_reference(extract, where, files, "prompts"), "format": "graphrag"}
        variant.update(project.delimiters)
        variants["project"] = variant
    version = ".".join(map(str, project.chunking.version))
    variants["default"] = {"prompt": stock_default(project.chunking.version), "format": "graphrag"}
    others = [f"{kind}: {relative_path(path, root)}" for kind, path in project.prompts.items() if kind != "extract_graph"]
    notes = (
        f"Imported from the GraphRAG project at {relative_path(project.root, root)} "
        f"(settings {project.settings_path.name}, {project.version} conventions). "
        "Gold is empty: list the entities and relationships of every case before trusting scores."
    )
    if others:
        notes += " Other prompts of the project (not variants, they do not extract from chunks): " + "; ".join(others) + "."
    draft = SuiteDraft(
        name=where.suite_name,
        description=(f"GraphRAG project {project.root.resolve().name}: its extraction prompt against GraphRAG {version}'s "
                     "stock prompt"),
        notes=notes,
        language="English",
        entity_types=project.entity_types,
        model=suite_model(project, engine, where.model),
        variants=variants,
        baseline="default",
        files=files,
        engine=f"graphrag-{version}",
    )
    draft.warnings.extend(engine.warnings)
    if project.version_note:
        draft.warnings.append(project.version_note)
    for old, new in unread_sections(project.settings):
        line = line_of(project.settings_lines, (old,)) if project.settings_lines is not None else None
        place = f"{project.settings_path}:{line}" if line else str(project.settings_path)
        draft.warnings.append(f"{place}: {old}: the {project.version} layout's GraphRAG reads `{new}`, not `{old}` "
                              f"(its 0.x/1.x name); the import read it, GraphRAG {version} would not")
    if extract is None:
        draft.warnings.append(f"no extraction prompt found in the settings or prompts/; the suite has only GraphRAG "
                              f"{version}'s stock prompt")
    # the stock prompt is filled with the settings' types; the project's prompt may carry its own
    typed = {name: True for name in variants}
    if extract is not None:
        typed["project"] = bool(extraction_types(extract, project.entity_types))
    draft.thresholds = reference_free_thresholds(typed)
    units, source = project_text_units(project, draft.warnings)
    ids = case_ids(units)
    chosen = select_units(units, documents=documents, limit=limit, source=source, warnings=draft.warnings)
    text_unit_cases([(ids[i], units[i]) for i in chosen], where, draft)
    return draft


def suite_model(project: GraphRAGProject, engine: EngineModel, model: str) -> dict[str, Any]:
    """The suite's `model:` block: the extraction model's settings the project states
    (graphrag_settings), and where it states none the version's own: temperature 0 (0.x-2.x send
    their default, 0), none at all for 3.x (it sends no temperature unless `call_args` has one:
    `temperature: null`), one gleaning. A model name that comes from `${VAR}` is left out (the
    suite's default then applies, and a warning says so)."""
    block = dict(engine.block)
    written: dict[str, Any] = {} if "name" in engine.left_out else {"name": block.pop("name", model)}
    block.pop("name", None)
    temperature = block.pop("temperature", None if project.version == "v3" else 0)
    written.update(block)
    written["temperature"] = temperature
    written["max_gleanings"] = project.max_gleanings if project.max_gleanings is not None else 1
    return written


def project_text_units(project: GraphRAGProject, warnings: list[str]) -> tuple[list[TextUnit], str]:
    """The project's text units and where they came from: its output table when it has one (ids
    as the engine wrote them), else its input cut as its GraphRAG version cuts it."""
    table = find_output_table(project.settings, project.root)
    if table is not None and outside_project(table, project.settings_path.parent, warnings):
        table = None
    if table is not None:
        try:
            units = read_output_text_units(table)
        except InputError as exc:
            warnings.append(f"{exc.message}; the input is cut instead")
        else:
            titles = {d.id: d.title for d in _input_documents(project, [])}
            units = [TextUnit(u.id, u.text, u.document_ids, u.n_tokens,
                              tuple(titles.get(i, i[:12]) for i in u.document_ids)) for u in units]
            return units, f"{relative_path(table, project.root)} ({len(units)} text units)"
    documents = _input_documents(project, warnings)
    structured = project.input.file_type != "text"  # their ids are not GraphRAG's: keep the file order
    units = chunk_documents(documents, project.chunking, keep_order=structured)
    if units and project.version_assumed:
        shown = ".".join(map(str, project.chunking.version))
        warnings.append(f"no text units table in the project's output: the input is cut as GraphRAG {shown} cuts it, "
                        f"the last version of its settings layout (--graphrag-version X.Y.Z if another made it)")
    if units and structured:
        warnings.append(f"{project.input.file_type} input: its rows are read the harness's way and cut with GraphRAG's "
                        "chunker, so their ids and order are not GraphRAG's; import after `graphrag index` to take "
                        "the project's own text units")
    return units, project.chunking.describe()


def _input_documents(project: GraphRAGProject, warnings: list[str]) -> list[EngineDocument]:
    """The input documents as the project's GraphRAG version loads them. CSV and JSON rows are
    read by graphrag_input (their document ids are not GraphRAG's: a hash of the text)."""
    if project.input_dir is None:
        return []
    imported = project.settings_path.parent  # input files resolving outside it are skipped, never copied
    if project.input.file_type == "text":
        return read_text_documents(project.input_dir, project.file_pattern, project.chunking, warnings, within=imported)
    rows = read_documents(project.input_dir, project.input, warnings, within=imported)
    return [EngineDocument(hashlib.sha512(d.text.encode("utf-8")).hexdigest(), d.text, d.name, path=d.path) for d in rows]


def select_units(units: list[TextUnit], *, documents: Sequence[str] | None, limit: int, source: str,
                 warnings: list[str]) -> list[int]:
    """The positions of the text units that become cases: those of the `--documents` named (a
    title, its stem, a glob, or a document id prefix), the first `limit` in the engine's order;
    what was left out is always said."""
    chosen = list(range(len(units)))
    if documents:
        def named(unit: TextUnit) -> bool:
            names = [*unit.titles, *(Path(t).stem for t in unit.titles)]
            return any(fnmatch.fnmatchcase(n, pattern) for n in names for pattern in documents) or any(
                i.startswith(pattern) for i in unit.document_ids for pattern in documents if len(pattern) >= 8)
        chosen = [i for i in chosen if named(units[i])]
        if not chosen:
            known = ", ".join(sorted({t for u in units for t in u.titles})[:10]) or "none"
            raise InputError(f"--documents {', '.join(documents)}: no such document (the project's: {known})")
    if len(chosen) > limit:
        count = len({d for i in chosen for d in units[i].document_ids})
        warnings.append(f"{len(chosen)} text units of {count} document(s) ({source}); the suite takes the "
                        f"first {limit} in GraphRAG's order (--limit N for more, --documents NAME to choose)")
    return chosen[:limit]


def case_ids(units: Sequence[TextUnit]) -> list[str]:
    """Each unit's case id: its document's name, numbered (`harbour-2`) when the document has more
    than one unit. Made over all the project's units before any is left out, so that importing
    more or fewer of them keeps the ids (and the cassettes named by them)."""
    bases = [safe_name(Path(unit.titles[0]).stem if unit.titles else unit.id[:12])[:90] for unit in units]
    counts = {base: bases.count(base) for base in bases}
    seen: set[str] = set()
    numbers: dict[str, int] = {}
    ids: list[str] = []
    for base in bases:
        numbers[base] = numbers.get(base, 0) + 1
        case_id = base if counts[base] == 1 else f"{base}-{numbers[base]}"
        while case_id in seen:
            numbers[base] += 1
            case_id = f"{base}-{numbers[base]}"
        seen.add(case_id)
        ids.append(case_id)
    return ids


def text_unit_cases(units: Sequence[tuple[str, TextUnit]], where: Destination, draft: SuiteDraft) -> None:
    """One case per (case id, text unit), the unit's id kept as the case's `source_id`. A unit that
    is a whole input file inside the harness project, byte for byte, is read in place; any other is
    written under fixtures/chunks/<suite>/."""
    if not units:
        document_cases([], where, draft)  # the placeholder case and its warning
        return
    for case_id, unit in units:
        if unit.path is not None and _same_text(unit.path, unit.text) and \
                unit.path.resolve().is_relative_to(where.root.resolve()):
            chunk = relative_path(unit.path, where.root)
        else:
            target = where.root / "fixtures" / "chunks" / where.suite_name / f"{case_id}.txt"
            draft.files[target] = unit.text
            chunk = relative_path(target, where.root)
        draft.cases.append({"id": case_id, "chunk": chunk, "source_id": unit.id, "entities": [], "relationships": []})
    settle_language(draft, (unit.text for _, unit in units))


def _same_text(path: Path, text: str) -> bool:
    """Whether a suite reading `path` (strict UTF-8, BOM dropped, no newline translation) gets `text`."""
    try:
        return read_bytes(path, limit=MAX_DOCUMENT_BYTES, what="input document").decode("utf-8-sig") == text
    except (InputError, UnicodeDecodeError):
        return False


def extraction_types(path: Path, settings_types: list[str]) -> list[str]:
    """The entity types an extraction prompt is filled with in GraphRAG: its own, when it carries
    them (`graphrag prompt-tune` writes them into the text), else the settings' (see
    prompts/entity_types.py). A prompt that cannot be read counts as filled from the settings: the
    written suite then fails to load and says why."""
    from ..prompts.loading import load_prompt

    try:
        template = load_prompt(path, strict=False)
    except InputError:
        return list(settings_types)
    return effective_entity_types(template, variant=None, suite=settings_types).values


def lint_project_prompts(project: GraphRAGProject) -> dict[str, list[Any]]:
    """Lint every prompt of the project as its kind, with the variables the project's GraphRAG
    version fills (the kind's variant, e.g. prompt-tune's untyped extraction, is read from the text)."""
    from ..prompts.kinds import engine_of_settings, get_kind
    from ..prompts.lint import lint_prompt

    engine = engine_of_settings(project.settings)
    results: dict[str, list[Any]] = {}
    for kind_name, path in project.query_prompts.items():
        results[kind_name.removeprefix("graphrag.")] = lint_prompt(path, engine=engine, kind=kind_name)
    for name, path in project.prompts.items():
        kind = get_kind(KIND_NAMES[name])
        results[name] = lint_prompt(
            path,
            engine=engine,
            kind=None if name == "extract_graph" else kind.name,  # extract_graph: typed, untyped or JSON
            entity_types=extraction_types(path, project.entity_types) if name == "extract_graph" else None,
            tuple_delimiter=project.delimiters.get("tuple_delimiter"),
            record_delimiter=project.delimiters.get("record_delimiter"),
            completion_delimiter=project.delimiters.get("completion_delimiter"),
        )
    return results
