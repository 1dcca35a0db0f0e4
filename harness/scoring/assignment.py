"""scipy's `linear_sum_assignment`, without importing `scipy.optimize`.

Importing `scipy.optimize` costs about 50 MB of resident memory and 0.3 s, nearly all of it for
solvers the harness never calls; the assignment itself is one small compiled module,
`scipy/optimize/_lsap`. It is loaded here from scipy's own folder, under its own name (so a later
`import scipy.optimize` reuses it), and the public import is the fallback whenever that module is
not where scipy 1.x keeps it. Both are the same function: tests/scoring/test_assignment.py checks
the loaded one is the one `scipy.optimize` exports.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

MODULE = "scipy.optimize._lsap"


def _load() -> Callable[..., Any]:
    loaded = sys.modules.get(MODULE)
    if loaded is not None:
        return loaded.linear_sum_assignment
    spec = importlib.util.find_spec("scipy")
    if spec is not None and spec.origin is not None:
        folder = Path(spec.origin).parent / "optimize"
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = folder / f"_lsap{suffix}"
            if not path.is_file():
                continue
            loader = importlib.machinery.ExtensionFileLoader(MODULE, str(path))
            module_spec = importlib.util.spec_from_file_location(MODULE, path, loader=loader)
            if module_spec is None:
                break
            module = importlib.util.module_from_spec(module_spec)
            try:
                loader.exec_module(module)
            except ImportError:
                break
            function = getattr(module, "linear_sum_assignment", None)
            if callable(function):
                sys.modules[MODULE] = module
                return function
            break
    from scipy.optimize import linear_sum_assignment  # the public import: scipy laid out otherwise

    return linear_sum_assignment


linear_sum_assignment = _load()

__all__ = ["linear_sum_assignment"]
