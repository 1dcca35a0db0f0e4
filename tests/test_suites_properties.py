"""Property tests for suite files: generated and mutated suites (from the shipped suites/) either
load or raise one InputError, one line, naming the file. Nothing else may escape."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import InputError
from harness.suites import Suite, load_suite
from tests.support.shipped import shipped_project

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted((REPO / "suites").glob("*.yaml"))
TEXTS = {path.name: path.read_text(encoding="utf-8") for path in SHIPPED}

# Pieces that YAML, the schema and the path rules treat specially.
TOKENS = [
    "&a", "*a", "!!int", "!!float", "!!timestamp", "!!binary", "!!set", "!!python/object:os.system", "!custom",
    "<<: *a", "{", "}", "[", "]", ":", "- ", "? ", "|", ">", "#", "'", '"', "\t", "\n", "\x00", "%YAML 1.1\n",
    "---\n", "...", ".nan", ".inf", "-.inf", "1e309", "-1", "5", "0", "~", "null", "yes", "xml",
    "/etc/passwd", "../../../etc/passwd", "/proc/self/environ", "/dev/zero", "x" * 300, "é", "\ufeff",
]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30), st.sampled_from(TOKENS),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=12), inner, max_size=4)),
                      max_leaves=12)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shipped project (suites, prompts, chunks) that mutated suites are written into."""
    root = tmp_path_factory.mktemp("project")
    return shipped_project(root)


def load_or_input_error(path: Path) -> Suite | None:
    """The property: a Suite, or an InputError of one line that names the file."""
    try:
        return load_suite(path)
    except InputError as exc:
        assert "\n" not in exc.message and "\r" not in exc.message, exc.message
        assert exc.message.startswith(str(path)), exc.message
        assert len(exc.message) < 2000
        return None


def mutate_text(text: str, data: st.DataObject) -> str:
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        index = data.draw(st.integers(0, len(lines) - 1), label="line")
        action = data.draw(st.sampled_from(["insert", "replace", "delete", "duplicate", "splice"]), label="action")
        line = lines[index]
        if action == "delete" and len(lines) > 1:
            del lines[index]
        elif action == "duplicate":
            lines.insert(index, line)
        elif action == "insert":
            at = data.draw(st.integers(0, len(line)), label="at")
            piece = data.draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=8)), label="piece")
            lines[index] = line[:at] + piece + line[at:]
        elif action == "replace":
            start = data.draw(st.integers(0, len(line)), label="start")
            end = data.draw(st.integers(start, len(line)), label="end")
            lines[index] = line[:start] + data.draw(st.sampled_from(TOKENS), label="with") + line[end:]
        else:  # splice a line from elsewhere in the file
            lines[index] = lines[data.draw(st.integers(0, len(lines) - 1), label="from")]
    return "\n".join(lines)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_shipped_suites_load_or_fail_in_one_line(project: Path, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(TEXTS)), label="suite")
    path = project / "suites" / name
    path.write_text(mutate_text(TEXTS[name], data), encoding="utf-8", errors="surrogatepass")
    load_or_input_error(path)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path of a parsed suite, to pick one to replace."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


def _replace(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(value[head], rest, new)
    return copy


@pytest.mark.slow
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_generated_values_at_every_key_load_or_fail_in_one_line(project: Path, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(TEXTS)), label="suite")
    parsed = yaml.safe_load(TEXTS[name])
    where = data.draw(st.sampled_from(_paths(parsed)[1:]), label="key")
    new = data.draw(VALUES, label="value")
    changed = _replace(parsed, where, new)
    path = project / "suites" / name
    path.write_text(yaml.safe_dump(changed, allow_unicode=True, sort_keys=False), encoding="utf-8")
    suite = load_or_input_error(path)
    if suite is not None:  # what loaded must be usable as loaded: finite settings, known names
        model = suite.spec.model
        assert math.isfinite(model.temperature) and math.isfinite(model.timeout_s)
        for value in suite.spec.thresholds.model_dump(exclude={"variants"}).values():
            assert value is None or 0.0 <= value <= 1.0


def test_shipped_suites_load_in_the_copy(project: Path) -> None:
    for name, text in TEXTS.items():
        path = project / "suites" / name
        path.write_text(text, encoding="utf-8")
        assert load_suite(path).cases
