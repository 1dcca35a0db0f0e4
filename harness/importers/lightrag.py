"""Import a LightRAG setup: the PROMPTS dict of its prompt.py, its `.env`, and its input folder.

The prompt file is read with `ast`, never executed: the entries of a `PROMPTS`-like dict whose
value can be computed from the file alone (`_value`); any other entry is named with its line. A
LightRAG working folder gives the chunks and what the cached prompts were filled with
(lightrag_workdir.py); the `default` variant is LightRAG's stock prompt of that release. Two generations are understood:

- LightRAG >= 1.4.8: `entity_extraction_system_prompt` + `entity_extraction_user_prompt`,
  `entity_continue_extraction_user_prompt`, one record per line, DEFAULT_TUPLE_DELIMITER `<|#|>`.
- LightRAG <= 1.4.7: `entity_extraction` (one user prompt), `entity_continue_extraction`,
  `entity_if_loop_extraction`, GraphRAG-style tuples with `<|>` and `##`.

Entity types come from `addon_params` in the project's Python files, then ENTITY_TYPES in the
environment or `.env`, then PROMPTS["DEFAULT_ENTITY_TYPES"]; the language from
`addon_params["language"]`, SUMMARY_LANGUAGE, then PROMPTS["DEFAULT_LANGUAGE"]. The project's
`LightRAG(...)` call (lightrag_script.py) wins over the environment, as its keyword arguments win
over LightRAG's environment defaults: working_dir, chunk_token_size, chunk_overlap_token_size,
tiktoken_model_name, addon_params. The model, endpoint, sampling, limits and gleanings become the
suite's `model:` (lightrag_settings.py), the release its `engine:` (lightrag_release.py).
"""

from __future__ import annotations

import ast
import os
import re
import string
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputfiles import loads, read_text, universal_newlines
from ..names import safe_name
from ..prompts.syntax import escape, partial_fill
from .lightrag_release import Release, parse_release, pinned_release
from .lightrag_script import ConstructorCall, EnvRef, addon_assignments, find_constructor
from .lightrag_settings import EnvSource, engine_model
from .lightrag_workdir import (
    LIGHTRAG_TOKENIZER_MODEL,
    Chunk,
    FilledWith,
    StockPrompts,
    cached_extraction_prompts,
    chunk_like_lightrag,
    find_workdir,
    has_stock_examples,
    newest_stock,
    read_chunks,
    read_filled,
    stock_prompts,
)
from .common import (
    DEFAULT_MAX_CASES,
    MAX_DOCUMENT_BYTES,
    SKIP_DIRS,
    SuiteDraft,
    document_cases,
    destination,
    dump_yaml,
    find_files,
    outside_project,
    project_env,
    read_dotenv_lines,
    reference_free_thresholds,
    relative_path,
)

PROMPT_FILES = ("prompt.py", "lightrag/prompt.py", "prompts.py", "prompts/prompt.py")
DEFAULT_ENTITY_TYPES = ["person", "organization", "location", "event", "concept"]
NEW_TUPLE = "<|#|>"
# the LightRAG(...) keyword arguments the import reads (the others do not change what is sent)
READ_KEYWORDS = ("working_dir", "chunk_token_size", "chunk_overlap_token_size", "tiktoken_model_name", "addon_params",
                 "llm_model_name", "entity_extract_max_gleaning", "llm_model_max_async")


@dataclass
class LightRAGProject:
    root: Path
    prompt_file: Path | None
    prompts: dict[str, Any] = field(default_factory=dict)
    prompt_lines: dict[str, int] = field(default_factory=dict)
    entity_types: list[str] = field(default_factory=lambda: list(DEFAULT_ENTITY_TYPES))
    language: str = "English"
    language_stated: bool = False  # from addon_params, SUMMARY_LANGUAGE or PROMPTS, not the default
    model: str | None = None
    input_dir: Path | None = None
    chunk_size: int = 1200
    skipped: dict[str, Skipped] = field(default_factory=dict)  # PROMPTS entries that cannot be read
    chunk_overlap: int = 100
    workdir: Path | None = None  # LightRAG's working folder (kv stores), when the setup has one
    chunks: list[Chunk] | None = None  # its kv_store_text_chunks.json
    filled: FilledWith | None = None  # what its cached extraction prompts were filled with
    stock: StockPrompts | None = None  # the LightRAG release whose stock prompt is the `default` variant
    stock_reason: str = ""  # how that release was chosen
    tokenizer_model: str = LIGHTRAG_TOKENIZER_MODEL  # LightRAG's tiktoken_model_name, which cuts the chunks
    env: EnvSource | None = None  # what LightRAG reads from its environment (.env under the process's)
    constructor: ConstructorCall | None = None  # the project's LightRAG(...) call, when it has one
    release: Release | None = None  # the LightRAG release the project runs (the suite's `engine:`)
    notes: list[str] = field(default_factory=list)  # what reading the project found to say

    @property
    def style(self) -> str | None:
        if "entity_extraction_user_prompt" in self.prompts:
            return "new"
        if "entity_extraction" in self.prompts:
            return "old"
        return None

    @property
    def tuple_delimiter(self) -> str:
        value = self.prompts.get("DEFAULT_TUPLE_DELIMITER")
        if isinstance(value, str) and value:
            return value
        return NEW_TUPLE if self.style != "old" else "<|>"

    @property
    def record_delimiter(self) -> str | None:
        value = self.prompts.get("DEFAULT_RECORD_DELIMITER")
        return value if isinstance(value, str) and value else ("##" if self.style == "old" else None)

    @property
    def completion_delimiter(self) -> str:
        value = self.prompts.get("DEFAULT_COMPLETION_DELIMITER")
        return value if isinstance(value, str) and value else "<|COMPLETE|>"


# --------------------------------------------------------------------------- reading python without running it


class _Unreadable(Exception):
    """An entry whose value the importer cannot know without running the file; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_STRIPS = {"strip": str.strip, "lstrip": str.lstrip, "rstrip": str.rstrip}


def _target_key(node: ast.expr) -> tuple[str, str] | None:
    """`PROMPTS["key"]` -> ("PROMPTS", "key")."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return node.value.id, key.value
    return None


def _value(node: ast.expr, names: Mapping[str, Any], dicts: Mapping[str, Mapping[str, Any]]) -> Any:
    """The value of an expression the ways prompt files write them: literals, implicit and `+`
    concatenation, f-strings without expressions, `.strip()`/`.lstrip()`/`.rstrip()`, `.format(...)`
    of known values, `sep.join([...])`, `textwrap.dedent(...)`, and names or PROMPTS entries set
    earlier in the file. Anything else raises _Unreadable."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (str, int, float, bool)) or node.value is None:
            return node.value
        raise _Unreadable("not a string")
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e, names, dicts) for e in node.elts]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                raise _Unreadable("an f-string with expressions in it")
            parts.append(part.value)
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _value(node.left, names, dicts), _value(node.right, names, dicts)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        if isinstance(left, list) and isinstance(right, list):
            return left + right
        raise _Unreadable("a `+` of values that are not both strings")
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise _Unreadable(f"the name {node.id} is not a string set earlier in the file")
    if isinstance(node, ast.Subscript):
        key = _target_key(node)
        if key is not None and key[1] in dicts.get(key[0], {}):
            return dicts[key[0]][key[1]]
        raise _Unreadable("a subscript of something not set earlier in the file")
    if isinstance(node, ast.Call):
        return _call(node, names, dicts)
    raise _Unreadable(f"an expression ({type(node).__name__})")


def _call(node: ast.Call, names: Mapping[str, Any], dicts: Mapping[str, Mapping[str, Any]]) -> Any:
    func = node.func
    if isinstance(func, ast.Attribute):
        if func.attr == "dedent" and isinstance(func.value, ast.Name) and func.value.id == "textwrap" \
                and len(node.args) == 1 and not node.keywords:
            text = _value(node.args[0], names, dicts)
            if isinstance(text, str):
                return textwrap.dedent(text)
        owner = _value(func.value, names, dicts)
        args = [_value(a, names, dicts) for a in node.args if not isinstance(a, ast.Starred)]
        if isinstance(owner, str):
            if func.attr in _STRIPS and not node.keywords and len(node.args) <= 1 and \
                    all(isinstance(a, str) or a is None for a in args):
                return _STRIPS[func.attr](owner, *args)
            if func.attr == "join" and len(args) == 1 and not node.keywords and isinstance(args[0], list) \
                    and all(isinstance(a, str) for a in args[0]):
                return owner.join(args[0])
            if func.attr == "replace" and len(args) == 2 and not node.keywords and all(isinstance(a, str) for a in args):
                return owner.replace(args[0], args[1])
            if func.attr == "format":
                return _format(owner, node, names, dicts)
        raise _Unreadable(f"a call of .{func.attr}()")
    if isinstance(func, ast.Name) and func.id == "dedent" and len(node.args) == 1 and not node.keywords:
        text = _value(node.args[0], names, dicts)
        if isinstance(text, str):
            return textwrap.dedent(text)
    raise _Unreadable(f"a call of {ast.unparse(func)}()")


def _format(text: str, node: ast.Call, names: Mapping[str, Any], dicts: Mapping[str, Mapping[str, Any]]) -> str:
    """`"...".format(...)` as Python computes it, for plain `{name}` / `{}` / `{0}` fields only; a
    field it leaves unfilled is what Python raises KeyError on, so the file itself would fail."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise _Unreadable("a .format() of *args or **kwargs")
    args = [_value(a, names, dicts) for a in node.args]
    kwargs = {k.arg: _value(k.value, names, dicts) for k in node.keywords if k.arg is not None}
    out: list[str] = []
    auto = 0
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        raise _Unreadable("a .format() of a string with unbalanced braces") from None
    for literal, field_name, spec, conversion in fields:
        out.append(literal)
        if field_name is None:
            continue
        if spec or conversion:
            raise _Unreadable(f"a .format() field {{{field_name}}} with a conversion or format spec")
        if field_name == "":
            index: int | str = auto
            auto += 1
        elif field_name.isdigit():
            index = int(field_name)
        elif field_name.isidentifier():
            index = field_name
        else:
            raise _Unreadable(f"a .format() field {{{field_name}}} that is not a plain name")
        if isinstance(index, int):
            if index >= len(args):
                raise _Unreadable(f"a .format() that leaves field {{{field_name}}} unfilled")
            value = args[index]
        elif index in kwargs:
            value = kwargs[index]
        else:
            raise _Unreadable(f"a .format() that leaves {{{field_name}}} unfilled")
        if not isinstance(value, (str, int, float)):
            raise _Unreadable(f"a .format() that fills {{{field_name}}} with a list")
        out.append(str(value))
    return "".join(out)


@dataclass(frozen=True)
class Skipped:
    """A PROMPTS entry the importer could not read: where, and why."""

    key: str
    line: int
    reason: str


def read_prompts_py(path: Path) -> tuple[dict[str, Any], dict[str, int], dict[str, Skipped]]:
    """The entries of the PROMPTS dict in a Python file that can be read without running it, their
    lines, and the entries that cannot (with line and reason). Assignments are read in file order,
    so an entry may use names and entries set above it."""
    source = universal_newlines(read_text(path, what="LightRAG prompt file", encoding="utf-8"))  # bounded
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise InputError(f"{path}:{exc.lineno or 1}: not valid Python: {exc.msg}") from None
    except ValueError:  # a NUL byte
        raise InputError(f"{path}: not valid Python (a NUL byte)") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to read") from None
    by_dict: dict[str, dict[str, Any]] = {}
    lines: dict[str, dict[str, int]] = {}
    skipped: dict[str, dict[str, Skipped]] = {}
    names: dict[str, Any] = {}

    def keep(name: str, entry: str, value: ast.expr, line: int, add: bool = False) -> None:
        try:
            result = _value(value, names, by_dict)
            if add:
                before = by_dict.get(name, {}).get(entry)
                if not (isinstance(before, str) and isinstance(result, str)):
                    raise _Unreadable("a `+=` onto an entry that was not read")
                result = before + result
        except (_Unreadable, RecursionError) as exc:
            reason = exc.reason if isinstance(exc, _Unreadable) else "nested too deeply"
            by_dict.get(name, {}).pop(entry, None)
            skipped.setdefault(name, {})[entry] = Skipped(entry, line, reason)
            return
        by_dict.setdefault(name, {})[entry] = result
        lines.setdefault(name, {})[entry] = line
        skipped.get(name, {}).pop(entry, None)

    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))]
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        value = node.value
        if value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            key = _target_key(target)
            if key is not None:
                keep(key[0], key[1], value, value.lineno, add=isinstance(node, ast.AugAssign))
            elif isinstance(target, ast.Name) and isinstance(value, ast.Dict) and not isinstance(node, ast.AugAssign):
                by_dict.setdefault(target.id, {})
                for k, v in zip(value.keys, value.values):
                    if isinstance(k, ast.Constant) and isinstance(k.value, str):
                        keep(target.id, k.value, v, v.lineno)
            elif isinstance(target, ast.Name) and not isinstance(node, ast.AugAssign):
                try:
                    names[target.id] = _value(value, names, by_dict)
                except (_Unreadable, RecursionError):
                    names.pop(target.id, None)
    markers = ("entity_extraction_user_prompt", "entity_extraction", "DEFAULT_TUPLE_DELIMITER")

    def known(name: str) -> set[str]:
        return set(by_dict.get(name, {})) | set(skipped.get(name, {}))

    ranked = sorted(set(by_dict) | set(skipped),
                    key=lambda n: (not any(m in known(n) for m in markers), n != "PROMPTS", n))
    if not ranked or not any(m in known(ranked[0]) for m in markers):
        raise InputError(f"{path}: no PROMPTS dict with LightRAG extraction prompts found")
    name = ranked[0]
    return by_dict.get(name, {}), lines.get(name, {}), skipped.get(name, {})


def _type_list(value: str) -> list[str]:
    value = value.strip()
    try:
        loaded = loads(value)  # the JSON policy: a 5,000-digit number is refused, not a traceback
        if isinstance(loaded, list):
            return [str(v).strip() for v in loaded if str(v).strip()]
    except ValueError:
        pass
    return [t.strip().strip("'\"") for t in value.strip("[]").split(",") if t.strip().strip("'\"")]


def find_prompt_file(root: Path) -> Path | None:
    if root.is_file():
        return root
    for name in PROMPT_FILES:
        if (root / name).is_file():
            return root / name
    for path in sorted(root.rglob("prompt.py")):
        if not any(part in SKIP_DIRS for part in path.relative_to(root).parts) and len(path.relative_to(root).parts) <= 3:
            return path
    return None


def _stated(call: ConstructorCall | None, keyword: str) -> Any:
    """A keyword argument of the project's LightRAG(...) call, an environment lookup resolved."""
    if call is None or keyword not in call.values:
        return None
    value = call.values[keyword]
    return value.resolved if isinstance(value, EnvRef) else value


def _read_env(folder: Path, environ: Mapping[str, str] | None) -> EnvSource:
    environment = os.environ if environ is None else environ
    dotenv = folder / ".env"
    values, lines = read_dotenv_lines(dotenv)  # one reading of the file: its values and their lines
    return EnvSource(project_env(values, environ), dotenv, lines, frozenset(environment))


def read_lightrag_project(root: Path, environ: Mapping[str, str] | None = None, *,
                          lightrag_version: str | None = None) -> LightRAGProject:
    """Read the setup's prompt.py, `.env`, `LightRAG(...)` call, working folder and inputs, and tell
    its release (`lightrag_version`, e.g. 1.4.6, names it); InputError names the file and line."""
    folder = root.parent if root.is_file() else root
    if not folder.is_dir():
        raise InputError(f"{root}: no such folder")
    source = _read_env(folder, environ)
    env = source.values
    project = LightRAGProject(root=folder, prompt_file=find_prompt_file(root), env=source)
    call, others = find_constructor(folder, env)
    project.constructor = call
    if call is not None:
        for other in others:
            project.notes.append(f"{other.where()}: another LightRAG(...) call, not read (the import reads {call.where()})")
        for keyword, reason in call.unread.items():
            if keyword in READ_KEYWORDS:  # llm_model_func and llm_model_kwargs: lightrag_settings names them
                project.notes.append(f"{call.where(keyword)}: {keyword} cannot be read ({reason}); LightRAG's "
                                     "default or environment value is used instead")
    if project.prompt_file is not None:
        project.prompts, project.prompt_lines, project.skipped = read_prompts_py(project.prompt_file)
    working_dir = _stated(call, "working_dir")
    working_dir = working_dir if isinstance(working_dir, str) and working_dir.strip() else env.get("WORKING_DIR", "")
    project.workdir = find_workdir(folder, working_dir.strip() or None)
    matched: StockPrompts | None = None
    if project.workdir is not None:
        project.chunks = read_chunks(project.workdir)
        cached = cached_extraction_prompts(project.workdir)
        if project.style is not None:
            project.filled = read_filled(cached, project.prompts)
        for stock in reversed(stock_prompts()):
            found = read_filled(cached, stock.prompts) if cached else None
            if found is not None:
                matched, project.filled = stock, project.filled or found
                break
    _settle_release(project, matched, lightrag_version)
    addon = _stated(call, "addon_params")
    if not isinstance(addon, dict):
        addon = addon_assignments(folder, env)
    filled = project.filled
    if isinstance(addon.get("entity_types"), list) and addon["entity_types"]:
        project.entity_types = [str(t) for t in addon["entity_types"]]
    elif env.get("ENTITY_TYPES", "").strip():
        project.entity_types = _type_list(env["ENTITY_TYPES"]) or project.entity_types
    elif filled is not None and filled.entity_types:
        project.entity_types = list(filled.entity_types)
    elif isinstance(project.prompts.get("DEFAULT_ENTITY_TYPES"), list):
        project.entity_types = [str(t) for t in project.prompts["DEFAULT_ENTITY_TYPES"]]
    if isinstance(addon.get("language"), str) and addon["language"].strip():
        project.language, project.language_stated = addon["language"].strip(), True
    elif env.get("SUMMARY_LANGUAGE", "").strip():
        project.language, project.language_stated = env["SUMMARY_LANGUAGE"].strip(), True
    elif filled is not None and filled.language:
        project.language, project.language_stated = filled.language, True
    elif isinstance(project.prompts.get("DEFAULT_LANGUAGE"), str):
        project.language, project.language_stated = project.prompts["DEFAULT_LANGUAGE"], True
    if env.get("LLM_MODEL", "").strip():
        project.model = env["LLM_MODEL"].strip()
    input_dir = env.get("INPUT_DIR", "").strip()
    project.input_dir = Path(input_dir) if input_dir and Path(input_dir).is_absolute() else folder / (input_dir or "inputs")
    for keyword, variable, attribute in (("chunk_token_size", "CHUNK_SIZE", "chunk_size"),
                                         ("chunk_overlap_token_size", "CHUNK_OVERLAP_SIZE", "chunk_overlap")):
        stated = _stated(call, keyword)
        if isinstance(stated, int) and not isinstance(stated, bool):
            setattr(project, attribute, stated)
        elif env.get(variable, "").strip().isdigit():
            setattr(project, attribute, int(env[variable].strip()))
    tokenizer = _stated(call, "tiktoken_model_name")
    if isinstance(tokenizer, str) and tokenizer.strip():
        project.tokenizer_model = tokenizer.strip()
    return project


def _settle_release(project: LightRAGProject, matched: StockPrompts | None, option: str | None) -> None:
    """The release the project runs (lightrag_release.py), and the stock prompt of the `default`
    variant: the cached one's release, else the shipped one nearest the release."""
    release = Release(parse_release(option, "--lightrag-version"), "--lightrag-version") if option else \
        pinned_release(project.root)
    shipped = stock_prompts()
    if matched is not None:
        project.stock = matched
        project.stock_reason = "its cached extraction prompts are that release's stock prompt"
        if release is None:
            release = Release(tuple(matched.key), f"the working folder's cached extraction prompts are LightRAG "
                                                  f"{matched.version}'s stock prompt")
        elif _generation(release.version) != matched.style:
            project.notes.append(f"{release.source}, but the working folder's cached extraction prompts are LightRAG "
                                 f"{matched.version}'s stock prompt: another release made that folder")
    if release is None:
        style = project.style or "new"
        project.stock = newest_stock(style)
        project.stock_reason = (f"the newest the harness ships of the {_shown(style)} prompts of prompt.py"
                                if project.style else "no cached stock prompt tells the version; the newest the harness ships")
        release = Release(tuple(project.stock.key), "assumed: no --lightrag-version, no pin of lightrag-hku and no "
                          f"cached stock prompt tell it; {project.stock_reason}", assumed=True)
    elif project.stock is None:
        generation = _generation(release.version)
        same = [s for s in shipped if s.style == generation]
        older = [s for s in same if s.key <= release.version]
        project.stock = (older[-1] if older else same[0]) if same else shipped[-1]
        project.stock_reason = (f"the project's release: {release.source}" if project.stock.key == release.version else
                                f"the shipped release nearest LightRAG {release.label} ({release.source}), whose own "
                                "stock prompt the harness does not ship")
    if project.style is not None and project.style != _generation(release.version):
        project.notes.append(f"{project.prompt_file}: holds the {_shown(project.style)} prompts, but LightRAG "
                             f"{release.label} reads the {_shown(_generation(release.version))} ones")
    project.release = release


def _generation(version: tuple[int, ...]) -> str:
    """LightRAG's prompt generation: `new` (system + user prompts) from 1.4.8, `old` before."""
    return "new" if version >= (1, 4, 8) else "old"


def _shown(style: str) -> str:
    return ">= 1.4.8" if style == "new" else "<= 1.4.7"


# --------------------------------------------------------------------------- the template


def _text(project: LightRAGProject, key: str) -> str | None:
    value = project.prompts.get(key)
    return value if isinstance(value, str) else None


def _origin(project: LightRAGProject, key: str) -> str:
    line = project.prompt_lines.get(key)
    return f"{project.prompt_file}:{line}" if line else str(project.prompt_file)


def template_data(project: LightRAGProject, *, name: str | None = None, description: str | None = None) -> dict[str, Any]:
    """The project's extraction prompts as a YAML template (see yaml_template)."""
    values = {
        "tuple_delimiter": project.tuple_delimiter,
        "completion_delimiter": project.completion_delimiter,
        "entity_types": ",".join(project.entity_types),
        "language": project.language,
    }
    if project.record_delimiter is not None:
        values["record_delimiter"] = project.record_delimiter
    data: dict[str, Any] = {
        "name": name or f"{safe_name(project.root.resolve().name, 'lightrag')}-extract",
        "version": "imported",
        "description": description or f"Imported from {project.prompt_file} ({'LightRAG >= 1.4.8' if project.style == 'new' else 'LightRAG <= 1.4.7'} prompts)",
        "kind": "lightrag.entity_extraction",
        "format": "lightrag",
        "language": project.language,
        # no `entity_types:` here: LightRAG fills {entity_types} from its settings, which the suite carries
        "tuple_delimiter": project.tuple_delimiter,
        "completion_delimiter": project.completion_delimiter,
    }
    if project.record_delimiter is not None:
        data["record_delimiter"] = project.record_delimiter
    if project.style == "new":
        system = _text(project, "entity_extraction_system_prompt")
        if system is not None:
            data["system"] = system
        data["user"] = _text(project, "entity_extraction_user_prompt")
        continue_key, loop_key = "entity_continue_extraction_user_prompt", "entity_if_loop_extraction"
    else:
        data["user"] = _text(project, "entity_extraction")
        continue_key, loop_key = "entity_continue_extraction", "entity_if_loop_extraction"
    # gleaning sends these as stored, so their placeholders are filled with the project's values now
    for key, target in ((continue_key, "continue_prompt"), (loop_key, "loop_prompt")):
        text = _text(project, key)
        if text is not None:
            data[target] = _unescape(partial_fill(text, values))
    examples = project.prompts.get("entity_extraction_examples")
    if isinstance(examples, list) and all(isinstance(e, str) for e in examples):
        data["examples"] = [{"block": example} for example in examples]
        data["example_separator"] = "\n"
        data["example_block_ends"] = "keep"  # "\n".join(examples), as LightRAG sends them
    return data


def _unescape(text: str) -> str:
    """After filling, `{{`/`}}` are what str.format would have turned into single braces."""
    return text.replace("{{", "{").replace("}}", "}")


def _template_types(draft: SuiteDraft, project: LightRAGProject) -> list[str]:
    """The entity types the imported template is filled with: the setup's, through {entity_types},
    unless its text never uses them (then the types written in it, if any)."""
    from ..prompts.entity_types import effective_entity_types
    from ..prompts.yaml_template import load_yaml_text

    for path, content in draft.files.items():
        if path.suffix == ".yaml":
            try:
                template = load_yaml_text(content, str(path), strict=False)
            except InputError:
                return list(project.entity_types)  # the written suite fails to load and says why
            return effective_entity_types(template, variant=None, suite=project.entity_types).values
    return list(project.entity_types)


def _with_prompts(project: LightRAGProject, prompts: dict[str, Any]) -> LightRAGProject:
    """The project's settings (types, language) with other PROMPTS: a stock release's."""
    from dataclasses import replace

    return replace(project, prompts=prompts, prompt_lines={}, skipped={})


def _gleaning_gaps(project: LightRAGProject, data: dict[str, Any], draft: SuiteDraft) -> None:
    """A project prompt.py whose continue (or loop) prompt cannot be read or is missing gleans with
    the stock one of the same LightRAG release, and the import says so with its line."""
    stock = project.stock
    if stock is None:
        return
    keys = (("entity_continue_extraction_user_prompt", "continue_prompt", None) if project.style == "new" else
            ("entity_continue_extraction", "continue_prompt", None))
    pairs = [keys] + ([("entity_if_loop_extraction", "loop_prompt", None)] if project.style == "old" else [])
    stock_data = template_data(_with_prompts(project, stock.prompts))
    for key, target, _ in pairs:
        if target in data:
            continue
        skipped = project.skipped.get(key)
        where = f"{project.prompt_file}:{skipped.line}" if skipped else str(project.prompt_file)
        why = f"cannot be read ({skipped.reason})" if skipped else "is not set"
        if target in stock_data:
            data[target] = stock_data[target]
            draft.warnings.append(f"{where}: PROMPTS[{key!r}] {why}; the project variant gleans with "
                                  f"LightRAG {stock.version}'s stock {target.replace('_', ' ')} instead")
        else:
            draft.warnings.append(f"{where}: PROMPTS[{key!r}] {why}")


def _stock_template(project: LightRAGProject, where: Any, draft: SuiteDraft, *, examples: str | None = None) -> str:
    """Write the stock extraction prompt of the project's LightRAG release (or, with `examples`,
    that prompt with the examples the project's cache shows) as a YAML template; its path."""
    stock = project.stock
    assert stock is not None
    prompts = dict(stock.prompts)
    if examples is not None:
        prompts["entity_extraction_examples"] = [escape(examples)]
    suffix = "" if examples is None else "-cached-examples"
    data = template_data(
        _with_prompts(project, prompts), name=f"lightrag-{stock.version}-stock{suffix}",
        description=(f"LightRAG {stock.version}'s stock extraction prompt (lightrag/prompt.py, MIT, "
                     "Copyright (c) 2025 LightRAG Team)" + ("" if examples is None else
                     ", with the examples the working folder's cached prompts were filled with")))
    target = where.root / "prompts" / where.suite_name / f"lightrag-{stock.version}-stock{suffix}.yaml"
    draft.files[target] = (
        f"# LightRAG {stock.version}'s stock extraction prompt, as lightrag-hku=={stock.version} ships it in\n"
        "# lightrag/prompt.py (MIT License, Copyright (c) 2025 LightRAG Team, https://github.com/HKUDS/LightRAG).\n"
        + ("" if examples is None else "# Its examples are those of the working folder's cached extraction prompts.\n")
        + dump_yaml(data))
    return relative_path(target, where.root)


def _variant(path: str, tuple_delimiter: str, completion: str, record: str | None) -> dict[str, Any]:
    variant: dict[str, Any] = {"prompt": path, "format": "lightrag", "tuple_delimiter": tuple_delimiter,
                               "completion_delimiter": completion}
    if record is not None:
        variant["record_delimiter"] = record
    return variant


def lightrag_draft(
    project: LightRAGProject, out: Path, *, name: str | None = None, max_cases: int = DEFAULT_MAX_CASES
) -> SuiteDraft:
    where = destination(project, out, name=name, max_cases=max_cases)
    variants: dict[str, dict[str, Any]] = {}
    # read here, not with the project: lint and --cache read projects whose endpoint a suite could not call
    release = project.release or Release(tuple(newest_stock().key), "assumed", assumed=True)
    engine = engine_model(project.env or _read_env(project.root, {}), project.constructor, release)
    draft = SuiteDraft(
        name=where.suite_name,
        description=f"LightRAG setup {project.root.resolve().name}: its extraction prompts against LightRAG's stock prompt",
        notes="",
        language=project.language,
        language_stated=project.language_stated,
        entity_types=project.entity_types,
        model={"name": where.model, **engine.block},
        variants=variants,
        baseline="default",
        engine=release.engine,
    )
    draft.warnings.extend(project.notes)
    draft.warnings.extend(engine.warnings)
    draft.warnings.append(f"engine: {release.engine} ({release.source})"
                          + (" (--lightrag-version X.Y.Z names it)" if release.assumed or "cached" in release.source else ""))
    stock = project.stock or newest_stock()
    stock_project = _with_prompts(project, stock.prompts)
    if project.style is not None:
        data = template_data(project)
        if not data.get("user"):
            raise InputError(f"{_origin(project, 'entity_extraction_user_prompt')}: the extraction prompt is not a literal string")
        _gleaning_gaps(project, data, draft)
        target = where.root / "prompts" / where.suite_name / "extract_graph.yaml"
        draft.files[target] = (
            f"# Imported by `harness import lightrag` from {project.prompt_file}.\n"
            "# Edit here, or re-import after changing prompt.py.\n" + dump_yaml(data)
        )
        variants["project"] = _variant(relative_path(target, where.root), project.tuple_delimiter,
                                       project.completion_delimiter, project.record_delimiter)
    elif project.filled is not None and not has_stock_examples(project.filled, stock):
        path = _stock_template(project, where, draft, examples=project.filled.examples)
        variants["project"] = _variant(path, stock_project.tuple_delimiter, stock_project.completion_delimiter,
                                       stock_project.record_delimiter)
    elif project.workdir is None:
        draft.warnings.append("no LightRAG prompt.py with extraction prompts found; the suite has only LightRAG's stock prompt")
    for key, skipped in project.skipped.items():
        draft.warnings.append(f"{project.prompt_file}:{skipped.line}: PROMPTS[{key!r}] cannot be read "
                              f"({skipped.reason}) and was not imported")
    variants["default"] = _variant(_stock_template(project, where, draft), stock_project.tuple_delimiter,
                                   stock_project.completion_delimiter, stock_project.record_delimiter)
    draft.warnings.append(f"default variant: LightRAG {stock.version}'s stock prompt ({project.stock_reason})")
    draft.notes = (
        f"Imported from the LightRAG setup at {relative_path(project.root, where.root)}"
        + (f" (prompts: {relative_path(project.prompt_file, where.root)})" if project.prompt_file else "")
        + (f" (working folder: {relative_path(project.workdir, where.root)})" if project.workdir else "")
        + f". The default variant is LightRAG {stock.version}'s stock prompt."
        + " Gold is empty: list the entities and relationships of every case before trusting scores."
    )
    draft.thresholds = reference_free_thresholds(
        {name: name != "project" or bool(_template_types(draft, project)) for name in variants})
    if project.chunks is not None:
        _chunk_cases(project.chunks, where, draft, f"{project.workdir}/kv_store_text_chunks.json")
        return draft
    files = find_files(project.input_dir, re.compile(r".*"), suffixes=(".txt", ".md")) if project.input_dir else []
    documents: list[tuple[str, str]] = []
    for document in files:
        if outside_project(document, project.root, draft.warnings):  # a link out of the imported setup
            continue
        try:  # bounded, regular files only; as text mode reads it (newlines translated, a BOM kept)
            text = read_text(document, limit=MAX_DOCUMENT_BYTES, what="input file", encoding="utf-8")
            documents.append((document.name, universal_newlines(text)))
        except InputError as exc:
            draft.warnings.append(f"{exc.message}: skipped")
    chunks = chunk_like_lightrag(documents, project.chunk_size, project.chunk_overlap, project.tokenizer_model)
    _chunk_cases(chunks, where, draft, f"the inputs cut as LightRAG cuts them ({project.chunk_size} tokens of "
                                       f"{project.tokenizer_model}'s encoding, overlap {project.chunk_overlap})")
    return draft


def _chunk_cases(chunks: list[Chunk], where: Any, draft: SuiteDraft, origin: str) -> None:
    """One case per chunk, in LightRAG's order, the chunk id kept as `source_id`; case ids are the
    document's name and the chunk's number (`harbour-2`)."""
    from .language import settle_language

    taken = chunks[: where.max_cases]
    if len(chunks) > where.max_cases:
        draft.warnings.append(f"{len(chunks)} chunks in {origin}; the suite takes the first {where.max_cases} (--limit N for more)")
    seen: set[str] = set()
    for chunk in taken:
        base = safe_name(f"{Path(chunk.document).stem}-{chunk.order + 1}")
        case_id, n = base, 1
        while case_id in seen:
            n += 1
            case_id = f"{base[:90]}-{n}"
        seen.add(case_id)
        target = where.root / "fixtures" / "chunks" / where.suite_name / f"{case_id}.txt"
        draft.files[target] = chunk.text
        draft.cases.append({"id": case_id, "chunk": relative_path(target, where.root), "source_id": chunk.id,
                            "entities": [], "relationships": []})
    if not taken:
        document_cases([], where, draft)
        return
    settle_language(draft, (chunk.text for chunk in taken))
