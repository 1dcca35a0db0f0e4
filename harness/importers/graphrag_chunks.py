"""A GraphRAG project's text units, as the project's GraphRAG version cuts them (or as its output
already holds them), so that the cases of an imported suite are the chunks the engine sends.

Read from each version's chunker (graphrag/index/... of the tags v0.3.6 to v3.1.2) and checked
against text units written by the real 0.5.0, 0.9.0, 1.2.0, 2.1.0, 2.7.0 and 3.1.2
(tests/fixtures/engine_captures/graphrag-*-chunks/):

| | 0.x | 1.x | 2.x | 3.x |
| --- | --- | --- | --- | --- |
| settings | `chunks:` | `chunks:` | `chunks:` | `chunking:` |
| size, overlap | `size or 1200`, `overlap or 100` (0 means default) | same | as written (1200, 100) | same |
| tokenizer | `chunks.encoding_model`, else the root `encoding_model`, else cl100k_base | same | `chunks.encoding_model`, else cl100k_base | `chunking.encoding_model`, else o200k_base |
| grouping | `group_by_columns` (default `[id]`; `[]`: one token stream over all documents) | same | same | none: one document at a time |
| strategy | tokens (`chunks.strategy` is not read) | `strategy: tokens/sentence` | same | `type: tokens/sentence` |
| metadata | none | none | `prepend_metadata` with `input.metadata` columns (`chunk_size_includes_metadata`) | `prepend_metadata: [fields]` |
| last window | every start < length (a tail inside the overlap repeats) | same | same to 2.1, from 2.2.0 stops at the window that reaches the end | stops there |
| ids | md5 (to 0.5) / sha512 (from 0.9) of `str((document_ids, text, n_tokens))` | sha512, same | same | sha512 of the text |
| document order | sorted by document id | same | same | sorted by id to 3.0.2, then the input folder's walk order |

Documents are text files read in text mode (so CRLF becomes LF, as GraphRAG's file storage reads
them); a document's id is the hash of its file-pattern groups and text. The sentence strategy needs
NLTK's punkt data, which the harness does not download: such a project is imported from its output.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputfiles import JsonRefused, csv_rows, jsonl_lines, loads, read_bytes, read_text, shown_path, universal_newlines
from .common import MAX_DOCUMENT_BYTES, outside_project
from .file_pattern import PatternRefused, compile_file_pattern

# The version a project is taken to be when no --graphrag-version is given, by the settings layout
# the importer detected (graphrag.detect_version, from prompts/graphrag_layout.py): the last version
# that wrote that layout. 0.x and 1.x both write `llm:` (v0; v1 when 1.1+'s sections are there);
# `models:` came with 2.0 (v2).
NEWEST = {"v0": (1, 2, 0), "v1": (1, 2, 0), "v2": (2, 7, 0), "v3": (3, 1, 2)}
MAJORS = {"v0": (0, 1), "v1": (1,), "v2": (2,), "v3": (3,)}  # the versions each layout can be
DEFAULT_ENCODING = {"v0": "cl100k_base", "v1": "cl100k_base", "v2": "cl100k_base", "v3": "o200k_base"}
DEFAULT_SIZE, DEFAULT_OVERLAP = 1200, 100


def parse_version(text: str) -> tuple[int, int, int]:
    """`1.2.0` or `v1.2` as a (major, minor, patch) tuple; InputError otherwise."""
    match = re.fullmatch(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?", text.strip())
    if not match:
        raise InputError(f"--graphrag-version {text}: not a version (write it as 1.2.0)")
    return int(match[1]), int(match[2] or 0), int(match[3] or 0)


@dataclass(frozen=True)
class ChunkSettings:
    """Everything of a project's settings that decides its text units, resolved for one version."""

    version: tuple[int, int, int]
    size: int = DEFAULT_SIZE
    overlap: int = DEFAULT_OVERLAP
    encoding_model: str = "cl100k_base"
    group_by_columns: tuple[str, ...] = ("id",)
    strategy: str = "tokens"
    metadata: tuple[str, ...] = ()  # document fields prepended to every chunk (2.x, 3.x)
    size_includes_metadata: bool = False  # 2.x chunk_size_includes_metadata
    file_encoding: str = "utf-8"

    @property
    def line(self) -> str:
        return f"v{min(self.version[0], 3)}"

    @property
    def hash_name(self) -> str:
        return "md5" if self.version < (0, 9, 0) else "sha512"

    @property
    def stops_at_end(self) -> bool:
        """From 2.2.0 the window that reaches the end is the last; before, a tail inside the overlap follows."""
        return self.version >= (2, 2, 0)

    @property
    def sorts_documents(self) -> bool:
        return self.version < (3, 0, 4)

    def describe(self) -> str:
        groups = ", ".join(self.group_by_columns) if self.group_by_columns else "none (one stream)"
        text = (f"GraphRAG {'.'.join(map(str, self.version))} chunking: {self.strategy}, {self.size} tokens "
                f"of {self.encoding_model}, overlap {self.overlap}")
        if self.line != "v3":
            text += f", grouped by {groups}"
        if self.metadata:
            text += f", metadata {', '.join(self.metadata)} prepended"
        return text


def _section(settings: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = settings.get(name)
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return None


def _columns(value: Any) -> tuple[str, ...] | None:
    """A list setting as GraphRAG's 0.x/1.x reader takes it: a list, or a comma-separated string."""
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return None


def chunk_settings(settings: Mapping[str, Any], version: tuple[int, int, int]) -> ChunkSettings:
    """The chunking of a project made by GraphRAG `version`, read from its settings as that version reads them."""
    line = f"v{min(version[0], 3)}"
    section = _section(settings, "chunking" if line == "v3" else "chunks")
    input_section = _section(settings, "input")
    file_encoding = input_section.get("encoding") or input_section.get("file_encoding")
    file_encoding = file_encoding if isinstance(file_encoding, str) and file_encoding else "utf-8"
    if line in ("v0", "v1"):
        file_encoding = "utf-8"  # the 0.x/1.x text loader reads utf-8 whatever the settings say
    size, overlap = _int(section.get("size")), _int(section.get("overlap"))
    encoding = section.get("encoding_model")
    if line in ("v0", "v1"):
        # create_graphrag_config: `reader.int("size") or default`, so 0 (or nothing) is the default
        size, overlap = size or DEFAULT_SIZE, overlap or DEFAULT_OVERLAP
        if not (isinstance(encoding, str) and encoding):
            encoding = settings.get("encoding_model")
    else:
        size = DEFAULT_SIZE if size is None else size
        overlap = DEFAULT_OVERLAP if overlap is None else overlap
    if not (isinstance(encoding, str) and encoding):
        encoding = DEFAULT_ENCODING[line]
    groups = _columns(section.get("group_by_columns"))
    strategy = "tokens"
    if line in ("v1", "v2"):
        declared = section.get("strategy")
        strategy = declared if isinstance(declared, str) and declared else "tokens"
    elif line == "v3":
        declared = section.get("type")
        strategy = declared if isinstance(declared, str) and declared else "tokens"
    metadata: tuple[str, ...] = ()
    if line == "v2" and section.get("prepend_metadata") is True:
        metadata = _columns(input_section.get("metadata")) or ()
    elif line == "v3":
        metadata = _columns(section.get("prepend_metadata")) or ()
    result = ChunkSettings(
        version=version, size=size, overlap=overlap, encoding_model=str(encoding),
        group_by_columns=() if line == "v3" else (groups if groups is not None else ("id",)),
        strategy=strategy, metadata=metadata,
        size_includes_metadata=line == "v2" and section.get("chunk_size_includes_metadata") is True,
        file_encoding=file_encoding,
    )
    return result


def chunking_problem(chunking: ChunkSettings) -> str | None:
    """Why these settings cut no text units (GraphRAG itself fails or never ends on them), or None."""
    if chunking.strategy not in ("tokens", "sentence"):
        return f"chunk strategy {chunking.strategy!r}: GraphRAG knows tokens and sentence"
    if chunking.strategy == "sentence":
        return ("chunk strategy sentence: GraphRAG cuts sentences with NLTK's punkt data, which the harness "
                "does not download; run `graphrag index` and import again, the text units are then read "
                "from the project's output")
    if chunking.size - chunking.overlap <= 0:
        return (f"chunk size {chunking.size} with overlap {chunking.overlap}: GraphRAG would never finish "
                "(the size must exceed the overlap)")
    return None


@dataclass(frozen=True)
class EngineDocument:
    """One input document as GraphRAG's loader makes it."""

    id: str
    text: str
    title: str
    fields: dict[str, Any] = field(default_factory=dict)  # file-pattern groups (grouping, metadata)
    path: Path | None = None  # the file that is this document


@dataclass(frozen=True)
class TextUnit:
    """One text unit: what GraphRAG sends to extraction, with the ids of its table."""

    id: str
    text: str
    document_ids: tuple[str, ...]
    n_tokens: int | None
    titles: tuple[str, ...] = ()  # the documents' titles (file names), when known
    path: Path | None = None  # the input file whose whole text this unit is, if it is one


def _hash(name: str, text: str) -> str:
    return hashlib.new(name, text.encode("utf-8"), usedforsecurity=False).hexdigest()


def input_files(folder: Path, pattern: str, chunking: ChunkSettings) -> list[tuple[Path, dict[str, Any]]]:
    """The files GraphRAG's file storage finds, in its order (rglob's), with their pattern groups:
    0.x-2.x `re.match` the whole path, 3.x `re.search` it (the same matches, without backtracking)."""
    if not folder.is_dir():
        return []
    try:  # a project's pattern is input: matched without backtracking (file_pattern.py)
        regex = compile_file_pattern(pattern)
    except PatternRefused as exc:
        raise InputError(f"input file_pattern {pattern[:200]!r}: {exc}") from None
    found: list[tuple[Path, dict[str, Any]]] = []
    for path in folder.rglob("**/*"):
        match = regex.search(str(path)) if chunking.line == "v3" else regex.match(str(path))
        if match and path.is_file():
            found.append((path, match.groupdict()))
    return found


def read_text_documents(folder: Path, pattern: str, chunking: ChunkSettings,
                        warnings: list[str], *, within: Path | None = None) -> list[EngineDocument]:
    """Text files as GraphRAG's text loader reads them: text mode (universal newlines), the id the
    hash of the pattern's groups and the text (3.x: of the text alone), the file name as title.
    A file resolving outside `within` (the imported project) is skipped."""
    documents: list[EngineDocument] = []
    for path, groups in input_files(folder, pattern, chunking):
        if within is not None and outside_project(path, within, warnings):
            continue
        try:  # bounded, regular files only; text mode's universal newlines, as GraphRAG reads
            text = universal_newlines(read_text(path, limit=MAX_DOCUMENT_BYTES, what="input file",
                                                 encoding=chunking.file_encoding))
        except InputError as exc:
            warnings.append(f"{exc.message}: skipped as GraphRAG skips it")
            continue
        if chunking.line == "v3":
            key = text
        else:
            key = "".join(str(value) for value in groups.values()) + text
        documents.append(EngineDocument(_hash(chunking.hash_name, key), text, path.name, dict(groups), path))
    return documents


def _encoding(name: str) -> Any:
    from ..llm.tokens import encoding_named

    try:
        return encoding_named(name)
    except ValueError as exc:
        raise InputError(f"encoding_model {name}: {exc}") from None


def _windows(tokens: Sequence[Any], size: int, overlap: int, *, stop_at_end: bool) -> list[Sequence[Any]]:
    """The token windows GraphRAG cuts: starts 0, size-overlap, ... while the start is inside the
    text; 3.x stops after the window that reaches the end."""
    windows = []
    start = 0
    while start < len(tokens):
        end = min(start + size, len(tokens))
        windows.append(tokens[start:end])
        if stop_at_end and end == len(tokens):
            break
        start += size - overlap
    return windows


def _metadata_text(values: Mapping[str, Any]) -> str:
    return "".join(f"{key}: {value}.\n" for key, value in values.items()) if values else ""


def _document_fields(document: EngineDocument) -> dict[str, Any]:
    return {**document.fields, "id": document.id, "text": document.text, "title": document.title}


def chunk_documents(documents: Sequence[EngineDocument], chunking: ChunkSettings, *,
                    keep_order: bool = False) -> list[TextUnit]:
    """The text units GraphRAG's create_base_text_units makes of these documents, in its order
    (`keep_order`: in the order given, for documents whose ids are not GraphRAG's)."""
    if not documents:
        return []
    problem = chunking_problem(chunking)
    if problem:
        raise InputError(problem)
    if "creation_date" in chunking.metadata:
        raise InputError("prepend_metadata with creation_date: GraphRAG writes the input files' creation dates as "
                         "its storage reads them, which the harness does not reproduce; run `graphrag index` and "
                         "import again, the text units are then read from the project's output")
    if chunking.line == "v2":  # 2.x refuses metadata columns its documents lack
        missing = [c for c in chunking.metadata if any(c not in _document_fields(d) for d in documents)]
        if missing:
            raise InputError(f"input.metadata {', '.join(missing)}: not a column of the input documents "
                             "(GraphRAG 2.x stops on it too)")
    encoding = _encoding(chunking.encoding_model)

    def encode(text: str) -> list[int]:
        return encoding.encode(text, disallowed_special=())

    sort = chunking.sorts_documents and not keep_order
    ordered = sorted(documents, key=lambda d: d.id) if sort else list(documents)
    if chunking.line == "v3":
        return _chunk_v3(ordered, chunking, encode, encoding.decode)
    groups: dict[tuple[Any, ...], list[EngineDocument]] = {}
    for document in ordered:
        fields = _document_fields(document)
        key = tuple(fields.get(column) for column in chunking.group_by_columns)
        groups.setdefault(key, []).append(document)
    units: list[TextUnit] = []
    for members in groups.values():
        metadata = ""
        if chunking.metadata:
            first = _document_fields(members[0])
            metadata = _metadata_text({column: first.get(column) for column in chunking.metadata})
        size = chunking.size
        if metadata and chunking.size_includes_metadata:
            size -= len(encode(metadata))
            if size <= 0:
                raise InputError("prepend_metadata: the metadata is longer than a chunk "
                                 "(GraphRAG refuses it too: increase chunks.size)")
        stream = [(index, token) for index, member in enumerate(members) for token in encode(member.text)]
        for window in _windows(stream, size, chunking.overlap, stop_at_end=chunking.stops_at_end):
            indices = list({index for index, _ in window})  # GraphRAG's own set order
            document_ids = [members[i].id for i in indices]
            text = metadata + encoding.decode([token for _, token in window])
            n_tokens = len(window)
            unit_id = _hash(chunking.hash_name, str((document_ids, text, n_tokens)))
            whole = members[indices[0]] if len(indices) == 1 and text == members[indices[0]].text else None
            units.append(TextUnit(unit_id, text, tuple(document_ids), n_tokens,
                                  tuple(members[i].title for i in indices), whole.path if whole else None))
    return units


def _chunk_v3(documents: Sequence[EngineDocument], chunking: ChunkSettings, encode: Any, decode: Any) -> list[TextUnit]:
    units: list[TextUnit] = []
    for document in documents:
        metadata = ""
        if chunking.metadata:
            fields = _document_fields(document)
            metadata = _metadata_text({k: fields[k] for k in chunking.metadata if fields.get(k) is not None})
        for window in _windows(encode(document.text), chunking.size, chunking.overlap, stop_at_end=chunking.stops_at_end):
            text = metadata + decode(list(window))
            units.append(TextUnit(_hash("sha512", text), text, (document.id,), len(encode(text)), (document.title,),
                                  document.path if text == document.text else None))
    return units


# --------------------------------------------------------------------------- the project's output

TABLE_NAMES = ("text_units", "create_final_text_units", "create_base_text_units")
TABLE_SUFFIXES = (".parquet", ".csv", ".json", ".jsonl")


def output_folders(settings: Mapping[str, Any], base: Path) -> list[Path]:
    """Where each version writes its tables: `output_storage.base_dir` (3.x), `output.base_dir` (2.x),
    `storage.base_dir` (0.x/1.x, 0.x with a `${timestamp}/artifacts` run folder), else `output/`."""
    candidates: list[str] = []
    for section in ("output_storage", "output", "storage"):
        value = _section(settings, section).get("base_dir")
        if isinstance(value, str) and value:
            candidates.append(value)
    candidates.append("output")
    folders: list[Path] = []
    for candidate in candidates:
        if "${timestamp}" in candidate or "$timestamp" in candidate:
            head = candidate.split("$", 1)[0]
            tail = candidate.split("}", 1)[1].lstrip("/") if "}" in candidate else ""
            parent = base / head if not Path(head).is_absolute() else Path(head)
            runs = sorted((p for p in parent.glob("*") if p.is_dir()), reverse=True) if parent.is_dir() else []
            folders.extend(run / tail for run in runs)
            continue
        folder = Path(candidate) if Path(candidate).is_absolute() else base / candidate
        folders.append(folder)
        # a 0.x project read with the default `output/` holds `output/<run>/artifacts/`
        if folder.is_dir():
            folders.extend(sorted((p for p in folder.glob("*/artifacts") if p.is_dir()), reverse=True))
    return list(dict.fromkeys(folders))


def find_output_table(settings: Mapping[str, Any], base: Path) -> Path | None:
    """The project's text units table, newest run first; None when the project has no output yet."""
    for folder in output_folders(settings, base):
        for name in TABLE_NAMES:
            for suffix in TABLE_SUFFIXES:
                path = folder / f"{name}{suffix}"
                if path.is_file():
                    return path
    return None


def version_of_output(table: Path) -> tuple[tuple[int, int, int], str] | None:
    """The GraphRAG version the project's output tables say wrote them, and why, where the tables
    tell versions of one settings layout apart (0.x and 1.x share `llm:`): a table named
    `create_base_extracted_entities` is 0.1-0.3's (gone in 0.4.0), `create_base_entity_graph`
    0.4-0.9's (gone in 1.0.0; md5 text unit ids up to 0.5, sha512 from 0.9), and
    `create_final_text_units` without it 1.x's. None: the tables do not tell (2.x and 3.x write
    `text_units`, told apart by their settings layout)."""
    folder = table.parent

    def has(name: str) -> bool:
        return any((folder / f"{name}{suffix}").is_file() for suffix in TABLE_SUFFIXES)

    if has("create_base_extracted_entities"):
        return (0, 3, 6), f"{folder.name}/ holds create_base_extracted_entities, which GraphRAG 0.1-0.3 wrote"
    if has("create_base_entity_graph"):
        try:
            ids = [unit.id for unit in read_output_text_units(table)[:5]]
        except InputError:
            ids = []
        if ids and all(len(i) == 32 for i in ids):
            return (0, 5, 0), (f"{folder.name}/ holds create_base_entity_graph (GraphRAG 0.4-0.9) and md5 text unit "
                               "ids (up to 0.5)")
        return (0, 9, 0), f"{folder.name}/ holds create_base_entity_graph, which GraphRAG 0.4-0.9 wrote"
    if table.stem == "create_final_text_units":
        return (1, 2, 0), f"{folder.name}/ holds create_final_text_units without create_base_entity_graph (GraphRAG 1.x)"
    return None


def read_output_text_units(path: Path) -> list[TextUnit]:
    """The rows of a text units table (parquet, CSV, JSON or JSON lines), ids as the engine wrote them."""
    rows = table_rows(path)
    units: list[TextUnit] = []
    for number, row in enumerate(rows, start=1):
        text, unit_id = row.get("text", row.get("chunk")), row.get("id")
        if not isinstance(text, str) or not isinstance(unit_id, str):
            raise InputError(f"{path}: row {number} has no text or id column, not a GraphRAG text units table")
        documents = row.get("document_ids", row.get("document_id"))
        units.append(TextUnit(unit_id, text, id_list(documents), _n_tokens(row.get("n_tokens"))))
    return units


def table_rows(path: Path, what: str = "text units table") -> list[dict[str, Any]]:
    """The rows of one GraphRAG output table (parquet, CSV, JSON or JSON lines) as dicts; `what`
    names the table in messages. Also read by harness diff (harness/graph_diff/graphrag_side.py)."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            return _parquet_rows(path, what)
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except ValueError:  # pyarrow's ArrowInvalid: not a parquet file, or a damaged one
        raise InputError(f"{path}: not a readable parquet file") from None
    raw = universal_newlines(read_text(path, limit=MAX_DOCUMENT_BYTES, what=what))  # bounded
    if suffix == ".csv":
        return csv_rows(raw, shown_path(path))
    try:
        if suffix == ".jsonl":
            return _json_lines(raw, path)
        data = loads(raw)
    except JsonRefused as exc:
        raise InputError(f"{shown_path(path)}: {exc}") from None
    except json.JSONDecodeError as exc:
        # GraphRAG's JSON emitter writes records one a line (pandas `lines=True`) into .json
        return _json_lines(raw, path, first_error=exc.lineno)
    if isinstance(data, dict) and isinstance(data.get("data"), list):  # pandas orient="table"/"split"
        data = data["data"]
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise InputError(f"{path}: a {what} is a list of rows")
    return data


def _json_lines(raw: str, path: Path, first_error: int | None = None) -> list[Any]:
    """The values of JSON Lines (split on "\n" only: a text may hold U+2028), under the JSON policy;
    a line that is not JSON names the file and line (`first_error`: the line a whole-file read
    failed at, named when the lines do not read either)."""
    rows = []
    for number, line in jsonl_lines(raw):
        if not line.strip():
            continue
        try:
            rows.append(loads(line))
        except JsonRefused as exc:
            raise InputError(f"{shown_path(path)}:{number}: {exc}") from None
        except ValueError:
            raise InputError(f"{shown_path(path)}:{first_error or number}: not JSON") from None
    return rows


def _parquet_rows(path: Path, what: str) -> list[dict[str, Any]]:
    """Parquet through pandas, which needs pyarrow (or fastparquet); neither is a harness dependency.
    The bytes are read first, as every input is (a regular file, bounded: a FIFO or a 3 GB file is
    one line, never a hang)."""
    import io

    import pandas as pd

    data = read_bytes(path, limit=MAX_DOCUMENT_BYTES, what=what)
    try:
        frame = pd.read_parquet(io.BytesIO(data), columns=None)
    except ImportError:
        hint = ("; without it the text units are cut from the input as the project's GraphRAG version cuts "
                "them (--from-input)") if what == "text units table" else ""
        raise InputError(f"{path}: reading parquet needs pyarrow (pip install pyarrow){hint}") from None
    return [{k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in row.items()}
            for row in frame.to_dict(orient="records")]


def id_list(value: Any) -> tuple[str, ...]:
    """A list-valued cell (text unit or document ids) as written by parquet, CSV or JSON."""
    if value is None:
        return ()
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):  # a list written into a CSV cell: "['a', 'b']" or JSON
            return tuple(re.findall(r"[0-9A-Za-z_-]{8,}", text))
        return (text,) if text else ()
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value)
    return (str(value),)


def _n_tokens(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None
