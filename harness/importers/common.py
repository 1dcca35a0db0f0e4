"""What both importers share: `.env` files, `${VAR}` substitution, cases from input files, and
writing a suite skeleton that `harness.suites.load_suite` accepts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Protocol

import yaml

from ..atomicfile import atomic_write
from ..confined import resolves_inside
from ..errors import InputError
from ..inputfiles import read_bytes, read_text
from ..known_keys import is_key_env, learn_keys_of, scrub_data
from ..names import safe_name
from .language import settle_language

DEFAULT_MAX_CASES = 10
# An input document, or a CSV or JSON file of many: a corpus file, far above one chunk.
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024

# Reference-free limits written into every imported suite, so it is gated on something real before
# any gold exists (docs/prompts.md, "Thresholds written on import"). Starting points, not verdicts:
# - grounded_rate 0.85: share of distinct entities whose name occurs in their chunk; the shipped
#   example suites score 0.89 to 0.99, and below 0.85 more than one name in seven is not in the text;
# - example_leaks 0: a name copied from the prompt's own examples is never a finding;
# - dangling 0: an edge to an undeclared entity becomes a GraphRAG node with no description;
# - type_conformance 0.9 (only for variants whose prompt has a type list): records outside the list
#   are dropped or mislabelled downstream.
IMPORT_THRESHOLDS: dict[str, float] = {"grounded_rate": 0.85, "example_leaks": 0, "dangling": 0}
TYPE_CONFORMANCE_THRESHOLD = 0.9
THRESHOLDS_COMMENT = (
    "# Reference-free thresholds written by `harness import`: starting points that need no gold\n"
    "# (docs/prompts.md, \"Thresholds written on import\"). Tighten or loosen them once you have seen a run.\n"
)
SKIP_DIRS = {".git", ".venv", "venv", "env", "node_modules", "site-packages", "__pycache__", ".tox", "build", "dist"}


_DOUBLE_QUOTE_ESCAPES = re.compile(r"\\([\\'\"abfnrtv])")
_SINGLE_QUOTE_ESCAPES = re.compile(r"\\([\\'])")
_ESCAPED = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
            "v": "\v"}


_DOTENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read_dotenv_lines(path: Path) -> tuple[dict[str, str], dict[str, int]]:
    """KEY=VALUE lines of a `.env` file (`export`, quotes and comments allowed) and the line each
    key was set on (the last one wins, as python-dotenv reads it); missing file -> ({}, {})."""
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    if not path.is_file():
        return values, lines
    text = read_bytes(path, what=".env file").decode("utf-8", "replace")  # bounded: a 3 GB sparse file is refused
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            # escapes as python-dotenv (what LightRAG and GraphRAG read .env with) decodes them
            escapes = _DOUBLE_QUOTE_ESCAPES if value[0] == '"' else _SINGLE_QUOTE_ESCAPES
            value = escapes.sub(lambda m: _ESCAPED[m.group(1)], value[1:-1])
        else:
            value = re.split(r"\s+#", value, maxsplit=1)[0].strip()
        if _DOTENV_KEY.fullmatch(key):
            values[key] = value
            lines[key] = number
    return values, lines


def read_dotenv(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a `.env` file (read_dotenv_lines without the lines)."""
    return read_dotenv_lines(path)[0]


def project_env(dotenv: Path | Mapping[str, str], environ: Mapping[str, str] | None) -> dict[str, str]:
    """A project's variables: its `.env` file (or the values already read from it), then the
    environment (which wins, as in the engines). The keys among them are learnt (known_keys), so
    nothing the import writes or prints holds one."""
    values = read_dotenv(dotenv) if isinstance(dotenv, Path) else dotenv
    env = {**values, **(os.environ if environ is None else environ)}
    learn_keys_of(env)
    return env


def substitute_env(text: str, env: Mapping[str, str]) -> str:
    """`${VAR}` and `$VAR` from env, `$$` for a dollar; unknown variables stay as written. A
    variable that holds a key (known_keys.is_key_env) becomes the reference `$VAR`, never its value:
    a settings file that puts `${OPENAI_API_KEY}` in an entity type or a delimiter gets the name
    (braces dropped: `{` would start a YAML flow mapping where the value stood)."""
    return Template(text).safe_substitute(
        {name: f"${name}" if is_key_env(name) else value for name, value in env.items()})


def relative_path(path: Path, root: Path) -> str:
    """`path` as the suite should write it: relative to the project root when possible."""
    try:
        import os

        rel = os.path.relpath(path.resolve(), root.resolve())
    except ValueError:  # another drive
        return str(path.resolve())
    return Path(rel).as_posix()


class PathPattern(Protocol):
    """What picks input files: a compiled `re` pattern of the harness's own, or a project's
    pattern compiled by `file_pattern.compile_file_pattern` (never `re` on a project's text)."""

    def search(self, text: str) -> object: ...


def find_files(folder: Path, pattern: PathPattern, *, suffixes: tuple[str, ...] = (".txt",)) -> list[Path]:
    """Input files under a folder whose path (relative, with `/`) matches the pattern, sorted."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or any(part in SKIP_DIRS for part in path.relative_to(folder).parts[:-1]):
            continue
        rel = path.relative_to(folder).as_posix()
        if path.suffix.lower() in suffixes and (pattern.search(rel) or pattern.search(path.name)):
            found.append(path)
    return found


@dataclass
class SuiteDraft:
    """A suite skeleton and the extra files (chunks, prompt templates) it needs."""

    name: str
    description: str
    notes: str
    language: str
    entity_types: list[str]
    model: dict[str, Any]
    variants: dict[str, dict[str, Any]]
    baseline: str
    cases: list[dict[str, Any]] = field(default_factory=list)
    files: dict[Path, str] = field(default_factory=dict)  # path -> content, written with the suite
    warnings: list[str] = field(default_factory=list)
    thresholds: dict[str, Any] = field(default_factory=dict)  # written under `thresholds:`, with a comment
    matching: dict[str, Any] = field(default_factory=dict)  # written under `matching:` when not empty
    ontology: dict[str, Any] | None = None  # written under `ontology:` (harness.model.Ontology)
    header: str | None = None  # the comment at the top; None: the "fill in the gold" one
    # the engine version the project runs (`graphrag-2.7.2`): written as the suite's `engine:`, so
    # runs show what that version's own parser keeps from each answer
    engine: str | None = None
    # the project states `language` (LightRAG's addon_params, ...): the input's script does not replace it
    language_stated: bool = False

    def to_yaml(self) -> str:
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "notes": self.notes,
            "language": self.language,
            "entity_types": self.entity_types,
            "model": self.model,
            "variants": self.variants,
            "baseline": self.baseline,
        }
        if self.engine is not None:
            data["engine"] = self.engine
        if self.matching:
            data["matching"] = self.matching
        if self.ontology is not None:
            data["ontology"] = self.ontology
        header = self.header if self.header is not None else (
            "# Written by `harness import`. Fill in the gold entities and relationships of every case\n"
            "# before trusting the gold scores; an empty gold list scores nothing.\n"
        )
        text = header + dump_yaml(data)
        if self.thresholds:
            text += THRESHOLDS_COMMENT + dump_yaml({"thresholds": self.thresholds})
        return text + dump_yaml({"cases": self.cases})


def reference_free_thresholds(typed: Mapping[str, bool]) -> dict[str, Any]:
    """The `thresholds:` of an imported suite (IMPORT_THRESHOLDS), given which variants' prompts
    have a type list (variant -> typed). `type_conformance` is suite-wide when every variant is
    typed, set per variant when only some are (an untyped prompt's conformance is n/a, which never
    passes), and left out when none is."""
    thresholds: dict[str, Any] = dict(IMPORT_THRESHOLDS)
    if typed and all(typed.values()):
        thresholds["type_conformance"] = TYPE_CONFORMANCE_THRESHOLD
    elif any(typed.values()):
        thresholds["variants"] = {name: {"type_conformance": TYPE_CONFORMANCE_THRESHOLD}
                                  for name, has_types in typed.items() if has_types}
    return thresholds


class _Dumper(yaml.SafeDumper):
    pass


# characters YAML reads as line breaks that PyYAML writes raw in plain, quoted and block scalars,
# where they are folded or taken as the end of a line: only a double-quoted scalar escapes them
_YAML_BREAKS = ("\x85", "\u2028", "\u2029")


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if not value.strip() or any(mark in value for mark in _YAML_BREAKS):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def dump_yaml(data: Any) -> str:
    """YAML with multi-line strings as `|` blocks (where YAML allows it), keys in the given order."""
    # scrubbed as data, before dumping: `[REDACTED]` must be a quoted string, not a YAML sequence
    return yaml.dump(scrub_data(data), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


@dataclass(frozen=True)
class InputDocument:
    """One document of a project's input: a whole text file, or one row of a CSV or JSON file."""

    name: str  # what its case id is made from
    text: str
    path: Path | None = None  # the file that is exactly this text (None: a row of a structured file)


DEFAULT_MODEL = "gpt-4o-mini"


@dataclass(frozen=True)
class Destination:
    """Where an imported suite is written and how its cases are cut; the same for every importer."""

    root: Path  # the project folder the suite's paths are relative to
    suite_name: str
    model: str  # whose tokenizer cuts documents into chunks
    chunk_tokens: int
    max_cases: int


class ImportedProject(Protocol):
    """What `destination` reads of a GraphRAG or LightRAG project."""

    root: Path
    model: str | None
    chunk_size: int


def destination(project: ImportedProject, out: Path, *, name: str | None, max_cases: int) -> Destination:
    """The suite's name is `name`, else the `out` file's stem, else the project folder's name."""
    return Destination(
        root=suite_root(out),
        suite_name=safe_name(name or out.stem or project.root.name, fallback="imported"),
        model=project.model or DEFAULT_MODEL,
        chunk_tokens=project.chunk_size,
        max_cases=max_cases,
    )


def project_file_reference(path: Path, where: Destination, files: dict[Path, str], folder: str) -> str:
    """How the suite names the project's file `path`: relative, when it lies inside the harness
    project; else a copy under `<folder>/<suite>/` (added to `files`), since suites read prompts and
    chunks only from inside their project (see suites.load_suite). The importer has checked that
    the file resolves inside the imported project (`confined.check_source`)."""
    if path.resolve().is_relative_to(where.root.resolve()):
        return relative_path(path, where.root)
    copy = where.root / folder / where.suite_name / path.name
    files[copy] = read_text(path, what="prompt")
    return relative_path(copy, where.root)


def outside_project(path: Path, imported: Path, warnings: list[str]) -> bool:
    """Whether the input file `path` resolves outside the `imported` project folder (a link planted
    in it, an absolute or `..` input folder); if so, a warning says it was skipped."""
    if resolves_inside(path, imported):
        return False
    warnings.append(f"{path}: skipped, it resolves outside the imported project {imported} (a link?); the importer "
                    "copies nothing from outside the project it imports")
    return True


def chunk_cases(files: list[Path], where: Destination, draft: SuiteDraft) -> None:
    """One case per input text file, with empty gold (see `document_cases`)."""
    documents: list[InputDocument] = []
    for path in files[: where.max_cases]:
        try:
            text = read_text(path, limit=MAX_DOCUMENT_BYTES, what="input document")
        except InputError as exc:
            draft.warnings.append(f"{exc.message}: skipped")
            continue
        if not text.strip():
            draft.warnings.append(f"{path}: skipped, it is empty")
            continue
        documents.append(InputDocument(path.stem, text, path))
    if len(files) > where.max_cases:
        draft.warnings.append(f"{len(files)} input files found; the suite takes the first {where.max_cases} (--limit N for more)")
    document_cases(documents, where, draft)


def document_cases(documents: list[InputDocument], where: Destination, draft: SuiteDraft) -> None:
    """One case per document, with empty gold. A document longer than one chunk is cut to its first
    chunk (as the pipeline would chunk it); that chunk, or a document that is not a file of its
    own, is written under fixtures/chunks/<suite>/. So is a file outside the project: suites read
    chunks only from inside their project (see suites.read_chunk)."""
    from ..llm.tokens import split_tokens

    root = where.root
    seen: set[str] = set()
    for document in documents[: where.max_cases]:
        base = safe_name(document.name)
        case_id, n = base, 1
        while case_id in seen:
            n += 1
            case_id = f"{base[:90]}-{n}"
        seen.add(case_id)
        pieces = split_tokens(document.text, where.chunk_tokens, where.model)
        outside = document.path is not None and not document.path.resolve().is_relative_to(root.resolve())
        if len(pieces) > 1 or document.path is None or outside:
            target = root / "fixtures" / "chunks" / where.suite_name / f"{case_id}.txt"
            draft.files[target] = pieces[0] if pieces else document.text
            chunk_ref = relative_path(target, root)
        else:
            chunk_ref = relative_path(document.path, root)
        draft.cases.append({"id": case_id, "chunk": chunk_ref, "entities": [], "relationships": []})
    settle_language(draft, (document.text for document in documents[: where.max_cases]))
    if not draft.cases:
        draft.warnings.append("no input text found: the suite has one placeholder case; replace its text with a real chunk")
        draft.cases.append({
            "id": "replace-me",
            "text": "Replace this text with a chunk of your corpus, then list the entities and relationships it holds.",
            "entities": [],
            "relationships": [],
        })


def write_draft(draft: SuiteDraft, out: Path, *, force: bool = False) -> list[Path]:
    """Write the suite and its extra files; refuses to overwrite anything unless `force`."""
    targets = [out, *draft.files]
    existing = [p for p in targets if p.exists()]
    if existing and not force:
        shown = ", ".join(str(p) for p in existing[:3])
        raise InputError(f"{shown}: already exists (use --name NAME to import it as another suite, "
                         "or --force to overwrite)")
    # atomically, never through a link out of the working folder's project (harness/confined.py): the
    # suite's own folder is no project of its own here, a link may be what took it elsewhere
    for path, content in draft.files.items():
        atomic_write(path, content)  # the one writer: a key the project's files hold is not copied
    atomic_write(out, draft.to_yaml())  # a link in the suite's place is replaced, not written through
    return targets


def suite_root(out: Path) -> Path:
    """The project folder the written suite's paths are relative to (the parent of `suites/`). The
    file is about to be written, not read: neither a link in its place (replaced) nor a link on its
    way (refused when it leads out of the project, harness/confined.py) says where the project is."""
    folder = Path(os.path.abspath(out)).parent  # as named: a link on its way is judged when writing
    return folder.parent if folder.name == "suites" else folder
