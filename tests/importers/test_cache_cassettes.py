"""The engine-independent part of `import ... --cache` (harness/importers/cache_cassettes.py):
which cases and variants the cache suite keeps, and a conversation the cache holds more of than
the harness sends."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.importers.cache_cassettes import ModelCoverage, covered_draft
from harness.importers.common import SuiteDraft

from ..support.cache_import import import_with_cache

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"


def _draft() -> SuiteDraft:
    return SuiteDraft(name="p-cache", description="", notes="", language="English", entity_types=["person"],
                      model={"name": "m"}, baseline="a",
                      variants={v: {"prompt": "p.txt", "model": v} for v in ("a", "b", "c")},
                      cases=[{"id": c, "text": c} for c in ("one", "two", "three", "four")],
                      thresholds={"grounded_rate": 0.85, "variants": {"c": {"grounded_rate": 0.5}}})


def test_every_case_some_model_covers_is_kept_and_each_variant_lists_its_own() -> None:
    coverage = [ModelCoverage("a", "a", covered=["two"], left_out={"one": "x", "three": "x", "four": "x"}),
                ModelCoverage("b", "b", covered=["three", "one"], left_out={"two": "x", "four": "x"}),
                ModelCoverage("c", "c", covered=[], left_out={c: "x" for c in ("one", "two", "three", "four")})]
    kept = covered_draft(_draft(), coverage)
    assert kept is not None
    assert [c["id"] for c in kept.cases] == ["one", "two", "three"]  # four: no model covers it
    assert kept.variants == {"a": {"prompt": "p.txt", "model": "a", "cases": ["two"]},
                             "b": {"prompt": "p.txt", "model": "b", "cases": ["one", "three"]}}  # suite order
    assert kept.baseline == "b"  # the variant covering most
    assert kept.thresholds == {"grounded_rate": 0.85, "variants": {}}  # c's threshold went with it


def test_a_variant_covering_every_kept_case_lists_none() -> None:
    coverage = [ModelCoverage("a", "a", covered=["one", "two"]), ModelCoverage("b", "b", covered=["two"])]
    kept = covered_draft(_draft(), coverage)
    assert kept is not None and "cases" not in kept.variants["a"] and kept.variants["b"]["cases"] == ["two"]
    assert kept.baseline == "a"


def test_nothing_covered_is_no_suite() -> None:
    assert covered_draft(_draft(), [ModelCoverage("a", "a", left_out={"one": "x"})]) is None


@pytest.mark.slow
def test_a_cache_holding_more_gleanings_than_the_settings_ask_is_left_out_with_the_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """GraphRAG 2.7.0 gleaned twice; a project now set to `max_gleanings: 1` would send fewer calls
    than its cache holds: no conversation of the cache is the harness's, and none is half-replayed."""
    root = tmp_path / "project"
    shutil.copytree(CAPTURES / "graphrag-2.7.0-cache", root)
    settings = root / "settings.yaml"
    settings.write_text(settings.read_text(encoding="utf-8").replace("max_gleanings: 2", "max_gleanings: 1"),
                        encoding="utf-8")
    imported = import_with_cache(capsys, monkeypatch, tmp_path / "work", "graphrag", root, "proj",
                                 "--graphrag-version", "2.7.0")
    assert imported.code == 2
    assert "gpt-4o: 0 of 13 cases covered" in imported.out
    assert "more call(s) of this conversation than the harness sends (max_gleanings?)" in imported.err
