"""`harness import llamaindex DOCS --prompt FILE`: a suite whose cases are the nodes LlamaIndex's
default `SentenceSplitter` makes of the documents, and whose variant is the user's extraction
prompt filled as LlamaIndex's extractor fills it (`{text}` and the extractor's defaults)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import InputError
from ...inputfiles import read_text, universal_newlines
from ...names import safe_name
from ..kinds import LLAMAINDEX_ENGINE, KINDS, detect_kind
from ..template import read_prompt_text
from .common import (DEFAULT_MODEL, MAX_DOCUMENT_BYTES, SuiteDraft, dump_yaml, outside_project, reference_free_thresholds,
                     relative_path, suite_root)
from .language import settle_language
from .llamaindex_chunks import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, SentenceSplitter

DOCUMENT_SUFFIXES = (".txt", ".md")


def document_files(docs: Path) -> list[Path]:
    """The documents: one file, or the .txt/.md files under a folder in sorted path order
    (SimpleDirectoryReader's order for a plain folder)."""
    if docs.is_file():
        return [docs]
    return sorted(p for p in docs.rglob("*") if p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(docs).parts))


def llamaindex_draft(docs: Path, prompt: Path, out: Path, *, name: str | None = None, limit: int = 10,
                     chunk_size: int = DEFAULT_CHUNK_SIZE, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP) -> SuiteDraft:
    """The suite: the first `limit` chunks, in document order, each a case with empty gold."""
    root = suite_root(out)
    suite_name = safe_name(name or out.stem or docs.name, fallback="imported")
    text = read_prompt_text(prompt)
    kind = detect_kind(text)
    if kind is None or kind.family != LLAMAINDEX_ENGINE:
        raise InputError(f"{prompt}: not a LlamaIndex extraction prompt (no {{text}} with "
                         f"{{max_knowledge_triplets}} or the allowed types); kinds: "
                         + ", ".join(k for k in KINDS if k.startswith("llamaindex.")))
    if kind.format is None:
        raise InputError(f"{prompt}: {kind.name} is answered by structured output, which the harness does not run")
    try:
        splitter = SentenceSplitter(chunk_size, chunk_overlap)
    except ValueError as exc:
        raise InputError(f"--chunk-size {chunk_size} --chunk-overlap {chunk_overlap}: {exc}") from None
    template: dict[str, Any] = {
        "kind": kind.name, "format": kind.format,
        "variables": dict(kind.engine_values), "variable_mappings": {"input_text": "text"}, "user": text,
    }
    target = root / "prompts" / suite_name / "extract_graph.yaml"
    draft = SuiteDraft(
        name=suite_name,
        description=f"LlamaIndex {kind.name} prompt {prompt.name} over {docs.name}",
        notes=(f"Imported from {relative_path(docs, root)} with SentenceSplitter(chunk_size={chunk_size}, "
               f"chunk_overlap={chunk_overlap}). Gold is empty: list the triples of every case before trusting scores."),
        language="English", entity_types=[], model={"name": DEFAULT_MODEL, "temperature": 0, "max_gleanings": 0},
        variants={"project": {"prompt": relative_path(target, root), "format": kind.format}}, baseline="project",
    )
    draft.files[target] = (f"# Imported by `harness import llamaindex` from {prompt}: filled as LlamaIndex's extractor\n"
                           "# fills it ({text} is the chunk; `variables` are the extractor's defaults).\n" + dump_yaml(template))
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
