"""Package facades that import a submodule only when one of its names is first used.

A package `__init__` that re-exports its submodules' names eagerly makes importing any one
submodule (`harness.prompts.commands`, to register a command) import all of them, and everything
they import: the model client, tokenizers, scoring's numerical libraries. With `lazy_exports`
the facade keeps its names (`from harness.prompts import lint_prompt` still works) and the cost
moves to the first use (PEP 562 module `__getattr__`).

A re-exported name must not also be the name of a submodule: importing the submodule binds its
name on the package, and the attribute would then be the module rather than the function.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, tuple[str, str]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose public `name` is `exports[name] = (submodule, attribute)`.

    The submodule is relative to the package (`".lint"`); the value found is cached on the package,
    so each name is looked up once.
    """
    submodules = {module.lstrip(".").split(".")[0] for module, _ in exports.values()}
    clashes = sorted(submodules & set(exports))
    if clashes:
        raise ValueError(f"{package}: exported names equal to a submodule's name: {', '.join(clashes)}")

    def __getattr__(name: str) -> Any:
        try:
            module, attribute = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module, package), attribute)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
