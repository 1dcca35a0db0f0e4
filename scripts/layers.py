"""Floors and arrows running back up: how deep `harness`'s imports stack, and which imports point
from a lower declared layer to a higher one.

    python scripts/layers.py            # the figures, the longest chain and every upward arrow

The graph is the one tests/test_architecture.py keeps free of cycles (`tests/support/import_graph.py`:
every import a module can make, including those inside functions and under `if TYPE_CHECKING:`).

- **Floors** are a longest-path layering of the *module* graph (a DAG, since the architecture test
  refuses cycles) counted in *folders*: walking an import chain, a step from a module to one in
  another folder of the package (`harness/`, `harness/llm/`, `harness/llm/providers/`, ...) climbs
  one floor; a step inside the same folder does not. A module's floor is 1 + the most folder
  changes on any chain below it, and the package's figure is its highest floor. Counting modules
  rather than folders would make every helper split inside a package a floor; counting a
  folder as one node would not be a layering at all, since folders import each other both ways.
- **Layers** are declared in docs/architecture.md ("Layers", the ```layers block), bottom to top:
  one line per layer, `name: module, module, ...`. A listed module stands for itself and, for a
  package, everything under it; a module takes the layer of its longest listed name. Every module
  must have one (`unplaced` lists those that have not).
- **Arrows running back up** are imports from a module on a lower layer to one on a higher layer.
  tests/test_architecture.py allows only the ones in its `ALLOWED_UPWARD` list, which may only
  shrink.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # the graph reader lives in tests/support/

from tests.support.import_graph import ImportGraph, build_graph  # noqa: E402

ARCHITECTURE = REPO / "docs" / "architecture.md"
PACKAGE = REPO / "harness"

_BLOCK = re.compile(r"^```layers\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Layers:
    """The declared layers, bottom first: each one's name and the modules listed on it."""

    names: tuple[str, ...]
    listed: dict[str, int]  # listed module or package -> index of its layer in `names`

    def of(self, module: str) -> int | None:
        """The layer index of `module`: its own entry's, else its nearest listed enclosing package's.
        The root package stands only for itself (else it would place every module)."""
        if module in self.listed:
            return self.listed[module]
        name = module.rpartition(".")[0]
        while "." in name:
            if name in self.listed:
                return self.listed[name]
            name = name.rpartition(".")[0]
        return None


def read_layers(text: str) -> Layers:
    """The layers of the first ```layers block of `text` (raises ValueError on a malformed block)."""
    found = _BLOCK.search(text)
    if found is None:
        raise ValueError("no ```layers block")
    names: list[str] = []
    listed: dict[str, int] = {}
    for number, line in enumerate(found.group(1).splitlines(), 1):
        if not line.strip():
            continue
        name, colon, members = line.partition(":")
        if not colon or not name.strip():
            raise ValueError(f"layers line {number}: expected 'name: module, module, ...'")
        names.append(name.strip())
        for member in (m.strip() for m in members.split(",")):
            if not member:
                continue
            if member in listed:
                raise ValueError(f"layers line {number}: {member} is already on layer {names[listed[member]]}")
            listed[member] = len(names) - 1
    return Layers(tuple(names), listed)


def _folder(graph: ImportGraph, module: str) -> Path:
    return graph.modules[module].parent


def floors(graph: ImportGraph) -> dict[str, int]:
    """Each module's floor: 1 + the most folder changes on an import chain starting at it.

    Iterative (a chain can be deeper than Python's recursion limit allows in principle); the graph
    must be acyclic, which tests/test_architecture.py enforces.
    """
    floor: dict[str, int] = {}
    for start in sorted(graph.modules):
        if start in floor:
            continue
        work = [(start, False)]
        while work:
            node, expanded = work.pop()
            if node in floor:
                continue
            if expanded:
                floor[node] = max((floor[s] + (_folder(graph, s) != _folder(graph, node)) for s in graph.edges[node]),
                                  default=1)
                continue
            work.append((node, True))
            work.extend((s, False) for s in sorted(graph.edges[node]) if s not in floor)
    return floor


def longest_chain(graph: ImportGraph, floor: dict[str, int]) -> list[str]:
    """One import chain that climbs the most floors, from the top module down."""
    node = max(sorted(graph.modules), key=lambda m: floor[m])
    chain = [node]
    while True:
        below = [s for s in sorted(graph.edges[node])
                 if floor[s] + (_folder(graph, s) != _folder(graph, node)) == floor[node]]
        if not below:
            return chain
        node = below[0]
        chain.append(node)


def upward_arrows(graph: ImportGraph, layers: Layers) -> list[tuple[str, str]]:
    """Imports from a module to one on a higher declared layer, sorted."""
    arrows = []
    for module, targets in graph.edges.items():
        own = layers.of(module)
        for target in targets:
            theirs = layers.of(target)
            if own is not None and theirs is not None and theirs > own:
                arrows.append((module, target))
    return sorted(arrows)


def unplaced(graph: ImportGraph, layers: Layers) -> list[str]:
    """Modules no declared layer covers."""
    return sorted(m for m in graph.modules if layers.of(m) is None)


def stale_entries(graph: ImportGraph, layers: Layers) -> list[str]:
    """Listed names that are no module or package of the graph (a moved module left behind)."""
    return sorted(name for name in layers.listed if name not in graph.modules)


def main() -> int:
    graph = build_graph(PACKAGE)
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    floor = floors(graph)
    arrows = upward_arrows(graph, layers)
    print(f"modules: {len(graph.modules)}")
    print(f"floors: {max(floor.values())}")
    print("longest chain: " + " -> ".join(longest_chain(graph, floor)))
    print(f"arrows running back up: {len(arrows)}")
    for module, target in arrows:
        print(f"  {module} ({layers.names[layers.of(module) or 0]}) -> {target} ({layers.names[layers.of(target) or 0]})")
    for module in unplaced(graph, layers):
        print(f"  no layer: {module}")
    for name in stale_entries(graph, layers):
        print(f"  listed but no module: {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
