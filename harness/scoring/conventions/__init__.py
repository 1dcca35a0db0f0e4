"""Other evaluations' scoring conventions, each a module, for reproducing their published numbers
(`harness evaluate --conventions NAME`); the harness's own conventions (harness.scoring) stay the default."""

from __future__ import annotations

CONVENTIONS = ("harness", "text2kgbench", "webnlg")  # the values of `harness evaluate --conventions`
