"""Lazy package facades: every public name resolves to its submodule's object, on first use."""

from __future__ import annotations

import importlib

import pytest

from harness.lazy_exports import lazy_exports


@pytest.mark.parametrize("package", ["harness.prompts", "harness.tune", "harness.parsing", "harness.checks"])
def test_every_public_name_resolves_to_the_submodules_object(package):
    module = importlib.import_module(package)
    exports = vars(module)["_EXPORTS"]
    assert set(exports) == set(module.__all__)
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
    assert namespace["LINT_CODES"] is importlib.import_module("harness.prompts.lint").CODES


def test_an_unknown_name_is_an_attribute_error():
    module = importlib.import_module("harness.prompts")
    with pytest.raises(AttributeError, match="no attribute 'lint_promptt'"):
        module.lint_promptt  # noqa: B018


def test_a_name_that_is_also_a_submodule_is_refused():
    """Importing the submodule would bind the module over the name: `from pkg import align` would
    give the module instead of the function."""
    with pytest.raises(ValueError, match="align"):
        lazy_exports("harness.scoring", {"align": (".align", "align")})
