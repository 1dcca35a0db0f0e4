"""Property: a damaged shipped cassette, replayed or audited, ends in a documented exit, never a traceback.

Each example takes one shipped cassette (fixtures/cassettes/<suite>/<variant>/<case>.json),
damages it (a field deleted or retyped, a value nested deeply, the file truncated or made
non-UTF-8), and runs `harness run` and `harness cassettes audit` on a one-case copy of its suite.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main

from ..conftest import REPO

SHIPPED = sorted(
    (suite, cassette)
    for suite in sorted((REPO / "suites").glob("*.yaml"))
    for cassette in sorted((REPO / "fixtures" / "cassettes" / suite.stem).glob("*/*.json"))
    if cassette.parent.name != "tune"
)
DEEP = "\u0000deep\u0000"  # stands for a deeply nested value until the text is written
RETYPED = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8),
    st.just([]), st.just({}), st.just({"json": 1}), st.lists(st.integers(), max_size=2),
)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON value, as a tuple of keys and indexes."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, index)))
    return found


def _one_case_project(root: Path, suite_path: Path, cassette: Path) -> Path:
    """A copy of the suite with only the cassette's variant and case, its prompt and chunk copied
    in (suites read prompts and chunks only from inside their project)."""
    spec = yaml.safe_load(suite_path.read_text(encoding="utf-8"))
    # a model matrix's cassettes are a cell's (`<variant>@<model>`): its variant with that one model
    variant, _, model = cassette.parent.name.partition("@")
    case_id = cassette.stem
    chosen = dict(spec["variants"][variant])
    if model:
        models = spec["models"]
        spec["models"] = ({model: models[model]} if isinstance(models, dict)
                          else [m for m in models if (m.get("label") or m.get("name")) == model])
    case = next(c for c in spec["cases"] if c["id"] == case_id)
    for relative in (chosen["prompt"], case.get("chunk")):
        if relative is not None and not relative.startswith("builtin:"):
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / relative, root / relative)
    spec.update(variants={variant: chosen}, baseline=variant, cases=[case])
    spec.pop("regression", None)
    spec.pop("judge", None)  # a judge's pairwise names both variants; its cassettes are another test's
    path = root / "suites" / suite_path.name
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


@st.composite
def damaged(draw: st.DrawFn) -> tuple[Path, Path, bytes]:
    suite_path, cassette = draw(st.sampled_from(SHIPPED))
    text = cassette.read_text(encoding="utf-8")
    how = draw(st.sampled_from(["delete", "retype", "nest", "truncate", "not-utf-8"]))
    if how == "truncate":
        return suite_path, cassette, text.encode("utf-8")[: draw(st.integers(0, len(text) - 1))]
    if how == "not-utf-8":
        raw = text.encode("utf-8")
        at = draw(st.integers(0, len(raw)))
        return suite_path, cassette, raw[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + raw[at:]
    data = json.loads(text)
    place = draw(st.sampled_from(_paths(data)[1:]))
    parent = data
    for key in place[:-1]:
        parent = parent[key]
    if how == "delete":
        del parent[place[-1]]
    else:
        parent[place[-1]] = DEEP if how == "nest" else draw(RETYPED)
    written = json.dumps(data, ensure_ascii=False)
    depth = draw(st.sampled_from([3, 70, 2_000, 200_000]))
    written = written.replace(json.dumps(DEEP), "[" * depth + "]" * depth)
    return suite_path, cassette, written.encode("utf-8")


@pytest.mark.slow
@pytest.mark.skipif(not SHIPPED, reason="no shipped cassettes")
@given(damaged())
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # capsys is read per example
def test_a_damaged_shipped_cassette_ends_in_a_documented_exit(capsys, damage):
    suite_path, cassette, content = damage
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        suite = _one_case_project(root, suite_path, cassette)
        target = root / "fixtures" / "cassettes" / suite_path.stem / cassette.parent.name / cassette.name  # a cell's too
        target.parent.mkdir(parents=True)
        target.write_bytes(content)
        capsys.readouterr()
        for argv, allowed in (
            (["run", str(suite), "--reports", str(root / "reports"), "--fresh", "--record-mode", "none"], {0, 2, 3}),
            (["cassettes", "audit", str(suite)], {0, 1, 2}),
        ):
            code = main(argv)
            err = capsys.readouterr().err
            assert code in allowed, (argv[0], code, err)
            assert "Traceback" not in err
            if code == 2:
                assert f"{cassette.name}: corrupt cassette" in err and err.count("\n") == 1, err
