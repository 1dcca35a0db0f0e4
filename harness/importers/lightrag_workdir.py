"""LightRAG working folders: the chunks LightRAG extracted from, what its cached extraction prompts
show of its settings, and its stock prompts per version.

- Chunks: `kv_store_text_chunks.json` (`{chunk_id: {"content", "full_doc_id", "chunk_order_index",
  "file_path", ...}}`, the same in 1.x flat and nested-cache versions), ids kept. Without one,
  inputs are cut as LightRAG's `chunking_by_token_size` cuts them: gpt-4o-mini's tiktoken encoding
  (o200k_base, LightRAG's default `tiktoken_model_name`), windows of CHUNK_SIZE tokens every
  CHUNK_SIZE - CHUNK_OVERLAP_SIZE, each decoded and stripped; ids `chunk-<md5 of the content>`.
- Cached prompts: `original_prompt` of the `extract` entries of `kv_store_llm_response_cache.json`
  (flat or nested by mode: harness.cache_audit.layouts). LightRAG <= 1.4.7 stores the filled
  extraction prompt; 1.4.8+ the user prompt, "\\n", then the system prompt. Matching one against a
  stock (or the project's) template gives the entity types, language and examples it was filled with.
- Stock prompts: `harness/builtin_prompts/lightrag-stock-<version>.json`, the PROMPTS values of
  that lightrag-hku release (MIT, attribution inside each file).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputfiles import JsonRefused, loads, read_text
from ..prompts.syntax import TOKEN

CHUNKS_FILE = "kv_store_text_chunks.json"
CACHE_FILE = "kv_store_llm_response_cache.json"
LIGHTRAG_TOKENIZER_MODEL = "gpt-4o-mini"  # LightRAG's default tiktoken_model_name
MAX_STORE_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class StockPrompts:
    """One LightRAG release's stock PROMPTS (the entries extraction uses)."""

    version: str
    prompts: dict[str, Any]
    license: str

    @property
    def style(self) -> str:
        return "new" if "entity_extraction_user_prompt" in self.prompts else "old"

    @property
    def key(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.version.split(".") if p.isdigit())


def stock_prompts() -> list[StockPrompts]:
    """Every shipped LightRAG stock prompt set, oldest version first."""
    folder = resources.files("harness").joinpath("builtin_prompts")
    found: list[StockPrompts] = []
    for entry in folder.iterdir():
        if entry.name.startswith("lightrag-stock-") and entry.name.endswith(".json"):
            data = json.loads(entry.read_text(encoding="utf-8"))
            found.append(StockPrompts(str(data["lightrag_version"]), dict(data["prompts"]), str(data["license"])))
    return sorted(found, key=lambda s: s.key)


def newest_stock(style: str | None = None) -> StockPrompts:
    """The newest shipped stock prompts (of one prompt generation, `old` or `new`, if given)."""
    return [s for s in stock_prompts() if style is None or s.style == style][-1]


@dataclass(frozen=True)
class Chunk:
    """One chunk LightRAG extracts from: its id, text, document (file name, else doc id) and place."""

    id: str
    text: str
    document: str
    order: int


def find_workdir(root: Path, working_dir: str | None = None) -> Path | None:
    """The LightRAG working folder of a setup: ROOT itself when it holds kv stores, else WORKING_DIR,
    `rag_storage/`, or the first folder at most two levels down holding a chunk or cache store."""
    def holds(folder: Path) -> bool:
        return (folder / CHUNKS_FILE).is_file() or (folder / CACHE_FILE).is_file()

    candidates = [root]
    if working_dir:
        wd = Path(working_dir)
        candidates.append(wd if wd.is_absolute() else root / wd)
    candidates.append(root / "rag_storage")
    for folder in candidates:
        if folder.is_dir() and holds(folder):
            return folder
    for folder in sorted([*root.glob("*/"), *root.glob("*/*/")]):
        if folder.is_dir() and not any(p.startswith(".") or p in ("inputs", "node_modules") for p in folder.relative_to(root).parts) \
                and holds(folder):
            return folder
    return None


def load_store(path: Path) -> Any:
    # bounded, regular files only, strict UTF-8; the JSON policy (nesting, 5,000-digit numbers)
    text = read_text(path, limit=MAX_STORE_BYTES, what="LightRAG store", encoding="utf-8")
    try:
        return loads(text)
    except JsonRefused as exc:
        raise InputError(f"{path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON") from None


def read_chunks(workdir: Path) -> list[Chunk] | None:
    """The chunks of a working folder's `kv_store_text_chunks.json` in LightRAG's order (documents
    in the order the store first names them, then `chunk_order_index`); None without the file."""
    path = workdir / CHUNKS_FILE
    if not path.is_file():
        return None
    data = load_store(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: not a JSON object of chunks (chunk id -> chunk)")
    first_seen: dict[str, int] = {}
    rows: list[tuple[int, int, int, Chunk]] = []
    for n, (chunk_id, value) in enumerate(data.items()):
        if not isinstance(value, dict) or not isinstance(value.get("content"), str):
            raise InputError(f"{path}: chunk {chunk_id!r}: no string `content`")
        order = value.get("chunk_order_index", 0)
        if not isinstance(order, int) or isinstance(order, bool):
            raise InputError(f"{path}: chunk {chunk_id!r}: `chunk_order_index` is not an integer")
        file_path = value.get("file_path")
        doc_id = str(value.get("full_doc_id") or chunk_id)
        document = file_path if isinstance(file_path, str) and file_path and file_path != "unknown_source" else doc_id
        rank = first_seen.setdefault(doc_id, len(first_seen))
        rows.append((rank, order, n, Chunk(str(chunk_id), value["content"], document, order)))
    return [row[3] for row in sorted(rows, key=lambda r: r[:3])]


def chunk_like_lightrag(documents: list[tuple[str, str]], size: int, overlap: int,
                        tokenizer_model: str = LIGHTRAG_TOKENIZER_MODEL) -> list[Chunk]:
    """Documents (name, text) cut as LightRAG's chunking_by_token_size cuts them (module docstring),
    with the encoding of `tokenizer_model` (LightRAG's `tiktoken_model_name`); the text is first
    cleaned as LightRAG cleans an inserted document (stripped, NULs removed)."""
    from ..llm.tokens import encoding_for

    if size <= overlap:
        raise InputError(f"CHUNK_SIZE {size} must be larger than CHUNK_OVERLAP_SIZE {overlap}")
    encoding = encoding_for(tokenizer_model)
    chunks: list[Chunk] = []
    for name, text in documents:
        tokens = encoding.encode(text.replace("\x00", "").strip(), disallowed_special=())
        for index, start in enumerate(range(0, len(tokens), size - overlap)):
            content = encoding.decode(tokens[start:start + size]).strip()
            chunks.append(Chunk(md5_id(content, "chunk-"), content, name, index))
    return chunks


def md5_id(content: str, prefix: str) -> str:
    """LightRAG's compute_mdhash_id."""
    return prefix + hashlib.md5(content.encode("utf-8")).hexdigest()


def cached_extraction_prompts(workdir: Path) -> list[str]:
    """The `original_prompt` of every extraction entry of the working folder's LLM cache."""
    from ..cache_audit.layouts import lightrag_entries

    path = workdir / CACHE_FILE
    if not path.is_file():
        return []
    entries = lightrag_entries(CACHE_FILE, load_store(path))
    return [e.request for e in entries if e.request and (e.cache_type in (None, "extract")) and e.mode in (None, "default")]


@dataclass(frozen=True)
class FilledWith:
    """What a cached extraction prompt was filled with, read by matching it against a template."""

    entity_types: list[str]
    language: str
    examples: str


def first_requests(prompts: dict[str, Any]) -> list[str]:
    """The texts LightRAG may cache for a chunk's first extraction call with these PROMPTS: 1.4.8+
    joins user and system prompt with "\\n" after stripping each (sanitize_text_for_encoding);
    earlier versions store the prompt as filled."""
    if "entity_extraction_user_prompt" in prompts:
        user, system = prompts.get("entity_extraction_user_prompt"), prompts.get("entity_extraction_system_prompt")
        if isinstance(user, str) and isinstance(system, str):
            return [user.strip() + "\n" + system.strip(), user + "\n" + system]
        return []
    text = prompts.get("entity_extraction")
    return [text, text.strip()] if isinstance(text, str) else []


def _pattern(template: str, fixed: dict[str, str]) -> re.Pattern[str]:
    """A regex that matches the template filled with any values: `fixed` placeholders must hold
    exactly their value, the first use of any other is a group and later uses repeat it."""
    parts: list[str] = []
    seen: set[str] = set()
    last = 0
    for match in TOKEN.finditer(template):
        parts.append(re.escape(template[last:match.start()]))
        last = match.end()
        name = match.group(1)
        if name is None:
            parts.append(re.escape(match.group(0)[0]))
        elif name in fixed:
            parts.append(re.escape(fixed[name]))
        elif name in seen:
            parts.append(f"(?P={name})")
        else:
            seen.add(name)
            parts.append(f"(?P<{name}>.*?)")
    parts.append(re.escape(template[last:]))
    return re.compile("".join(parts), re.DOTALL)


def read_filled(cached: list[str], prompts: dict[str, Any]) -> FilledWith | None:
    """The entity types, language and examples of the first cached prompt that is `prompts`'
    extraction prompt filled (None when none is)."""
    fixed = {k: str(prompts[f"DEFAULT_{k.upper()}"]) for k in ("tuple_delimiter", "record_delimiter", "completion_delimiter")
             if isinstance(prompts.get(f"DEFAULT_{k.upper()}"), str)}
    patterns = [_pattern(template, fixed) for template in dict.fromkeys(first_requests(prompts))]
    for text in cached:
        match = next((m for m in (p.fullmatch(text) for p in patterns) if m is not None), None)
        if match is None:
            continue
        groups = match.groupdict()
        types = [t.strip() for t in (groups.get("entity_types") or "").split(",") if t.strip()]
        return FilledWith(types, (groups.get("language") or "").strip(), groups.get("examples") or "")
    return None


def stock_examples(stock: StockPrompts, entity_types: list[str], language: str) -> str:
    """The examples text LightRAG puts into {examples} with its stock examples."""
    examples = "\n".join(stock.prompts.get("entity_extraction_examples", []))
    values = {"tuple_delimiter": stock.prompts.get("DEFAULT_TUPLE_DELIMITER", ""),
              "completion_delimiter": stock.prompts.get("DEFAULT_COMPLETION_DELIMITER", ""),
              "record_delimiter": stock.prompts.get("DEFAULT_RECORD_DELIMITER", ""),
              "entity_types": ", ".join(entity_types), "language": language}
    return examples.format(**values)


def has_stock_examples(filled: FilledWith, stock: StockPrompts) -> bool:
    """Whether a cached prompt was filled with the release's stock examples. 1.4.8+ caches the
    system prompt stripped, so examples that end it lose their trailing whitespace there."""
    expected = stock_examples(stock, filled.entity_types, filled.language)
    if filled.examples == expected:
        return True
    system = stock.prompts.get("entity_extraction_system_prompt")
    at_end = isinstance(system, str) and system.rstrip().endswith("{examples}")
    return at_end and filled.examples == expected.rstrip()
