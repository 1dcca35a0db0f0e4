"""`harness import llamaindex DOCS --prompt FILE`: a suite whose cases are the nodes LlamaIndex's
default `SentenceSplitter` makes of the documents, and whose variant is the user's extraction
prompt filled as LlamaIndex's extractor fills it: `{text}`, the extractor's defaults, and the
arguments the project gives its extractor (allowed entity and relation types and properties, the
triplets per chunk), filled as the extractor fills them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputfiles import read_text, universal_newlines
from ..names import safe_name
from ..prompts.kinds import LLAMAINDEX_ENGINE, PROMPT_KINDS, detect_kind
from ..prompts.template import read_prompt_text
from .common import (DEFAULT_MODEL, MAX_DOCUMENT_BYTES, SuiteDraft, dump_yaml, outside_project, reference_free_thresholds,
                     relative_path, suite_root)
from .language import settle_language
from .llamaindex_chunks import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, SentenceSplitter

DOCUMENT_SUFFIXES = (".txt", ".md")


@dataclass(frozen=True)
class ExtractorArguments:
    """What a project passes its LlamaIndex extractor besides the prompt (None: not given, the
    extractor's default). DynamicLLMPathExtractor(allowed_entity_types=..., allowed_relation_types=...,
    allowed_entity_props=..., allowed_relation_props=..., max_triplets_per_chunk=...);
    SimpleLLMPathExtractor(max_paths_per_chunk=...)."""

    entity_types: Sequence[str] | None = None
    relation_types: Sequence[str] | None = None
    entity_properties: Sequence[str] | None = None
    relation_properties: Sequence[str] | None = None
    max_triplets: int | None = None


# option -> (the variable the extractor fills with it, the field of ExtractorArguments); lists are
# filled `", ".join(values)` (dynamic_llm.py `_apredict_with_props`), an empty list as not given
_LISTS = (
    ("--entity-types", "allowed_entity_types", "entity_types"),
    ("--relation-types", "allowed_relation_types", "relation_types"),
    ("--entity-properties", "allowed_entity_properties", "entity_properties"),
    ("--relation-properties", "allowed_relation_properties", "relation_properties"),
)


def extractor_values(kind_name: str, defaults: Mapping[str, str], variables: Sequence[str], used: set[str],
                     arguments: ExtractorArguments, warnings: list[str]) -> dict[str, str]:
    """The values the extractor fills the prompt with: its defaults, and what the project gives it,
    as the extractor writes them. `variables` are what the kind's extractor fills (an option whose
    variable it does not fill is bad input); `used` the prompt's placeholders (an option the prompt
    never shows is filled, as the extractor fills it, and said)."""
    values = dict(defaults)
    given: list[tuple[str, str, str]] = []
    for option, variable, name in _LISTS:
        items = getattr(arguments, name)
        if items is not None and [item for item in items if item.strip()]:
            given.append((option, variable, ", ".join(item.strip() for item in items if item.strip())))
    if arguments.max_triplets is not None:
        given.append(("--max-triplets", "max_knowledge_triplets", str(arguments.max_triplets)))
    for option, variable, value in given:
        if variable not in variables:
            raise InputError(f"{option}: the {kind_name} extractor fills no {{{variable}}} "
                             f"(it fills {', '.join('{' + v + '}' for v in variables)})")
        if variable not in used:
            warnings.append(f"{option}: the prompt never uses {{{variable}}}; the extractor fills it, the prompt ignores it")
        values[variable] = value
    return values


def document_files(docs: Path) -> list[Path]:
    """The documents: one file, or the .txt/.md files under a folder in sorted path order
    (SimpleDirectoryReader's order for a plain folder)."""
    if docs.is_file():
        return [docs]
    return sorted(p for p in docs.rglob("*") if p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(docs).parts))


def llamaindex_draft(docs: Path, prompt: Path, out: Path, *, name: str | None = None, limit: int = 10,
                     chunk_size: int = DEFAULT_CHUNK_SIZE, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
                     arguments: ExtractorArguments = ExtractorArguments()) -> SuiteDraft:
    """The suite: the first `limit` chunks, in document order, each a case with empty gold; the
    prompt filled with the extractor's defaults and the `arguments` the project gives it."""
    from ..prompts.syntax import placeholders

    root = suite_root(out)
    suite_name = safe_name(name or out.stem or docs.name, fallback="imported")
    text = read_prompt_text(prompt)
    kind = detect_kind(text)
    if kind is None or kind.family != LLAMAINDEX_ENGINE:
        raise InputError(f"{prompt}: not a LlamaIndex extraction prompt (no {{text}} with "
                         f"{{max_knowledge_triplets}} or the allowed types); kinds: "
                         + ", ".join(k for k in PROMPT_KINDS if k.startswith("llamaindex.")))
    if kind.format is None:
        raise InputError(f"{prompt}: {kind.name} is answered by structured output, which the harness does not run")
    try:
        splitter = SentenceSplitter(chunk_size, chunk_overlap)
    except ValueError as exc:
        raise InputError(f"--chunk-size {chunk_size} --chunk-overlap {chunk_overlap}: {exc}") from None
    warnings: list[str] = []
    values = extractor_values(kind.name, kind.engine_values, kind.filled.get(LLAMAINDEX_ENGINE, ()),
                              set(placeholders(text)), arguments, warnings)
    template: dict[str, Any] = {
        "kind": kind.name, "format": kind.format,
        "variables": values, "variable_mappings": {"input_text": "text"}, "user": text,
    }
    if arguments.entity_types:
        # the types the prompt carries in {allowed_entity_types}: what type conformance reads
        # (DynamicLLMPathExtractor's prompt calls them a starting point: no threshold is set on it)
        template["entity_types"] = [t.strip() for t in arguments.entity_types if t.strip()]
    target = root / "prompts" / suite_name / "extract_graph.yaml"
    draft = SuiteDraft(
        name=suite_name,
        description=f"LlamaIndex {kind.name} prompt {prompt.name} over {docs.name}",
        notes=(f"Imported from {relative_path(docs, root)} with SentenceSplitter(chunk_size={chunk_size}, "
               f"chunk_overlap={chunk_overlap}). Gold is empty: list the triples of every case before trusting scores."),
        language="English", entity_types=[], model={"name": DEFAULT_MODEL, "temperature": 0, "max_gleanings": 0},
        variants={"project": {"prompt": relative_path(target, root), "format": kind.format}}, baseline="project",
        # scored on the triples LlamaIndex's own parser keeps (docs/scoring.md, "What the engine keeps")
        engine="llamaindex",
    )
    draft.warnings.extend(warnings)
    draft.files[target] = (f"# Imported by `harness import llamaindex` from {prompt}: filled as LlamaIndex's extractor\n"
                           "# fills it ({text} is the chunk; `variables` are the extractor's defaults and the\n"
                           "# arguments given to the import: --entity-types, --relation-types, ...).\n" + dump_yaml(template))
    draft.thresholds = reference_free_thresholds({"project": False})
    chunks: list[str] = []
    files = document_files(docs)
    for path in files:
        if docs.is_dir() and outside_project(path, docs, draft.warnings):  # a link out of the documents' folder
            continue
        try:  # bounded, regular files only; as text mode reads it (newlines translated, a BOM kept)
            document = universal_newlines(read_text(path, limit=MAX_DOCUMENT_BYTES, what="document", encoding="utf-8"))
        except InputError as exc:
            draft.warnings.append(f"{exc.message}: skipped")
            continue
        for index, chunk in enumerate(splitter.split_text(document), 1):
            if len(draft.cases) >= limit:
                draft.warnings.append(f"more than {limit} chunks; the suite takes the first {limit} (--limit N for more)")
                settle_language(draft, chunks)
                return draft
            case_id = safe_name(f"{path.stem}-{index}")
            chunk_file = root / "fixtures" / "chunks" / suite_name / f"{case_id}.txt"
            draft.files[chunk_file] = chunk
            chunks.append(chunk)
            draft.cases.append({"id": case_id, "chunk": relative_path(chunk_file, root), "entities": [], "relationships": []})
    if not draft.cases:
        raise InputError(f"{docs}: no .txt or .md document with text")
    settle_language(draft, chunks)
    return draft
