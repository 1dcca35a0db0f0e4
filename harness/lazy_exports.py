"""Package facades that import a submodule only when one of its names is first used.

A package `__init__` that re-exports its submodules' names eagerly makes importing any one
submodule (`harness.prompts.kinds`, to list the prompt kinds) import all of them, and everything
they import: the model client, tokenizers, scoring's numerical libraries. With a lazy facade the
package keeps its names (`from harness.prompts import lint_prompt` still works) and the cost
moves to the first use (PEP 562 module `__getattr__`).

A facade declares its names once, as the imports under its `if TYPE_CHECKING:` block: type
checkers and editors read them there, and `lazy_facade` reads the same lines from the source (as
`lazy_loader.attach_stub` reads a stub file), so the list cannot drift from a second copy.

A re-exported name must not also be the name of a submodule: importing the submodule binds its
name on the package, and the attribute would then be the module rather than the function.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def lazy_exports(package: str, exports: dict[str, tuple[str, str]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose public `name` is `exports[name] = (submodule, attribute)`.

    The submodule is relative to the package (`".lint"`) or absolute; the value found is cached on
    the package, so each name is looked up once.
    """
    submodules = {module.removeprefix(package).lstrip(".").split(".")[0] for module, _ in exports.values()}
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


def type_checking_exports(source: str) -> dict[str, tuple[str, str]]:
    """`name -> (module, attribute)` for each `from module import attribute [as name]` under the
    module-level `if TYPE_CHECKING:` blocks of `source` (relative modules keep their dots)."""
    exports: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom):
                raise ValueError(f"line {statement.lineno}: a lazy facade's TYPE_CHECKING block holds only `from ... import ...`")
            module = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                exports[alias.asname or alias.name] = (module, alias.name)
    return exports


def lazy_facade(package: str, init_file: str) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """`__getattr__`, `__dir__` and `__all__` for the package whose `__init__` is `init_file`: its
    public names are the ones its `if TYPE_CHECKING:` block imports."""
    exports = type_checking_exports(Path(init_file).read_text(encoding="utf-8"))
    return (*lazy_exports(package, exports), sorted(exports))
