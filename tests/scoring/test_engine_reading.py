"""What the engine a suite names keeps from each answer, beside what the harness recovers (issue 27,
item 0): the audit's model of GraphRAG's parser equals the real versions' on captured conversations
(tests/fixtures/engine_parsing/, written by scripts/capture_graphrag_parsing.py from GraphRAG's own
code), and a run of a suite with `engine:` shows it in results, summary.json, reports and console."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from ..conftest import script_for
from ..support.fake_server import FakeOpenAIServer
from harness.finish import finish_outcome
from harness.model import Round
from harness.reports.console import print_run_table
from harness.runner import RunOptions, merge_rounds, plan_variant, run_suite
from harness.scoring.engine_reading import read_as_engine
from harness.suites import load_suite

CAPTURES = Path(__file__).resolve().parent.parent / "fixtures" / "engine_parsing"


def _rounds(answers: list[str]) -> list[Round]:
    return [Round(index=i, kind="extract" if i == 0 else "continue", output=a) for i, a in enumerate(answers)]


@pytest.mark.parametrize("capture", sorted(CAPTURES.glob("graphrag-*.json")), ids=lambda p: p.stem)
def test_the_engine_keeps_what_the_real_version_kept(capture: Path, suite) -> None:
    data = json.loads(capture.read_text(encoding="utf-8"))
    plan = plan_variant(suite, "default")
    for name, conversation in data["conversations"].items():
        rounds = _rounds(conversation["answers"])
        graph, _, _ = merge_rounds(rounds, plan)
        read = read_as_engine(f"graphrag-{data['graphrag']}", rounds, graph, plan.delimiters)
        kept = conversation["kept"]
        assert (read.entities, read.relationships) == (len(kept["entities"]), len(kept["relationships"])), name
        # whatever the harness recovers beyond that is lost, and each loss has its reason
        lost = (max(0, len(graph.entities) - read.entities) + max(0, len(graph.relationships) - read.relationships))
        assert read.lost == lost, name
        if lost:
            assert sum(read.reasons.values()) >= 1, name


def test_the_reasons_name_what_the_engine_did(suite) -> None:
    data = json.loads((CAPTURES / "graphrag-3.3.0.json").read_text(encoding="utf-8"))["conversations"]
    plan = plan_variant(suite, "default")

    def reasons(name: str) -> dict[str, int]:
        rounds = _rounds(data[name]["answers"])
        return read_as_engine("graphrag-3.3.0", rounds, merge_rounds(rounds, plan)[0], plan.delimiters).reasons

    assert reasons("clean") == {}
    assert reasons("blank-lines") == {"record not separated by '##' (read into the record before it)": 3}
    assert reasons("four-field-relationships") == {"relationship with 4 fields (GraphRAG needs 5)": 2}
    assert reasons("seam") == {"record glued after <|COMPLETE|> (answers joined before parsing)": 1}


BLANK_LINES = ('("entity"<|>ANA RUIZ<|>person<|>Mayor)\n\n("entity"<|>LOWBRIDGE<|>geo<|>Town)\n\n'
               '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>mayor of)\n<|COMPLETE|>')


@pytest.mark.slow
def test_a_run_of_a_suite_naming_its_engine_shows_what_the_engine_keeps(project: Path, api_key, tmp_path) -> None:
    path = project
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["engine"] = "graphrag-3.3.0"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    suite = load_suite(path)
    script = script_for(suite)
    mayor = next(k for k, v in script.rounds.items() if v[0].startswith('("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>geo<|>Town)##("rel'))
    script.rounds[mayor] = [BLANK_LINES, "<|COMPLETE|>"]
    with FakeOpenAIServer(script) as srv:
        run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path / "rec", base_url=srv.base_url))
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "replay"))
    finished = finish_outcome(outcome, record_mode="none")

    rows = [json.loads(line) for line in (outcome.run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    mayor_row = next(r for r in rows if (r["variant"], r["case_id"]) == ("default", "mayor"))
    assert mayor_row["engine"]["entities"] == 1 and mayor_row["engine"]["relationships"] == 0
    assert (mayor_row["engine"]["recovered_entities"], mayor_row["engine"]["recovered_relationships"]) == (2, 1)
    assert mayor_row["engine"]["lost"] == 2

    summary = json.loads((outcome.run_dir / "summary.json").read_text(encoding="utf-8"))
    engine = summary["variants"]["default"]["engine"]
    # the fixture's flood answer is fenced: GraphRAG reads no tag behind the fence
    assert (engine["engine"], engine["parser"], engine["lost"], engine["cases_with_loss"]) == (
        "graphrag-3.3.0", "graphrag-3.x", 3, 2)
    assert engine["reasons"] == {"record not separated by '##' (read into the record before it)": 2,
                                 "text before the record (a fence, prose or markdown) hides its tag": 1}

    report = (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    assert "## What the engine keeps" in report
    assert "| default | graphrag-3.3.0 (graphrag-3.x) |" in report
    assert "What the engine keeps" in (outcome.run_dir / "report.html").read_text(encoding="utf-8")

    out = io.StringIO()
    print_run_table(finished.summary, outcome.run_dir, console=Console(file=out, width=300))
    assert ("default: graphrag-3.3.0 keeps 2 entities / 0 relationships, harness recovers 4 / 1, "
            "lost by the engine: 3 in 2/3 cases (2 record not separated by '##'") in out.getvalue()


def test_a_suite_names_only_an_engine_the_harness_models(project: Path) -> None:
    from harness.errors import HarnessError

    path = project
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["engine"] = "graphrag-9"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    with pytest.raises(HarnessError, match="graphrag-9"):
        load_suite(path)


@pytest.mark.slow
def test_a_suite_naming_no_engine_writes_rows_and_summaries_as_before(suite, api_key, tmp_path) -> None:
    with FakeOpenAIServer(script_for(suite)) as srv:
        outcome = run_suite(suite, RunOptions(record_mode="once", reports_dir=tmp_path, base_url=srv.base_url))
    finish_outcome(outcome, record_mode="once")
    assert '"engine"' not in (outcome.run_dir / "results.jsonl").read_text(encoding="utf-8")
    assert all("engine" not in v for v in json.loads((outcome.run_dir / "summary.json").read_text())["variants"].values())


def test_graphrag_2x_names_the_records_its_graph_merges(suite) -> None:
    # ARN and Arn, MILLBROOK twice; ARN-MILLBROOK three times, once the other way round: 2.7.0's
    # graph keeps 2 nodes and 1 edge (tests/fixtures/engine_parsing/graphrag-2.7.0.json, "repeats")
    answers = json.loads((CAPTURES / "graphrag-2.7.0.json").read_text(encoding="utf-8"))["conversations"]["repeats"]["answers"]
    plan = plan_variant(suite, "default")
    rounds = _rounds(answers)
    read = read_as_engine("graphrag-2.7.0", rounds, merge_rounds(rounds, plan)[0], plan.delimiters)
    assert (read.entities, read.relationships) == (2, 1)
    assert read.reasons == {"entity named again (one node of the engine's graph)": 2,
                            "relationship written again, either way round (one edge of the engine's graph)": 2}
