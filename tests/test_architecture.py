"""The package's shape: no import cycle among harness modules, no module shadowing the standard
library, no test server or recording script shipped inside `harness/`.

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
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import harness

PACKAGE = Path(harness.__file__).resolve().parent


# --- the import graph --------------------------------------------------------------------------


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


# --- the shipped package -------------------------------------------------------------------------


def test_no_import_cycle_among_harness_modules():
    cycles = describe_cycles(build_graph(PACKAGE))
    assert cycles == [], "import cycles (function-level and TYPE_CHECKING imports count):\n" + "\n".join(cycles)


def stdlib_shadows(root: Path) -> list[str]:
    """Modules and subpackages under `root` named after a standard-library module."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if "__pycache__" not in p.parts and (p.suffix == ".py" or p.is_dir())
                  and p.stem in sys.stdlib_module_names)


def test_no_module_is_named_after_a_standard_library_module():
    # `harness/inspect.py` once did: inside the package, `from . import inspect` and the
    # standard library's `inspect` were one typo apart.
    assert stdlib_shadows(PACKAGE) == []


# A test server answers HTTP; a recording script is run as a program. Neither belongs in the
# installed package (tests/support/ and scripts/ hold them).
SERVER_MODULES = {"http.server", "socketserver", "wsgiref.simple_server"}


def _is_main_guard(node: ast.stmt) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


def _console_script_modules() -> set[str]:
    """The modules `[project.scripts]` starts (`harness = "harness.cli:main"`): they may run as `__main__`."""
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {target.partition(":")[0] for target in project.get("scripts", {}).values()}


def shipped_programs(root: Path, console_modules: set[str]) -> list[str]:
    """Modules under `root` that serve HTTP, name the fake server, or run as a script without
    being a console script: test servers and recording scripts."""
    offenders = []
    for path in sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        reasons = sorted(imported & SERVER_MODULES)
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        if module not in console_modules and any(_is_main_guard(node) for node in tree.body):
            reasons.append("runs as a script but is no console script of pyproject.toml")
        if "fake_server" in source:
            reasons.append("names the fake server")
        if reasons:
            offenders.append(f"{path.relative_to(root)}: {', '.join(reasons)}")
    return offenders


@pytest.mark.slow
def test_no_test_server_or_recording_script_ships_inside_the_package():
    assert shipped_programs(PACKAGE, _console_script_modules()) == []


# --- the checker on scratch packages (so that the tests above can fail) ----------------------------


def _write_package(root: Path, files: dict[str, str]) -> Path:
    package = root / "pkg"
    for name, source in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return package


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    package = _write_package(tmp_path, {
        "__init__.py": "",
        "a.py": "from pkg import b\n",
        "b.py": "def late():\n    from .a import thing\n    return thing\n",
        "c.py": "import pkg.a\n",
    })
    graph = build_graph(package)
    assert strongly_connected(graph) == [["pkg.a", "pkg.b"]]
    assert describe_cycles(graph) == ["pkg.a -> pkg.b -> pkg.a"]


def test_a_cycle_under_type_checking_is_found(tmp_path):
    package = _write_package(tmp_path, {
        "__init__.py": "",
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "b.py": "from . import a\n",
    })
    assert describe_cycles(build_graph(package)) == ["pkg.a -> pkg.b -> pkg.a"]


def test_from_dot_import_of_a_sibling_is_the_sibling_not_the_parent(tmp_path):
    package = _write_package(tmp_path, {
        "__init__.py": "from .sub.x import helper\n",
        "sub/__init__.py": "",
        "sub/x.py": "from . import y\nfrom .. import other\n",
        "sub/y.py": "",
        "other.py": "",
    })
    graph = build_graph(package)
    assert graph.edges["pkg.sub.x"] == {"pkg.sub.y", "pkg.other"}
    assert graph.edges["pkg"] == {"pkg.sub.x"}
    assert describe_cycles(graph) == []


def test_a_child_importing_a_name_from_its_parent_package_depends_on_the_parents_init(tmp_path):
    package = _write_package(tmp_path, {
        "__init__.py": "from .child import work\nVERSION = '1'\n",
        "child.py": "def work():\n    from . import VERSION\n    return VERSION\n",
    })
    graph = build_graph(package)
    assert graph.edges["pkg.child"] == {"pkg"}
    assert describe_cycles(graph) == ["pkg -> pkg.child -> pkg"]


def test_lazy_facades_and_import_module_strings_are_edges(tmp_path):
    package = _write_package(tmp_path, {
        "__init__.py": "",
        "lazy_exports.py": "",
        "facade/__init__.py": ("from typing import TYPE_CHECKING\n"
                               "from ..lazy_exports import lazy_facade\n"
                               "if TYPE_CHECKING:\n    from .impl import run\n"
                               "__getattr__, __dir__, __all__ = lazy_facade(__name__, __file__)\n"),
        "facade/impl.py": "import importlib\ndef back():\n    return importlib.import_module('pkg.facade')\n",
    })
    graph = build_graph(package)
    assert graph.edges["pkg.facade"] == {"pkg.lazy_exports", "pkg.facade.impl"}
    assert describe_cycles(graph) == ["pkg.facade -> pkg.facade.impl -> pkg.facade"]


@pytest.mark.slow
def test_the_shipped_package_graph_is_read_whole():
    """A sanity check on the reader itself: known edges of the real package are present."""
    graph = build_graph(PACKAGE)
    assert "harness.cli" in graph.modules and "harness.prompts" in graph.modules
    assert "harness.lazy_exports" in graph.edges["harness.prompts"]
    assert "harness.prompts.lint" in graph.edges["harness.prompts"]  # the facade's TYPE_CHECKING block
    assert "harness" in graph.edges["harness.cli"]  # `from . import __version__`


def test_a_standard_library_name_is_seen_for_modules_and_packages(tmp_path):
    package = _write_package(tmp_path, {"__init__.py": "", "inspect.py": "", "json/__init__.py": "", "ok.py": ""})
    assert stdlib_shadows(package) == ["inspect.py", "json"]


def test_servers_and_scripts_are_seen(tmp_path):
    package = _write_package(tmp_path, {
        "__init__.py": "",
        "server.py": "from http.server import BaseHTTPRequestHandler\n",
        "record.py": "def main():\n    pass\nif __name__ == '__main__':\n    main()\n",
        "cli.py": "def main():\n    pass\nif __name__ == '__main__':\n    main()\n",
        "plain.py": "import http.client\n",
    })
    assert shipped_programs(package, {"pkg.cli"}) == [
        "record.py: runs as a script but is no console script of pyproject.toml",
        "server.py: http.server",
    ]


def test_a_larger_component_names_the_members_off_the_printed_cycle(tmp_path):
    package = _write_package(tmp_path, {
        "__init__.py": "",
        "a.py": "from . import b\n",
        "b.py": "from . import a, c\n",
        "c.py": "from . import a\n",
    })
    assert describe_cycles(build_graph(package)) == ["pkg.a -> pkg.b -> pkg.a (with pkg.c)"]


def test_the_console_scripts_are_read_from_pyproject():
    assert "harness.cli" in _console_script_modules()
