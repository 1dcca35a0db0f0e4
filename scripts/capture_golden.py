"""Capture the golden outputs of the shipped suites into tests/golden/.

    .venv/bin/python scripts/capture_golden.py            # rewrite tests/golden/
    .venv/bin/python scripts/capture_golden.py --out DIR  # write elsewhere (to compare two captures)

Replays `suites/*.yaml` from their cassettes (record mode none, gate on, fixed run id `golden`,
a scratch reports folder holding a copy of reports/baselines/) and the podcast tuning replay, as
`make run` does, and writes each suite's results.jsonl, summary.json, report.md, report.html,
junit.xml and gate.json, a description of each plot (`plots/<name>.png.json`: its pixel size and
what it plots, in place of the PNG), the tuning's outputs and the commands' exit codes, normalised
(timings, timestamps, the scratch folder's path; see tests/support/golden.py). Deterministic: two
captures are byte-identical.

tests/test_behaviour_unchanged.py replays the same way and compares against these files by meaning
(tests/support/golden_compare.py): JSON by value, HTML and XML by structure and text, plots by what
they plot. Run this script only after a deliberate behaviour change, and commit the new files with
that change, saying why; a refactor must leave them as they are. A cosmetic change (reindented
JSON, reformatted HTML, a plot drawn by another matplotlib) passes without a refresh.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent


def _golden_module() -> ModuleType:
    """tests/support/golden.py, loaded by path: tests/ is not an installed package. Its folder is
    loaded as a package first, for golden.py's own imports of its neighbours (golden_compare, plot_probe)."""
    support = REPO / "tests" / "support"
    spec = importlib.util.spec_from_file_location("harness_golden_support", support / "__init__.py",
                                                  submodule_search_locations=[str(support)])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package  # dataclasses look their module up while the class is built
    spec.loader.exec_module(package)
    return importlib.import_module(f"{spec.name}.golden")


def main() -> int:
    golden = _golden_module()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=golden.GOLDEN_DIR, help="Folder to write (default: tests/golden).")
    out: Path = parser.parse_args().out
    with tempfile.TemporaryDirectory(prefix="harness-golden-") as scratch:
        files = golden.replay(Path(scratch)).files
    if out.exists():
        shutil.rmtree(out)  # files no longer produced must not linger
    total = 0
    for name, text in sorted(files.items()):
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        size = path.stat().st_size
        total += size
        print(f"{size:>9,}  {path}")
    print(f"{total:>9,}  bytes in {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
