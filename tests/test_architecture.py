"""The package's shape: no import cycle among harness modules, no module shadowing the standard
library, no test server or recording script shipped inside `harness/`.

The graph itself is read by `tests/support/import_graph.py` (what it counts is said there);
`scripts/layers.py` measures it against the layers declared in docs/architecture.md.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import pytest

import harness
from tests.support.scripts import load_script
from tests.support.import_graph import build_graph, describe_cycles, package_modules, strongly_connected

PACKAGE = Path(harness.__file__).resolve().parent
ROOT = PACKAGE.parent


layers = load_script("layers")

# Imports that still run from a lower declared layer (docs/architecture.md, "Layers") to a higher
# one. This list may only shrink: a new upward import fails, and so does an entry that no longer
# runs up (take it off the list).
ALLOWED_UPWARD = {
    ("harness.prompts.lint", "harness.importers.lightrag_module"),
}
MAX_FLOORS = 11  # scripts/layers.py: one floor per change of folder along an import chain


# --- the shipped package -------------------------------------------------------------------------


def test_no_import_cycle_among_harness_modules():
    cycles = describe_cycles(build_graph(PACKAGE))
    assert cycles == [], "import cycles (function-level and TYPE_CHECKING imports count):\n" + "\n".join(cycles)


def test_every_module_has_a_declared_layer():
    graph = build_graph(PACKAGE)
    declared = layers.read_layers((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert layers.unplaced(graph, declared) == []
    assert layers.stale_entries(graph, declared) == []


def test_imports_point_down_the_declared_layers_but_for_the_allowed_few():
    graph = build_graph(PACKAGE)
    declared = layers.read_layers((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    arrows = set(layers.upward_arrows(graph, declared))
    assert sorted(arrows - ALLOWED_UPWARD) == [], "new imports running back up the layers"
    assert sorted(ALLOWED_UPWARD - arrows) == [], "no longer upward: take them off ALLOWED_UPWARD"


def test_the_package_stacks_no_higher_than_its_floor_limit():
    graph = build_graph(PACKAGE)
    floor = layers.floors(graph)
    assert max(floor.values()) <= MAX_FLOORS, " -> ".join(layers.longest_chain(graph, floor))


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
    assert "harness" in graph.edges["harness.cli.main"]  # `from .. import __version__`


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


# --- the layer measure on scratch packages --------------------------------------------------------


def test_floors_climb_only_where_an_import_changes_folder(tmp_path):
    package = _write_package(tmp_path, {
        "__init__.py": "",
        "top.py": "from .sub import a\n",
        "sub/__init__.py": "",
        "sub/a.py": "from . import b\n",
        "sub/b.py": "from .. import base\n",
        "base.py": "",
    })
    graph = build_graph(package)
    floor = layers.floors(graph)
    # base 1; sub.b climbs to 2 (another folder); sub.a stays on 2 (same folder); top climbs to 3
    assert (floor["pkg.base"], floor["pkg.sub.b"], floor["pkg.sub.a"], floor["pkg.top"]) == (1, 2, 2, 3)
    assert layers.longest_chain(graph, floor) == ["pkg.top", "pkg.sub.a", "pkg.sub.b", "pkg.base"]


def test_an_import_from_a_lower_layer_to_a_higher_one_is_an_upward_arrow(tmp_path):
    package = _write_package(tmp_path, {
        "__init__.py": "",
        "values.py": "from .run import plan\n",
        "run/__init__.py": "",
        "run/plan.py": "from .. import values\n",
        "run/low.py": "",
        "cli.py": "from .run import plan\n",
    })
    declared = layers.read_layers("```layers\nvalues: pkg.values, pkg.run.low\nrun: pkg.run\ncli: pkg.cli\n```\n")
    graph = build_graph(package)
    assert declared.of("pkg.run.low") == 0 and declared.of("pkg.run.plan") == 1
    assert layers.upward_arrows(graph, declared) == [("pkg.values", "pkg.run.plan")]
    assert layers.unplaced(graph, declared) == ["pkg"]  # the root package stands only for itself


def test_a_malformed_layers_block_is_refused():
    with pytest.raises(ValueError, match="no ```layers block"):
        layers.read_layers("no block here")
    with pytest.raises(ValueError, match="line 2: pkg.a is already on layer one"):
        layers.read_layers("```layers\none: pkg.a\ntwo: pkg.a\n```\n")
    with pytest.raises(ValueError, match="line 1: expected"):
        layers.read_layers("```layers\njust words\n```\n")
# --- registries: one name each, by role -----------------------------------------------------------

REGISTRIES = {"SUITE_KINDS": "harness.kinds.registry", "PROMPT_KINDS": "harness.prompts.kinds",
              "CALL_KINDS": "harness.cache_audit.entry", "FORMAT_CODES": "harness.parsing.codes",
              "LINT_CODES": "harness.prompts.lint", "PROVIDERS": "harness.llm.providers.registry"}


def module_level_names(root: Path) -> dict[str, list[str]]:
    """Each name assigned at module level under `root` -> the modules that assign it."""
    found: dict[str, list[str]] = {}
    for module, path in package_modules(root).items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            for target in targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(module)
    return found


def test_each_registry_name_is_defined_by_one_module():
    # three registries were once called KINDS and two CODES: a reader could not tell them apart
    names = module_level_names(PACKAGE)
    assert {name: sorted(names.get(name, [])) for name in REGISTRIES} == {n: [m] for n, m in REGISTRIES.items()}
    assert "CODES" not in names
