"""`harness import graphrag ROOT --cache` (issue 27, item 4): a GraphRAG project's LLM cache becomes
cassettes, one variant per cached model, each on the cases its model covers, and `run --record-mode
none` scores them, reading per entry the records `harness audit-cache` reads.

The projects are real: engine_captures/graphrag-<version>-cache/ were indexed by GraphRAG 0.5.0,
1.2.0, 2.7.0 and 3.3.0 themselves against a canned local server (scripts/capture_graphrag_cache.py):
first two documents with gpt-4o-mini, then a third document with the settings switched to gpt-4o.
0.x-2.x key a call on its model, so gpt-4o answered every text unit again; 3.x keys it on the
messages only, so gpt-4o answered only the new text units."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml

from harness.llm.engine_conversation import conversation_for
from harness.importers.graphrag_cache import graphrag3_cache_key

from ..support.cache_import import (assert_rounds_read_as_audit, cassette_files, covered_suite, import_with_cache,
                                    replay)

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"

# version -> (text units, {model: text units its cache covers}, in the suite's variant order)
COVERAGE = {
    "0.5.0": (14, {"gpt-4o": 14, "gpt-4o-mini": 7}),
    "1.2.0": (14, {"gpt-4o": 14, "gpt-4o-mini": 7}),
    "2.7.0": (13, {"gpt-4o": 13, "gpt-4o-mini": 7}),
    "3.3.0": (9, {"gpt-4o-mini": 6, "gpt-4o": 3}),
}


@pytest.mark.slow
@pytest.mark.parametrize("version", sorted(COVERAGE))
def test_a_real_cache_replays_every_covered_case_as_audit_reads_it(version: str, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = CAPTURES / f"graphrag-{version}-cache"
    total, covered = COVERAGE[version]
    imported = import_with_cache(capsys, monkeypatch, tmp_path / "work", "graphrag", root, "proj",
                                 "--graphrag-version", version)
    suite = covered_suite(imported)
    for model, count in covered.items():
        assert f"cache: {model}: {count} of {total} cases covered" in imported.out
    assert suite.variant_names() == list(covered)  # a variant per cached model, named after it
    assert suite.spec.engine == f"graphrag-{version}"
    # every case some model covers is kept (here: every text unit); a variant lists its cases when it lacks some
    assert len(suite.cases) == total
    for name, count in covered.items():
        assert len(suite.variant_cases(name)) == count
        assert (suite.spec.variants[name].cases is None) == (count == len(suite.cases))
    assert cassette_files(suite) == sorted(f"{v}/{c.id}.json" for v, c in suite.pairs())  # none orphaned

    outcome = replay(suite, tmp_path / "reports")
    assert not outcome.missing and not outcome.failures
    assert len(outcome.results) == sum(covered.values())  # no case scored as an empty answer
    checked = assert_rounds_read_as_audit(outcome, root / "cache", "graphrag")
    kinds = {rnd.kind for row in outcome.results for rnd in row.rounds}
    assert kinds == {"extract", "continue", "loop"} and checked > 2 * len(outcome.results)


@pytest.mark.slow
def test_compare_pairs_the_cached_models_on_the_cases_both_answered(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.cli import main

    root = CAPTURES / "graphrag-2.7.0-cache"
    suite = covered_suite(import_with_cache(capsys, monkeypatch, tmp_path / "work", "graphrag", root, "proj",
                                            "--graphrag-version", "2.7.0"))
    outcome = replay(suite, tmp_path / "reports")
    capsys.readouterr()
    assert main(["compare", str(outcome.run_dir), str(outcome.run_dir), "--variant-a", "gpt-4o",
                 "--variant-b", "gpt-4o-mini"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.endswith(f"(7 paired cases; 6 only in {outcome.run_dir}:gpt-4o: left out; changes are B minus A)")
    summary = json.loads((outcome.run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["comparisons"]["gpt-4o-mini"]["cases"]["paired"] == 7


def test_the_3x_cache_key_is_the_engines() -> None:
    """The key of each text unit's first request names a file the real 3.3.0 wrote, and so does the
    key of its continuation: the assistant turn keyed as GraphRAG's builder holds it (with
    `refusal: None`, never sent), or no continuation would be found."""
    pq = pytest.importorskip("pyarrow.parquet")
    root = CAPTURES / "graphrag-3.3.0-cache"
    folder = root / "cache" / "extract_graph"
    prompt = (root / "prompts" / "extract_graph.txt").read_text(encoding="utf-8")
    names = {p.name for p in folder.iterdir()}
    continue_prompt = conversation_for("graphrag-3.3.0").continue_prompt
    units = pq.read_table(root / "output" / "text_units.parquet").to_pylist()
    for unit in units:
        first = [{"role": "user", "content": prompt.format(entity_types="organization,person,geo",
                                                           input_text=unit["text"].strip())}]
        key = graphrag3_cache_key(first)
        assert key in names
        answer = json.loads((folder / key).read_text(encoding="utf-8"))["result"]["response"]["content"]
        history = [*first, {"role": "assistant", "content": answer}, {"role": "user", "content": continue_prompt}]
        assert graphrag3_cache_key(history) in names
        # keyed as the messages are sent, without GraphRAG's `refusal: None`: no such file
        sent = yaml.dump({"messages": history, "response_format": None}, sort_keys=True)
        assert hashlib.sha256(sent.encode("utf-8")).hexdigest() + "_v4" not in names


@pytest.mark.parametrize(("version", "reason"), [
    ("2.7.0", "the harness's first request differs from the cached one"),
    ("3.3.0", "not in the cache (no entry extract_graph/"),
])
def test_a_prompt_changed_since_indexing_covers_nothing(version: str, reason: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    root = tmp_path / "project"
    shutil.copytree(CAPTURES / f"graphrag-{version}-cache", root)
    prompt = root / "prompts" / "extract_graph.txt"
    prompt.write_text(prompt.read_text(encoding="utf-8").replace("-Goal-", "-GOAL-"), encoding="utf-8")
    imported = import_with_cache(capsys, monkeypatch, tmp_path / "work", "graphrag", root, "proj",
                                 "--graphrag-version", version, "--limit", "3")
    assert imported.code == 2
    assert "gpt-4o: 0 of 3 cases covered" in imported.out
    assert reason in imported.err
    assert "no cache suite written" in imported.err
    assert not imported.suite_path.exists()
    assert not list((tmp_path / "work").rglob("cassettes/**/*.json"))
