"""The import graph among a package's modules, read from the source (tests/test_architecture.py keeps
it free of cycles; scripts/layers.py measures its floors and the arrows that run back up).

The import graph is read from the source with `ast`, not from `sys.modules`, so that it sees every
import a module can make, including the ones that run only on some paths. It counts:

- imports at module level, inside functions and classes, and under `if TYPE_CHECKING:`: a
  function-level import that closes a cycle only delays the cycle to the first call, and an
  annotation-only import becomes a runtime one as soon as pydantic or `typing.get_type_hints`
  resolves the annotation; either way the two modules know about each other;
- `from pkg import name` as an edge to `pkg.name` when that is a module, else to `pkg` itself
  (its `__init__`), which is what Python imports; a child importing its parent package's names
  (`from .. import x`) therefore depends on the parent's `__init__`;
- string imports: `importlib.import_module("...")` with a literal name. The lazy package facades
  (`harness.lazy_exports.lazy_facade`) load what their `if TYPE_CHECKING:` block imports, so
  counting that block counts the facades' edges too.

It does not count the implicit import of a package's `__init__` that Python makes before any of
its submodules (every submodule would then be in a cycle with a parent that re-exports it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path



@dataclass
class ImportGraph:
    """Modules of one package (dotted names) and, for each, the package modules it imports."""

    modules: dict[str, Path]
    edges: dict[str, set[str]] = field(default_factory=dict)


def package_modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> source file, for every `.py` file under the package folder `root`."""
    modules: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _absolute(module: str, is_package: bool, target: str | None, level: int) -> str:
    """The absolute name of `target` imported with `level` leading dots from `module`."""
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([target] if target else [])])


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The package module `name` lands in: itself, or the nearest enclosing package module."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _string_value(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _relative(module: str, is_package: bool, name: str) -> str:
    """`name` as `importlib.import_module(name, package)` reads it, `package` being `module`'s own."""
    level = len(name) - len(name.lstrip("."))
    return _absolute(module, is_package, name.lstrip(".") or None, level)


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules `module` (source at `path`) imports, by statement or by string."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = _is_package(path)
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.module, node.level)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                names.append(submodule if submodule in modules else base)
        elif isinstance(node, ast.Call) and _call_name(node) == "import_module" and node.args:
            literal = _string_value(node.args[0])
            if literal is not None:
                names.append(_relative(module, is_package, literal))
    found = {_known(name, modules) for name in names}
    return {target for target in found if target is not None and target != module}


def build_graph(root: Path) -> ImportGraph:
    """The import graph among the modules of the package folder `root`."""
    graph = ImportGraph(package_modules(root))
    for module, path in graph.modules.items():
        graph.edges[module] = imports_of(module, path, graph.modules)
    return graph


def strongly_connected(graph: ImportGraph) -> list[list[str]]:
    """The components of more than one module (Tarjan, iterative), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph.edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.edges[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return sorted(components)


def cycle_path(graph: ImportGraph, component: list[str]) -> list[str]:
    """One cycle through the component's first module, as `a -> b -> ... -> a` (breadth-first, shortest)."""
    members = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for successor in sorted(graph.edges[node] & members):
                if successor == start:
                    path = [start]
                    while node != start:
                        path.append(node)
                        node = came_from[node]
                    return [start, *reversed(path[1:]), start]
                if successor not in came_from:
                    came_from[successor] = node
                    following.append(successor)
        frontier = following
    raise AssertionError(f"{component} is not a cycle")  # a strongly connected component always has one


def describe_cycles(graph: ImportGraph) -> list[str]:
    """One line per cycle: a shortest cycle through the component, then its other members, if any."""
    lines = []
    for component in strongly_connected(graph):
        path = cycle_path(graph, component)
        rest = sorted(set(component) - set(path))
        lines.append(" -> ".join(path) + (f" (with {', '.join(rest)})" if rest else ""))
    return lines
