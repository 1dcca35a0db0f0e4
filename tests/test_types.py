"""The type checker over harness/: mypy's errors per file and code never exceed tests/types_baseline.txt,
and the baseline never allows more than mypy finds, so it only shrinks (scripts/types_baseline.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent


script = load_script("types_baseline")


def test_mypy_errors_in_harness_match_the_baseline(tmp_path: Path) -> None:
    output = script.run_mypy(tmp_path / "mypy-cache")
    current = script.count_errors(output)
    baseline = script.parse_baseline(script.BASELINE.read_text(encoding="utf-8"))
    difference = script.compare(baseline, current)
    grown_keys = {key for key in current if current[key] > baseline.get(key, 0)}
    assert not difference.grown, ("mypy finds errors over tests/types_baseline.txt:\n" + "\n".join(difference.grown)
                                  + "\n\n" + "\n".join(script.error_lines(output, grown_keys)))
    assert not difference.shrunk, (f"baseline can shrink: rewrite it with {script.REWRITE}\n"
                                   + "\n".join(difference.shrunk))


# --- the comparison itself (no mypy run) ---------------------------------------------------------

OUTPUT = """\
harness/gate.py:12: error: Argument 1 to "f" has incompatible type "int"; expected "str"  [arg-type]
harness/gate.py:40:5: error: Argument 2 to "g" has incompatible type "int"; expected "str"  [arg-type]
harness/gate.py:41: note: See https://mypy.readthedocs.io for more
harness/finish.py:3: error: Unused "type: ignore" comment  [unused-ignore]
harness/odd.py:7: error: Something without a code
"""


def test_errors_are_counted_per_file_and_code_and_notes_are_left_out() -> None:
    assert script.count_errors(OUTPUT) == Counter({("harness/gate.py", "arg-type"): 2,
                                                   ("harness/finish.py", "unused-ignore"): 1,
                                                   ("harness/odd.py", "misc"): 1})


def test_the_baseline_file_reads_back_what_was_written() -> None:
    counts = script.count_errors(OUTPUT)
    assert script.parse_baseline(script.format_baseline(counts)) == counts


def test_a_malformed_baseline_line_is_named() -> None:
    with pytest.raises(ValueError, match=r"types_baseline.txt:3: not `path: code count`"):
        script.parse_baseline("# header\nharness/a.py: arg-type 1\nharness/b.py arg-type two\n")


def test_a_file_over_its_count_and_a_new_file_with_errors_are_grown() -> None:
    baseline = Counter({("harness/gate.py", "arg-type"): 1})
    current = Counter({("harness/gate.py", "arg-type"): 2, ("harness/new.py", "assignment"): 1})
    difference = script.compare(baseline, current)
    assert difference.grown == ["harness/gate.py: arg-type 2 (baseline 1)", "harness/new.py: assignment 1 (baseline 0)"]
    assert difference.shrunk == []


def test_a_fixed_error_leaves_the_baseline_able_to_shrink() -> None:
    baseline = Counter({("harness/gate.py", "arg-type"): 2, ("harness/gone.py", "misc"): 1})
    current = Counter({("harness/gate.py", "arg-type"): 1})
    difference = script.compare(baseline, current)
    assert difference.grown == []
    assert difference.shrunk == ["harness/gate.py: arg-type 1 (baseline 2)", "harness/gone.py: misc 0 (baseline 1)"]


def test_an_error_moving_to_another_code_counts_as_grown_there() -> None:
    difference = script.compare(Counter({("harness/a.py", "arg-type"): 1}), Counter({("harness/a.py", "assignment"): 1}))
    assert difference.grown == ["harness/a.py: assignment 1 (baseline 0)"]
    assert difference.shrunk == ["harness/a.py: arg-type 0 (baseline 1)"]


def test_bare_any_is_counted_in_parameters_and_fields_only(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "from typing import Any\n"
        "def f(a: Any, b: dict[str, Any], *c: Any, **d: 'Any') -> Any: ...\n"
        "class C:\n    x: Any\n    y: list[Any]\n    def m(self, z: typing.Any) -> None: ...\n",
        encoding="utf-8")
    assert script.bare_any_count(tmp_path) == 5  # a, c, d, x, z
