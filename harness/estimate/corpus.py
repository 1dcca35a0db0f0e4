"""How many chunks the engine would cut from a corpus: a folder of documents (or a GraphRAG project,
whose own text units and chunk settings are then used), or a count of documents and tokens.

The chunkers are the importers' (`importers.graphrag_chunks`, `importers.lightrag_workdir`), so the
chunks counted are the ones `harness import` makes cases of. The suite's `engine:` says whose
chunker cuts a plain folder (no engine: GraphRAG's newest release, said in the corpus's line).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from ..engine_names import EngineRelease, parse_engine_name
from ..errors import InputError
from ..importers.common import MAX_DOCUMENT_BYTES
from ..importers.graphrag_chunks import NEWEST, ChunkSettings, chunk_settings, chunk_documents, read_text_documents
from ..importers.lightrag_workdir import LIGHTRAG_TOKENIZER_MODEL, chunk_like_lightrag
from ..inputfiles import read_text, shown_path, universal_newlines

# LightRAG's chunk_token_size and chunk_overlap_token_size defaults (LightRAG(...) and its server)
LIGHTRAG_SIZE, LIGHTRAG_OVERLAP = 1200, 100
TEXT_PATTERN = r".*\.(txt|md)$"


@dataclass(frozen=True)
class Corpus:
    """The chunks indexing would extract from. `tokens`: the tokens of all its chunks, in the
    chunker's encoding (overlaps counted in each chunk that holds them); `project` is the GraphRAG
    project folder the corpus is, when it is one (its cache is then the default cache)."""

    chunks: int
    documents: int
    tokens: int
    encoding: str  # the encoding `tokens` is counted in (the chunker's)
    source: str  # how the chunks were counted, one line
    project: Path | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Chunker:
    """Who cuts: the engine, its window and its stop rule."""

    engine: str  # "graphrag" or "lightrag"
    encoding: str  # the tiktoken encoding chunks are counted in
    size: int
    overlap: int
    stops_at_end: bool
    describe: str
    graphrag: ChunkSettings | None = None


def chunker_for(engine: str | None) -> Chunker:
    """The chunker of the suite's engine, with that release's defaults (a LlamaIndex suite has no
    token chunker the harness can run offline: its SentenceSplitter needs NLTK's punkt)."""
    release = parse_engine_name(engine) if engine else EngineRelease("graphrag", NEWEST["v3"])
    if release.engine == "lightrag":
        from ..llm.tokens import encoding_for

        return Chunker("lightrag", encoding_for(LIGHTRAG_TOKENIZER_MODEL).name, LIGHTRAG_SIZE, LIGHTRAG_OVERLAP, False,
                       f"LightRAG chunking: {LIGHTRAG_SIZE} tokens of {LIGHTRAG_TOKENIZER_MODEL}'s encoding, "
                       f"overlap {LIGHTRAG_OVERLAP} (its defaults)")
    if release.engine != "graphrag" or release.version is None:
        raise InputError(f"engine {engine}: `harness estimate` cuts chunks as GraphRAG or LightRAG does; "
                         "give --documents N --tokens T with a GraphRAG or LightRAG suite")
    version = (tuple(release.version) + (0, 0, 0))[:3]
    settings = chunk_settings({}, (version[0], version[1], version[2]))
    described = settings.describe() + ("" if engine else " (the suite names no engine: GraphRAG's newest assumed)")
    return Chunker("graphrag", settings.encoding_model, settings.size, settings.overlap, settings.stops_at_end, described, settings)


def windows(tokens: int, size: int, overlap: int, *, stops_at_end: bool) -> tuple[int, int]:
    """How many windows the engine cuts from a document of `tokens` tokens, and their tokens in
    all (the loop of graphrag_chunks._windows and LightRAG's range(0, n, size - overlap), counted)."""
    if tokens <= 0:
        return 0, 0
    step = size - overlap
    count = 1 + max(0, math.ceil((tokens - size) / step)) if stops_at_end else math.ceil(tokens / step)
    return count, sum(min(size, tokens - start * step) for start in range(count))


def corpus_from_counts(documents: int, tokens: int, chunker: Chunker) -> Corpus:
    """`--documents N --tokens T`: T tokens spread evenly over N documents, each cut on its own."""
    if documents < 1 or tokens < 1:
        raise InputError("--documents and --tokens: give at least one document and one token")
    if documents > tokens:
        raise InputError(f"--documents {documents} --tokens {tokens}: more documents than tokens")
    each, longer = divmod(tokens, documents)
    long_count, long_tokens = windows(each + 1, chunker.size, chunker.overlap, stops_at_end=chunker.stops_at_end)
    count, cut = windows(each, chunker.size, chunker.overlap, stops_at_end=chunker.stops_at_end)
    return Corpus(longer * long_count + (documents - longer) * count, documents,
                  longer * long_tokens + (documents - longer) * cut, chunker.encoding,
                  f"{documents} document(s), {tokens} tokens, cut by {chunker.describe}")


def chunk_tokens(text: str, encoding: str) -> int:
    """A text's tokens in `encoding` (a chunker's)."""
    from ..llm.tokens import encoding_named

    try:
        return len(encoding_named(encoding).encode(text, disallowed_special=()))
    except ValueError as exc:
        raise InputError(f"encoding_model {encoding}: {exc}") from None


def is_graphrag_project(folder: Path) -> bool:
    from ..importers.graphrag import SETTINGS_FILES

    return folder.is_dir() and any((folder / name).is_file() for name in SETTINGS_FILES)


def corpus_from_folder(folder: Path, chunker: Chunker) -> Corpus:
    """The chunks of a folder: a GraphRAG project's text units (its output table, else its input
    cut with its own settings), else the folder's .txt and .md files cut by `chunker`."""
    if not folder.is_dir():
        raise InputError(f"--corpus {shown_path(folder)}: not a folder")
    if is_graphrag_project(folder):
        return _project_corpus(folder)
    warnings: list[str] = []
    if chunker.engine == "graphrag":
        assert chunker.graphrag is not None
        documents = read_text_documents(folder, TEXT_PATTERN, chunker.graphrag, warnings)
        units = chunk_documents(documents, chunker.graphrag)
        count, tokens = len(documents), sum(unit.n_tokens or 0 for unit in units)
        chunks = len(units)
    else:
        texts = _text_files(folder, warnings)
        pieces = chunk_like_lightrag(texts, chunker.size, chunker.overlap)
        count, chunks = len(texts), len(pieces)
        tokens = sum(chunk_tokens(piece.text, chunker.encoding) for piece in pieces)
    if not chunks:
        raise InputError(f"--corpus {shown_path(folder)}: no .txt or .md document with text in it")
    return Corpus(chunks, count, tokens, chunker.encoding, f"{shown_path(folder)}: {count} document(s) cut by {chunker.describe}",
                  warnings=warnings)


def _text_files(folder: Path, warnings: list[str]) -> list[tuple[str, str]]:
    texts: list[tuple[str, str]] = []
    for path in sorted(p for p in folder.rglob("*") if p.suffix in (".txt", ".md") and p.is_file()):
        try:
            texts.append((path.name, universal_newlines(read_text(path, limit=MAX_DOCUMENT_BYTES, what="input file"))))
        except InputError as exc:
            warnings.append(f"{exc.message}: skipped")
    return texts


def _project_corpus(folder: Path) -> Corpus:
    from ..importers.graphrag import project_text_units, read_graphrag_project

    project = read_graphrag_project(folder)
    warnings: list[str] = []
    units, source = project_text_units(project, warnings)
    if not units:
        raise InputError(f"--corpus {shown_path(folder)}: the GraphRAG project has no text units and no input text")
    documents = len({document for unit in units for document in unit.document_ids})
    counted = Chunker("graphrag", project.chunking.encoding_model, project.chunking.size, project.chunking.overlap,
                      project.chunking.stops_at_end, project.chunking.describe(), project.chunking)
    tokens = sum(unit.n_tokens if unit.n_tokens is not None else chunk_tokens(unit.text, counted.encoding) for unit in units)
    return Corpus(len(units), documents, tokens, counted.encoding, f"GraphRAG project {shown_path(folder)}: {source}",
                  project=project.root, warnings=warnings)
