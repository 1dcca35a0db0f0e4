"""Import a LightRAG setup: the PROMPTS dict of its prompt.py, its `.env`, and its input folder.

The prompt file is read with `ast`, never executed: only literal strings and lists of strings
assigned into a `PROMPTS`-like dict are taken. Two generations are understood:

- LightRAG >= 1.4.8: `entity_extraction_system_prompt` + `entity_extraction_user_prompt`,
  `entity_continue_extraction_user_prompt`, one record per line, DEFAULT_TUPLE_DELIMITER `<|#|>`.
- LightRAG <= 1.4.7: `entity_extraction` (one user prompt), `entity_continue_extraction`,
  `entity_if_loop_extraction`, GraphRAG-style tuples with `<|>` and `##`.

Entity types come from `addon_params` in the project's Python files, then ENTITY_TYPES in the
environment or `.env`, then PROMPTS["DEFAULT_ENTITY_TYPES"]; the language from
`addon_params["language"]`, SUMMARY_LANGUAGE, then PROMPTS["DEFAULT_LANGUAGE"].
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...names import safe_name
from ..builtin import PREFIX
from ..syntax import partial_fill
from .common import (
    DEFAULT_MAX_CASES,
    SKIP_DIRS,
    SuiteDraft,
    chunk_cases,
    destination,
    dump_yaml,
    find_files,
    read_dotenv,
    reference_free_thresholds,
    relative_path,
)

PROMPT_FILES = ("prompt.py", "lightrag/prompt.py", "prompts.py", "prompts/prompt.py")
DEFAULT_ENTITY_TYPES = ["person", "organization", "location", "event", "concept"]
BUILTIN_DEFAULT = f"{PREFIX}lightrag.extract_graph"
NEW_TUPLE = "<|#|>"


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
    skipped: list[str] = field(default_factory=list)  # PROMPTS keys that were not literals

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


def _target_key(node: ast.expr) -> tuple[str, str] | None:
    """`PROMPTS["key"]` -> ("PROMPTS", "key")."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return node.value.id, key.value
    return None


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _joined(node)


def _joined(node: ast.expr) -> Any:
    """`"a" + "b"` and `"\n".join([...])` of literals, which prompt files use."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    raise ValueError("not a literal")


def read_prompts_py(path: Path) -> tuple[dict[str, Any], dict[str, int], list[str]]:
    """Literal entries of the PROMPTS dict in a Python file, their lines, and the keys skipped."""
    try:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from None
    except SyntaxError as exc:
        raise InputError(f"{path}:{exc.lineno or 1}: not valid Python: {exc.msg}") from None
    by_dict: dict[str, dict[str, Any]] = {}
    lines: dict[str, dict[str, int]] = {}
    skipped: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            if value is None:
                continue
            for target in targets:
                key = _target_key(target)
                if key is not None:
                    name, entry = key
                    try:
                        by_dict.setdefault(name, {})[entry] = _literal(value)
                        lines.setdefault(name, {})[entry] = value.lineno
                    except ValueError:
                        skipped.setdefault(name, []).append(entry)
                elif isinstance(target, ast.Name) and isinstance(value, ast.Dict):
                    for k, v in zip(value.keys, value.values):
                        if isinstance(k, ast.Constant) and isinstance(k.value, str):
                            try:
                                by_dict.setdefault(target.id, {})[k.value] = _literal(v)
                                lines.setdefault(target.id, {})[k.value] = v.lineno
                            except ValueError:
                                skipped.setdefault(target.id, []).append(k.value)
    markers = ("entity_extraction_user_prompt", "entity_extraction", "DEFAULT_TUPLE_DELIMITER")
    ranked = sorted(by_dict, key=lambda n: (not any(m in by_dict[n] for m in markers), n != "PROMPTS", n))
    if not ranked or not any(m in by_dict[ranked[0]] for m in markers):
        raise InputError(f"{path}: no PROMPTS dict with LightRAG extraction prompts found")
    name = ranked[0]
    return by_dict[name], lines.get(name, {}), skipped.get(name, [])


def _addon_params(root: Path) -> dict[str, Any]:
    """`addon_params={...}` literals in the project's Python files (two levels deep at most)."""
    found: dict[str, Any] = {}
    for path in sorted(root.glob("*.py")) + sorted(root.glob("*/*.py")):
        if any(part in SKIP_DIRS for part in path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError):
            continue
        for node in ast.walk(tree):
            value: ast.expr | None = None
            if isinstance(node, ast.keyword) and node.arg == "addon_params":
                value = node.value
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "addon_params" for t in node.targets):
                value = node.value
            if isinstance(value, ast.Dict):
                try:
                    literal = ast.literal_eval(value)
                except (ValueError, SyntaxError):
                    continue
                if isinstance(literal, dict):
                    found.update({k: v for k, v in literal.items() if k in ("entity_types", "language")})
    return found


def _type_list(value: str) -> list[str]:
    value = value.strip()
    try:
        loaded = json.loads(value)
        if isinstance(loaded, list):
            return [str(v).strip() for v in loaded if str(v).strip()]
    except json.JSONDecodeError:
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


def read_lightrag_project(root: Path, environ: Mapping[str, str] | None = None) -> LightRAGProject:
    folder = root.parent if root.is_file() else root
    if not folder.is_dir():
        raise InputError(f"{root}: no such folder")
    env = {**read_dotenv(folder / ".env"), **(os.environ if environ is None else environ)}
    project = LightRAGProject(root=folder, prompt_file=find_prompt_file(root))
    if project.prompt_file is not None:
        project.prompts, project.prompt_lines, project.skipped = read_prompts_py(project.prompt_file)
    addon = _addon_params(folder)
    if isinstance(addon.get("entity_types"), list) and addon["entity_types"]:
        project.entity_types = [str(t) for t in addon["entity_types"]]
    elif env.get("ENTITY_TYPES", "").strip():
        project.entity_types = _type_list(env["ENTITY_TYPES"]) or project.entity_types
    elif isinstance(project.prompts.get("DEFAULT_ENTITY_TYPES"), list):
        project.entity_types = [str(t) for t in project.prompts["DEFAULT_ENTITY_TYPES"]]
    if isinstance(addon.get("language"), str) and addon["language"].strip():
        project.language, project.language_stated = addon["language"].strip(), True
    elif env.get("SUMMARY_LANGUAGE", "").strip():
        project.language, project.language_stated = env["SUMMARY_LANGUAGE"].strip(), True
    elif isinstance(project.prompts.get("DEFAULT_LANGUAGE"), str):
        project.language, project.language_stated = project.prompts["DEFAULT_LANGUAGE"], True
    if env.get("LLM_MODEL", "").strip():
        project.model = env["LLM_MODEL"].strip()
    input_dir = env.get("INPUT_DIR", "").strip()
    project.input_dir = Path(input_dir) if input_dir and Path(input_dir).is_absolute() else folder / (input_dir or "inputs")
    if env.get("CHUNK_SIZE", "").strip().isdigit():
        project.chunk_size = int(env["CHUNK_SIZE"].strip())
    return project


# --------------------------------------------------------------------------- the template


def _text(project: LightRAGProject, key: str) -> str | None:
    value = project.prompts.get(key)
    return value if isinstance(value, str) else None


def _origin(project: LightRAGProject, key: str) -> str:
    line = project.prompt_lines.get(key)
    return f"{project.prompt_file}:{line}" if line else str(project.prompt_file)


def template_data(project: LightRAGProject) -> dict[str, Any]:
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
        "name": f"{safe_name(project.root.resolve().name, 'lightrag')}-extract",
        "version": "imported",
        "description": f"Imported from {project.prompt_file} ({'LightRAG >= 1.4.8' if project.style == 'new' else 'LightRAG <= 1.4.7'} prompts)",
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
    return data


def _unescape(text: str) -> str:
    """After filling, `{{`/`}}` are what str.format would have turned into single braces."""
    return text.replace("{{", "{").replace("}}", "}")


def _template_types(draft: SuiteDraft, project: LightRAGProject) -> list[str]:
    """The entity types the imported template is filled with: the setup's, through {entity_types},
    unless its text never uses them (then the types written in it, if any)."""
    from ..entity_types import effective_entity_types
    from ..yaml_template import load_yaml_text

    for path, content in draft.files.items():
        if path.suffix == ".yaml":
            try:
                template = load_yaml_text(content, str(path), strict=False)
            except InputError:
                return list(project.entity_types)  # the written suite fails to load and says why
            return effective_entity_types(template, variant=None, suite=project.entity_types).values
    return list(project.entity_types)


def lightrag_draft(
    project: LightRAGProject, out: Path, *, name: str | None = None, max_cases: int = DEFAULT_MAX_CASES
) -> SuiteDraft:
    where = destination(project, out, name=name, max_cases=max_cases)
    variants: dict[str, dict[str, Any]] = {}
    draft = SuiteDraft(
        name=where.suite_name,
        description=f"LightRAG setup {project.root.resolve().name}: its extraction prompts against the built-in default",
        notes="",
        language=project.language,
        language_stated=project.language_stated,
        entity_types=project.entity_types,
        model={"name": where.model, "temperature": 0, "max_gleanings": 1},
        variants=variants,
        baseline="default",
    )
    if project.style is not None:
        data = template_data(project)
        if not data.get("user"):
            raise InputError(f"{_origin(project, 'entity_extraction_user_prompt')}: the extraction prompt is not a literal string")
        target = where.root / "prompts" / where.suite_name / "extract_graph.yaml"
        draft.files[target] = (
            f"# Imported by `harness import lightrag` from {project.prompt_file}.\n"
            "# Edit here, or re-import after changing prompt.py.\n" + dump_yaml(data)
        )
        variant: dict[str, Any] = {
            "prompt": relative_path(target, where.root),
            "format": "lightrag",
            "tuple_delimiter": project.tuple_delimiter,
            "completion_delimiter": project.completion_delimiter,
        }
        if project.record_delimiter is not None:
            variant["record_delimiter"] = project.record_delimiter
        variants["project"] = variant
    else:
        draft.warnings.append("no LightRAG prompt.py with extraction prompts found; the suite has only the built-in default")
    for key in project.skipped:
        draft.warnings.append(f"{_origin(project, key)}: PROMPTS[{key!r}] is not a literal and was not imported")
    variants["default"] = {"prompt": BUILTIN_DEFAULT, "format": "lightrag", "tuple_delimiter": NEW_TUPLE,
                           "completion_delimiter": "<|COMPLETE|>"}
    draft.notes = (
        f"Imported from the LightRAG setup at {relative_path(project.root, where.root)}"
        + (f" (prompts: {relative_path(project.prompt_file, where.root)})" if project.prompt_file else "")
        + ". Gold is empty: list the entities and relationships of every case before trusting scores."
    )
    draft.thresholds = reference_free_thresholds(
        {name: name != "project" or bool(_template_types(draft, project)) for name in variants})
    files = find_files(project.input_dir, re.compile(r".*"), suffixes=(".txt", ".md")) if project.input_dir else []
    chunk_cases(files, where, draft)
    return draft
