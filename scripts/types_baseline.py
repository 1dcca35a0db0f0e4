"""Rewrite tests/types_baseline.txt: mypy's errors in harness/, counted per file and error code.

    .venv/bin/python scripts/types_baseline.py           # run mypy, rewrite the baseline
    .venv/bin/python scripts/types_baseline.py --check   # compare only (what tests/test_types.py does)

`make test` runs mypy over harness/ (the `[tool.mypy]` settings of pyproject.toml) and fails when a
file has more errors of a code than the baseline allows, or when the baseline allows more than
mypy finds: the baseline may only shrink, towards zero. Counts, not line numbers, so that an edit
above an error does not churn the file. The script also prints the number of parameters and
fields annotated with a bare `Any` in harness/ (a figure, not checked).
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BASELINE = REPO / "tests" / "types_baseline.txt"
PACKAGE = REPO / "harness"
REWRITE = "scripts/types_baseline.py"

# `path:line[:column]: error: message  [code]` (mypy's default output, one line per error)
_ERROR = re.compile(r"^(?P<path>[^:\n]+\.pyi?):\d+(?::\d+)?: error: .*?(?:\s\s\[(?P<code>[a-z0-9-]+)\])?$")
_HEADER = """\
# mypy's errors in harness/, per file and error code: `path: code count` (tests/test_types.py).
# It may only shrink: rewrite it with scripts/types_baseline.py after fixing errors, never to allow new ones.
"""

ErrorCounts = Counter[tuple[str, str]]  # (path, error code) -> errors


class MypyFailed(Exception):
    """mypy did not run to the end (a crash, a bad setting): its output says why."""


@dataclass(frozen=True)
class Difference:
    """Where mypy's errors and the baseline part: `grown` over the baseline, `shrunk` under it."""

    grown: list[str]
    shrunk: list[str]


def run_mypy(cache_dir: Path) -> str:
    """mypy's output over harness/, with the settings of pyproject.toml, run from the repository."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(cache_dir),
         "--no-pretty", "--no-error-summary", "--show-error-codes", "--hide-error-context", "--no-color-output"],
        cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):  # 1: type errors found; anything else: mypy itself failed
        raise MypyFailed(f"mypy exited with {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout


def count_errors(output: str) -> ErrorCounts:
    """Errors per (file, code) in mypy's output; notes are left out, an error without a code counts as `misc`."""
    counts: ErrorCounts = Counter()
    for line in output.splitlines():
        found = _ERROR.match(line)
        if found:
            counts[(found["path"], found["code"] or "misc")] += 1
    return counts


def error_lines(output: str, keys: set[tuple[str, str]]) -> list[str]:
    """mypy's own lines for the (file, code) pairs in `keys`."""
    lines = []
    for line in output.splitlines():
        found = _ERROR.match(line)
        if found and (found["path"], found["code"] or "misc") in keys:
            lines.append(line)
    return lines


def format_baseline(counts: ErrorCounts) -> str:
    body = "".join(f"{path}: {code} {n}\n" for (path, code), n in sorted(counts.items()) if n > 0)
    return _HEADER + body


def parse_baseline(text: str, source: str = "tests/types_baseline.txt") -> ErrorCounts:
    """The counts of a baseline file; a line that is not `path: code count` is an error naming it."""
    counts: ErrorCounts = Counter()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        path, colon, rest = line.partition(": ")
        code, _, n = rest.partition(" ")
        if not colon or not path or not code or not n.isdigit():
            raise ValueError(f"{source}:{number}: not `path: code count`: {line!r}")
        counts[(path, code)] += int(n)
    return counts


def compare(baseline: ErrorCounts, current: ErrorCounts) -> Difference:
    """Each (file, code) with more errors than the baseline allows, and each the baseline allows more of."""
    grown, shrunk = [], []
    for key in sorted(set(baseline) | set(current)):
        path, code = key
        allowed, found = baseline.get(key, 0), current.get(key, 0)
        if found > allowed:
            grown.append(f"{path}: {code} {found} (baseline {allowed})")
        elif found < allowed:
            shrunk.append(f"{path}: {code} {found} (baseline {allowed})")
    return Difference(grown, shrunk)


def _is_any(node: ast.expr | None) -> bool:
    return ((isinstance(node, ast.Name) and node.id == "Any")
            or (isinstance(node, ast.Attribute) and node.attr == "Any")
            or (isinstance(node, ast.Constant) and node.value == "Any"))


def bare_any_count(root: Path = PACKAGE) -> int:
    """Parameters and class fields annotated with `Any` itself (not `dict[str, Any]`) under `root`."""
    count = 0
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                params = [*args.posonlyargs, *args.args, *args.kwonlyargs,
                          *([args.vararg] if args.vararg else []), *([args.kwarg] if args.kwarg else [])]
                count += sum(_is_any(param.annotation) for param in params)
            elif isinstance(node, ast.ClassDef):
                count += sum(_is_any(stmt.annotation) for stmt in node.body if isinstance(stmt, ast.AnnAssign))
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="Compare with the baseline; exit 1 when they differ.")
    check: bool = parser.parse_args().check
    with tempfile.TemporaryDirectory(prefix="harness-mypy-") as cache:
        try:
            output = run_mypy(Path(cache))
        except MypyFailed as failed:
            print(failed, file=sys.stderr)
            return 2
    current = count_errors(output)
    print(f"mypy: {sum(current.values())} errors in {len({path for path, _ in current})} files; "
          f"bare Any parameters and fields in harness/: {bare_any_count()}")
    if check:
        difference = compare(parse_baseline(BASELINE.read_text(encoding="utf-8")), current)
        for line in difference.grown:
            print(f"over the baseline: {line}")
        for line in difference.shrunk:
            print(f"under the baseline: {line}")
        return 1 if difference.grown or difference.shrunk else 0
    BASELINE.write_text(format_baseline(current), encoding="utf-8")
    print(f"wrote {BASELINE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
