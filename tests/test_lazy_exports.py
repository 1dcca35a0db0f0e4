"""Lazy package facades: every public name resolves to its submodule's object, on first use."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from harness.lazy_exports import lazy_exports, lazy_facade, type_checking_exports


@pytest.mark.parametrize("package", ["harness.prompts", "harness.tune", "harness.parsing", "harness.checks"])
def test_every_public_name_resolves_to_the_submodules_object(package):
    module = importlib.import_module(package)
    exports = type_checking_exports(Path(module.__file__).read_text(encoding="utf-8"))
    assert len(exports) > 3 and set(exports) == set(module.__all__)
    for name in module.__all__:
        value = getattr(module, name)
        assert not isinstance(value, type(module)), f"{package}.{name} is a module"
        where, attribute = exports[name]
        assert value is getattr(importlib.import_module(where, package), attribute)
    assert set(module.__all__) <= set(dir(module))


def test_star_import_gives_the_public_names():
    namespace: dict[str, object] = {}
    exec("from harness.prompts import *", namespace)
    from harness.prompts.lint import lint_prompt

    assert namespace["lint_prompt"] is lint_prompt
    assert namespace["LINT_CODES"] is importlib.import_module("harness.prompts.lint").LINT_CODES


def test_an_unknown_name_is_an_attribute_error():
    module = importlib.import_module("harness.prompts")
    with pytest.raises(AttributeError, match="no attribute 'lint_promptt'"):
        module.lint_promptt  # noqa: B018


def test_a_name_that_is_also_a_submodule_is_refused():
    """Importing the submodule would bind the module over the name: `from pkg import align` would
    give the module instead of the function."""
    with pytest.raises(ValueError, match="align"):
        lazy_exports("harness.scoring", {"align": (".align", "align")})


def test_the_type_checking_block_is_the_export_list():
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from .lint import CODES as LINT_CODES\n"
        "    from .lint import lint_prompt\n"
        "    from harness.tune.sampling import select\n"
        "from .other import not_exported\n"
    )
    assert type_checking_exports(source) == {
        "LINT_CODES": (".lint", "CODES"),
        "lint_prompt": (".lint", "lint_prompt"),
        "select": ("harness.tune.sampling", "select"),
    }


def test_a_type_checking_block_with_anything_but_from_imports_is_refused():
    with pytest.raises(ValueError, match="line 3"):
        type_checking_exports("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import os\n")


def test_a_facade_on_a_scratch_package_binds_its_names_on_first_use(tmp_path, monkeypatch):
    package = tmp_path / "scratchpkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from harness.lazy_exports import lazy_facade\n"
        "if TYPE_CHECKING:\n"
        "    from .heavy import answer as ANSWER\n"
        "__getattr__, __dir__, __all__ = lazy_facade(__name__, __file__)\n", encoding="utf-8")
    (package / "heavy.py").write_text("answer = 42\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import sys

    module = importlib.import_module("scratchpkg")
    try:
        assert module.__all__ == ["ANSWER"]
        assert "scratchpkg.heavy" not in sys.modules
        assert module.ANSWER == 42
        assert "scratchpkg.heavy" in sys.modules
    finally:
        for name in ("scratchpkg", "scratchpkg.heavy"):
            sys.modules.pop(name, None)


def test_lazy_facade_returns_the_sorted_public_names(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text("if TYPE_CHECKING:\n    from .b import zeta, alpha\n", encoding="utf-8")
    assert lazy_facade("scratch_unused", str(init))[2] == ["alpha", "zeta"]
