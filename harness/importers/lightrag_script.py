"""What a LightRAG project states in its own Python: the keyword arguments of its `LightRAG(...)`
call, read with `ast`, never executed.

A value is read where the file alone says it: a literal; a module-level name bound to one; an
environment lookup (`os.getenv("X", default)`, `os.environ.get(...)`, `os.environ["X"]`, `getenv`
imported from os), looked up in the project's `.env` and environment as LightRAG's own
`load_dotenv(override=False)` would, and kept as an `EnvRef` so that a key stays a variable's name;
`int()`, `float()` and `str()` of those; lists and dicts of them. `llm_model_func` is read as the
module and name it was imported from (`from lightrag.llm.openai import gpt_4o_mini_complete`), or
as the project's own function. Any other value is named with its line and left out.

The first `LightRAG(...)` call of the project's Python files (the folder's own, then one level
down, in name order) is the one read; others are named in a warning.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..inputfiles import read_text
from .common import SKIP_DIRS

ENV_FUNCTIONS = {"os.getenv", "os.environ.get", "getenv", "environ.get"}
CASTS = {"int": int, "float": float, "str": str}


@dataclass(frozen=True)
class EnvRef:
    """An environment lookup in a script: the variable, the value the project's `.env` or the
    environment gives it (None when unset), and the script's default."""

    name: str
    value: str | None
    default: Any = None

    @property
    def resolved(self) -> Any:
        return self.value if self.value is not None else self.default


@dataclass(frozen=True)
class FuncRef:
    """A function named in a script: the module it was imported from (None: the project's own, or
    imported from where the file does not say), and its name there."""

    module: str | None
    name: str

    @property
    def label(self) -> str:
        return f"{self.module}.{self.name}" if self.module else self.name


@dataclass
class ConstructorCall:
    """One `LightRAG(...)` call: its readable keyword arguments, and the others with the reason."""

    path: Path
    line: int
    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    unread: dict[str, str] = field(default_factory=dict)

    def where(self, keyword: str | None = None) -> str:
        line = self.lines.get(keyword or "", self.line)
        return f"{self.path}:{line}"


class _Unreadable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Scope:
    """What a file binds at module level: literal names, imported functions and modules."""

    env: Mapping[str, str]
    names: dict[str, Any] = field(default_factory=dict)
    functions: dict[str, FuncRef] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)  # alias -> module


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else None
    return None


def _value(node: ast.expr, scope: _Scope) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e, scope) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise _Unreadable("a dict whose keys are not strings written out")
            out[key.value] = _value(value, scope)
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _value(node.operand, scope)
        if isinstance(operand, (int, float)) and not isinstance(operand, bool):
            return -operand
        raise _Unreadable("a minus of something that is not a number")
    if isinstance(node, ast.Name):
        if node.id in scope.names:
            return scope.names[node.id]
        if node.id in scope.functions:
            return scope.functions[node.id]
        raise _Unreadable(f"the name {node.id} is not bound to a value in the file")
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        if owner in scope.modules:
            return FuncRef(scope.modules[owner], node.attr)
        raise _Unreadable(f"{ast.unparse(node)}, which the file alone does not say")
    if isinstance(node, ast.Subscript) and _dotted(node.value) in ("os.environ", "environ"):
        key = _value(node.slice, scope)
        if isinstance(key, str):
            return EnvRef(key, scope.env.get(key))
    if isinstance(node, ast.Call):
        return _call(node, scope)
    raise _Unreadable(f"an expression ({type(node).__name__})")


def _call(node: ast.Call, scope: _Scope) -> Any:
    name = _dotted(node.func)
    if name in ENV_FUNCTIONS and 1 <= len(node.args) <= 2 and not node.keywords:
        key = _value(node.args[0], scope)
        if isinstance(key, str):
            default = _value(node.args[1], scope) if len(node.args) == 2 else None
            return EnvRef(key, scope.env.get(key), default)
    if name in CASTS and len(node.args) == 1 and not node.keywords:
        inner = _value(node.args[0], scope)
        value = inner.resolved if isinstance(inner, EnvRef) else inner
        try:
            return CASTS[name](value)
        except (TypeError, ValueError):
            raise _Unreadable(f"{name}() of {value!r}") from None
    raise _Unreadable(f"a call of {ast.unparse(node.func)}()")


def _bind_imports(tree: ast.Module, scope: _Scope) -> None:
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                bound = alias.asname or alias.name
                scope.functions[bound] = FuncRef(node.module, alias.name)
                scope.modules[bound] = f"{node.module}.{alias.name}"  # `from lightrag.llm import openai`
        elif isinstance(node, ast.Import):
            for alias in node.names:
                scope.modules[alias.asname or alias.name] = alias.name
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope.functions[node.name] = FuncRef(None, node.name)


def _is_lightrag(node: ast.Call, scope: _Scope) -> bool:
    """`LightRAG(...)`, `lightrag.LightRAG(...)`, or a name LightRAG was imported as."""
    name = _dotted(node.func)
    if name is None:
        return False
    imported = scope.functions.get(name)
    return name == "LightRAG" or name.endswith(".LightRAG") or (imported is not None and imported.name == "LightRAG")


def _calls_in(path: Path, env: Mapping[str, str]) -> list[ConstructorCall]:
    try:  # bounded, regular files only (harness/inputfiles.py)
        tree = ast.parse(read_text(path, what="Python file", encoding="utf-8"), filename=str(path))
    except (InputError, SyntaxError, ValueError, RecursionError):
        return []
    scope = _Scope(env)
    _bind_imports(tree, scope)
    for statement in tree.body:  # module-level names bound to values, in file order
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            try:
                scope.names[statement.targets[0].id] = _value(statement.value, scope)
            except (_Unreadable, RecursionError):
                scope.names.pop(statement.targets[0].id, None)
    calls: list[ConstructorCall] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_lightrag(node, scope)):
            continue
        call = ConstructorCall(path, node.lineno)
        for keyword in node.keywords:
            if keyword.arg is None:
                call.unread["**"] = "keyword arguments unpacked from a dict"
                continue
            call.lines[keyword.arg] = keyword.value.lineno
            try:
                call.values[keyword.arg] = _value(keyword.value, scope)
            except (_Unreadable, RecursionError) as exc:
                call.unread[keyword.arg] = exc.reason if isinstance(exc, _Unreadable) else "nested too deeply"
        calls.append(call)
    return sorted(calls, key=lambda c: c.line)


def python_files(root: Path) -> list[Path]:
    """The project's own Python files: its folder's, then one level down (not a vendored copy of
    LightRAG's package, nor environments and build folders)."""
    found: list[Path] = []
    for path in sorted(root.glob("*.py")) + sorted(root.glob("*/*.py")):
        parts = path.relative_to(root).parts
        if any(part in SKIP_DIRS or part.startswith(".") for part in parts[:-1]) or parts[0] == "lightrag":
            continue
        found.append(path)
    return found


def find_constructor(root: Path, env: Mapping[str, str]) -> tuple[ConstructorCall | None, list[ConstructorCall]]:
    """The project's `LightRAG(...)` call that is read, and the other calls found (not read)."""
    calls = [call for path in python_files(root) for call in _calls_in(path, env)]
    return (calls[0] if calls else None), calls[1:]


def addon_assignments(root: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """`addon_params` written as its own literal (`addon_params = {...}`, or passed to something
    other than `LightRAG(...)`) in the project's files: `language` and `entity_types`."""
    found: dict[str, Any] = {}
    for path in sorted(root.glob("*.py")) + sorted(root.glob("*/*.py")):
        if any(part in SKIP_DIRS for part in path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(read_text(path, what="Python file", encoding="utf-8"))
        except (InputError, SyntaxError, ValueError, RecursionError):
            continue
        scope = _Scope(env)
        for node in ast.walk(tree):
            value: ast.expr | None = None
            if isinstance(node, ast.keyword) and node.arg == "addon_params":
                value = node.value
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "addon_params"
                                                      for t in node.targets):
                value = node.value
            if isinstance(value, ast.Dict):
                try:
                    literal = _value(value, scope)
                except (_Unreadable, RecursionError):
                    continue
                found.update({k: v for k, v in literal.items() if k in ("entity_types", "language")})
    return found
