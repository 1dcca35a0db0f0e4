"""The shipped package's layout: no module shadows the standard library, no test code ships."""

from __future__ import annotations

import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import harness

PACKAGE = Path(harness.__file__).resolve().parent


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_is_named_after_a_standard_library_module():
    # `harness/inspect.py` once did: inside the package, `from . import inspect` and the
    # standard library's `inspect` were one typo apart.
    shadowing = [str(p.relative_to(PACKAGE)) for p in _modules() if p.stem in sys.stdlib_module_names]
    assert shadowing == []


def test_no_test_server_ships_inside_the_package():
    # the fake OpenAI-compatible server lives in tests/support/; nothing in harness/ may need it
    offenders = [str(p.relative_to(PACKAGE)) for p in _modules()
                 if p.stem == "fake_server" or "fake_server" in p.read_text(encoding="utf-8")]
    assert offenders == []


def _requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def _import_names(distribution: str) -> set[str]:
    """The top-level modules a distribution provides (its own name too, for packages read by name)."""
    names = {distribution.replace("-", "_")}
    for module, owners in importlib.metadata.packages_distributions().items():
        if distribution in {o.lower().replace("_", "-") for o in owners}:
            names.add(module)
    return names


def test_every_runtime_dependency_is_used_by_the_package():
    # a dependency only the tests use (jsonschema once) belongs in the `test` extra, not in every install
    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    source = "\n".join(p.read_text(encoding="utf-8") for p in _modules())
    unused = [name for name in map(_requirement_name, project["dependencies"])
              if not any(re.search(rf"\b{re.escape(module)}\b", source) for module in _import_names(name))]
    assert unused == []
