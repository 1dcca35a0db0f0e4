"""The shipped package's layout: no module shadows the standard library, no test code ships."""

from __future__ import annotations

import sys
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
