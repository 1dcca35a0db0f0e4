"""The shipped package's dependencies: each runtime dependency is used by the package.

The module layout (no import cycle, no standard-library names, no test server) is checked in
tests/test_architecture.py.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest

import harness

PACKAGE = Path(harness.__file__).resolve().parent


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def _import_names(distribution: str) -> set[str]:
    """The top-level modules a distribution provides (its own name too, for packages read by name)."""
    names = {distribution.replace("-", "_")}
    for module, owners in importlib.metadata.packages_distributions().items():
        if distribution in {o.lower().replace("_", "-") for o in owners}:
            names.add(module)
    return names


@pytest.mark.slow
def test_every_runtime_dependency_is_used_by_the_package():
    # a dependency only the tests use (jsonschema once) belongs in the `test` extra, not in every install
    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    source = "\n".join(p.read_text(encoding="utf-8") for p in _modules())
    unused = [name for name in map(_requirement_name, project["dependencies"])
              if not any(re.search(rf"\b{re.escape(module)}\b", source) for module in _import_names(name))]
    assert unused == []
