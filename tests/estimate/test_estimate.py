"""`harness estimate` end to end on the shipped podcast suite (hand-written answers, replayed) and
a small cache in GraphRAG 1.x's layout; the console table and --json agree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.estimate.estimate import estimate
from harness.estimate.render import render
from harness.suites import load_suite
from tests.support.graphrag_cache_files import write_fnllm_cache

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # a replayed run of the shipped suite, then the command


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the podcast suite with one finished replayed run under <root>/reports."""
    root = tmp_path_factory.mktemp("podcast")
    shutil.copytree(REPO / "prompts", root / "prompts")
    for part in ("chunks", "cassettes"):
        shutil.copytree(REPO / "fixtures" / part / "podcast", root / "fixtures" / part / "podcast")
    (root / "suites").mkdir()
    shutil.copy(REPO / "suites" / "podcast.yaml", root / "suites" / "podcast.yaml")
    code = main(["run", str(root / "suites" / "podcast.yaml"), "--record-mode", "none", "--reports",
                 str(root / "reports"), "--run-id", "r1", "--variant", "default", "--variant", "tuned"])
    assert code in (0, 1)
    return root


def test_counts_project_every_variant(replayed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = load_suite(replayed / "suites" / "podcast.yaml")
    result = estimate(suite, run=None, reports=replayed / "reports", corpus_dir=None, documents=100, tokens=500_000,
                      cache=None, concurrency=None)
    assert [v.variant for v in result.variants] == ["default", "tuned"]  # the variants the run measured
    assert result.corpus.chunks == 500 and result.concurrency == 8
    for variant in result.variants:
        extraction = variant.stages[0]
        assert variant.sampled == 12 and extraction.calls.value == 1000  # one gleaning per chunk, every case
        low, value, high = extraction.tokens.low, extraction.tokens.value, extraction.tokens.high
        assert low is not None and value is not None and high is not None and low < value < high
        assert "mean chunk" in extraction.source  # hand-written chunks are far shorter than 1,200 tokens
    lines = render(result)
    assert lines[0] == "podcast: indexing 500 chunk(s) of 100 document(s), 540,000 tokens in its chunks"
    assert any(line.startswith("default  extraction  1,000") for line in lines)
    assert main(["estimate", str(replayed / "suites" / "podcast.yaml"), "--reports", str(replayed / "reports"),
                 "--documents", "100", "--tokens", "500000", "--json", "--variant", "tuned"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [v["variant"] for v in data["variants"]] == ["tuned"]
    assert data["variants"][0]["total"]["tokens"]["value"] == result.variants[1].total.tokens.value


def test_a_graphrag_project_corpus_brings_its_cache(replayed: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "input").mkdir(parents=True)
    for chunk in sorted((replayed / "fixtures" / "chunks" / "podcast").iterdir()):
        shutil.copy(chunk, project / "input" / chunk.name)
    (project / "settings.yaml").write_text("llm:\n  model: gpt-4o-mini\n", encoding="utf-8")
    written = write_fnllm_cache(project / "cache", model="gpt-4o-mini-2024-07-18", chunks=4, summaries=6, reports=2)
    suite = load_suite(replayed / "suites" / "podcast.yaml")
    result = estimate(suite, run=replayed / "reports" / "podcast" / "r1", reports=replayed / "reports",
                      corpus_dir=project, documents=None, tokens=None, cache=None, concurrency=2)
    assert result.corpus.chunks == 12 and result.cache is not None and result.cache.chunks == 4
    default = result.variants[0]
    assert [s.name for s in default.stages] == ["extraction", "summary", "report"]
    assert default.stages[2].calls.value == 2 / 4 * 12
    assert default.stages[1].tokens.value == pytest.approx(sum(written["summary"]) / 4 * 12)
    assert result.to_json()["cache"]["calls"] == {"extraction": 4, "continuation": 4, "loop": 4, "summary": 6, "report": 2}


def test_a_run_of_another_suite_is_refused(replayed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "r1"
    shutil.copytree(replayed / "reports" / "podcast" / "r1", run)
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    summary["suite"] = "biomed"
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    assert main(["estimate", str(replayed / "suites" / "podcast.yaml"), "--documents", "3", "--tokens", "9000",
                 "--run", str(run)]) == 2
    assert capsys.readouterr().err.strip().endswith("a run of suite biomed, not podcast")


def test_a_projects_cache_without_usage_is_left_out_said_so(replayed: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "input").mkdir(parents=True)
    (project / "input" / "doc.txt").write_text("Acme hired Bob. " * 300, encoding="utf-8")
    (project / "settings.yaml").write_text("llm:\n  model: gpt-4o-mini\n", encoding="utf-8")
    write_fnllm_cache(project / "cache", usage=False)
    suite = load_suite(replayed / "suites" / "podcast.yaml")
    result = estimate(suite, run=None, reports=replayed / "reports", corpus_dir=project, documents=None, tokens=None,
                      cache=None, concurrency=None)
    assert result.cache is None and [s.name for s in result.variants[0].stages] == ["extraction"]
    assert any("cache is not used" in note and "store no token usage" in note for note in result.notes)
    with pytest.raises(InputError, match="store no token usage"):  # a cache named with --cache must be usable
        estimate(suite, run=None, reports=replayed / "reports", corpus_dir=project, documents=None, tokens=None,
                 cache=project / "cache", concurrency=None)


def test_each_matrix_cell_is_priced_as_the_model_it_called(tmp_path: Path) -> None:
    """A `models:` suite's cells call their own models: each is projected and priced as that model,
    not as the suite's `model:` (every cell was priced as gpt-4o-mini before)."""
    root = tmp_path / "matrix"
    shutil.copytree(REPO / "prompts", root / "prompts")
    for part in ("chunks", "cassettes"):
        for name in ("podcast", "model-matrix"):
            if (REPO / "fixtures" / part / name).is_dir():
                shutil.copytree(REPO / "fixtures" / part / name, root / "fixtures" / part / name)
    (root / "suites").mkdir()
    shutil.copy(REPO / "suites" / "model-matrix.yaml", root / "suites" / "model-matrix.yaml")
    suite_file = root / "suites" / "model-matrix.yaml"
    assert main(["run", str(suite_file), "--record-mode", "none", "--reports", str(root / "reports"),
                 "--run-id", "r1"]) in (0, 1)
    suite = load_suite(suite_file)
    result = estimate(suite, run=None, reports=root / "reports", corpus_dir=None, documents=10, tokens=6_000,
                      cache=None, concurrency=None)
    called = {name: suite.model_settings(name).name for name in suite.cells}
    assert {v.variant: v.model for v in result.variants} == called
    assert len(set(called.values())) == 3
