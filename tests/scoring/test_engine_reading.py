"""What the engine a suite names keeps from each answer, beside what the harness recovers (issue 27,
item 0): the audit's model of GraphRAG's parser equals the real versions' on captured conversations
(tests/fixtures/engine_parsing/, written by scripts/capture_graphrag_parsing.py from GraphRAG's own
code), and a run of a suite with `engine:` shows it in results, summary.json, reports and console."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from ..conftest import script_for
from ..support.fake_server import FakeOpenAIServer
from harness.finish import finish_outcome
from harness.model import ExtractedGraph, GoldEntity, Round
from harness.reports.console import print_run_table
from harness.run.schedule import RunOptions, run_suite
from harness.run.evaluation import evaluate_case, merge_rounds
from harness.run.plan import plan_variant
from harness.scoring.engine_reading import read_as_engine
from harness.suites import Suite, load_suite

CAPTURES = Path(__file__).resolve().parent.parent / "fixtures" / "engine_parsing"
LLAMAINDEX = Path(__file__).resolve().parent.parent / "fixtures" / "engine_captures" / "llamaindex-0.14.25"


def _rounds(answers: list[str]) -> list[Round]:
    return [Round(index=i, kind="extract" if i == 0 else "continue", output=a) for i, a in enumerate(answers)]


def _engine_of(data: dict[str, Any]) -> str:
    return f"graphrag-{data['graphrag']}" if "graphrag" in data else f"lightrag-{data['lightrag']}"


def _naming(suite: Suite, engine: str) -> Suite:
    suite.spec = suite.spec.model_copy(update={"engine": engine})
    return suite


def _relationships(graph: dict[str, list[dict[str, Any]]] | ExtractedGraph, undirected: bool) -> list[Any]:
    pairs = [(r["source"], r["target"]) if isinstance(r, dict) else (r.source, r.target)
             for r in (graph["relationships"] if isinstance(graph, dict) else graph.relationships)]
    return sorted(tuple(sorted(p)) for p in pairs) if undirected else pairs


def _captures() -> list[Path]:
    """Every capture of a version's graph: hand-written, real answers (real-smollm2/), generated."""
    return sorted(p for p in CAPTURES.rglob("*.json") if not p.name.startswith("answers-"))


@pytest.mark.parametrize("capture", _captures(), ids=lambda p: str(p.relative_to(CAPTURES).with_suffix("")))
def test_a_case_is_scored_on_the_graph_the_real_version_kept(capture: Path, suite: Suite) -> None:
    """Issue 27's done-when, per supported version: the per-answer entity and relationship counts
    (and names) the harness scores by default are those of the engine's own parser, captured from
    the real version; the harness's own graph is kept beside them as `recovered`."""
    data = json.loads(capture.read_text(encoding="utf-8"))
    engine = _engine_of(data)
    suite = _naming(suite, engine)
    plan = plan_variant(suite, "default")
    undirected = engine.startswith("lightrag")  # LightRAG's graph is undirected
    for name, conversation in data["conversations"].items():
        rounds = _rounds(conversation["answers"])
        row = evaluate_case(suite, plan, suite.cases[0], rounds, "hash")
        real = conversation["graph"]
        assert row.engine is not None and row.recovered is not None, name
        assert (row.engine.entities, row.engine.relationships) == (len(real["entities"]), len(real["relationships"])), name
        names, real_names = [e.name for e in row.graph.entities], [e["name"] for e in real["entities"]]
        assert (sorted(names) == sorted(real_names)) if undirected else (names == real_names), name
        assert _relationships(row.graph, undirected) == _relationships(real, undirected), name
        assert row.recovered.graph == merge_rounds(rounds, plan)[0], name
        assert row.score is not None and row.recovered.score is not None, name


def test_the_default_figures_are_the_engines_and_the_recovered_ones_the_harnesss(suite: Suite) -> None:
    """GraphRAG 3.3.0 keeps one entity of three from answers whose records are separated by blank
    lines: recall on its graph is lower than on the harness's, and each stays in its place."""
    data = json.loads((CAPTURES / "graphrag-3.3.0.json").read_text(encoding="utf-8"))["conversations"]
    suite = _naming(suite, "graphrag-3.3.0")
    plan = plan_variant(suite, "default")
    case = suite.cases[0].model_copy(update={"entities": [GoldEntity(name="Ana Ruiz"), GoldEntity(name="Lowbridge")],
                                             "relationships": []})
    row = evaluate_case(suite, plan, case, _rounds(data["blank-lines"]["answers"]), "hash")
    assert row.score is not None and row.recovered is not None and row.recovered.score is not None
    assert [e.name for e in row.graph.entities] == ["ANA RUIZ"]
    assert row.score.entities.recall == 0.5
    assert row.recovered.score.entities.recall == 1.0
    assert row.engine is not None and row.engine.lost == 3  # LOWBRIDGE, KESTREL TRUST and the relationship


def test_the_reasons_name_what_the_engine_did(suite: Suite) -> None:
    data = json.loads((CAPTURES / "graphrag-3.3.0.json").read_text(encoding="utf-8"))["conversations"]
    plan = plan_variant(suite, "default")

    def reasons(name: str) -> dict[str, int]:
        rounds = _rounds(data[name]["answers"])
        return read_as_engine("graphrag-3.3.0", rounds, merge_rounds(rounds, plan)[0], plan.delimiters).read.reasons

    assert reasons("clean") == {}
    assert reasons("blank-lines") == {"record not separated by '##' (read into the record before it)": 3}
    assert reasons("four-field-relationships") == {"relationship with 4 fields (GraphRAG needs 5)": 2}
    assert reasons("seam") == {
        "record glued after <|COMPLETE|> (answers joined before parsing)": 1,
        "relationship naming an entity no entity record names (filter_orphan_relationships)": 1}


@pytest.mark.parametrize("answer", sorted(p.name for p in (LLAMAINDEX / "answers").iterdir()))
def test_a_llamaindex_suite_is_scored_on_the_triples_llamaindex_keeps(answer: str, suite: Suite) -> None:
    parsed = json.loads((LLAMAINDEX / "parsed.json").read_text(encoding="utf-8"))["parsed"][answer]
    text = (LLAMAINDEX / "answers" / answer).read_text(encoding="utf-8")
    suite = _naming(suite, "llamaindex-0.14.25")
    plan = plan_variant(suite, "default")
    assert plan.max_gleanings == 0  # LlamaIndex's extractors make one call per chunk
    row = evaluate_case(suite, plan, suite.cases[0], _rounds([text]), "hash")
    dynamic = '"head"' in text or "'head'" in text  # the suite's format says neither: chosen per answer
    kept = parsed["default_parse_dynamic_triplets" if dynamic else "default_parse_triplets_fn"]
    triples = [] if "raises" in kept else [
        (t["head"], t["relation"], t["tail"]) if dynamic else tuple(t) for t in kept["kept"]]
    assert [(r.source, r.type, r.target) for r in row.graph.relationships] == list(dict.fromkeys(triples))
    assert row.engine is not None and row.engine.relationships == len(dict.fromkeys(triples))


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

    # the variant's figures are on the engine's graphs; the harness's own are the labelled second column
    variant = summary["variants"]["default"]
    assert variant["metrics"]["metrics"]["entity_recall"]["micro"] == 0.2
    assert variant["recovered"]["metrics"]["metrics"]["entity_recall"]["micro"] == 0.4
    assert (variant["graph"]["nodes"], variant["recovered"]["graph"]["nodes"]) == (2, 4)
    assert (mayor_row["score"]["entities"]["recall"], mayor_row["recovered"]["score"]["entities"]["recall"]) == (0.25, 0.5)
    # the gate and junit judge the engine's figures
    gate = json.loads((outcome.run_dir / "gate.json").read_text(encoding="utf-8"))
    rule = next(r for r in gate["rules"] if (r["variant"], r["metric"]) == ("default", "entity_recall"))
    assert (rule["value"], rule["status"]) == (0.2, "fail")
    junit = (outcome.run_dir / "junit.xml").read_text(encoding="utf-8")
    mayor_case = junit[junit.index('classname="towns.default" name="mayor"'):]
    assert '<property name="entity_recall" value="0.250000" />' in mayor_case[:mayor_case.index("</testcase>")]

    report = (outcome.run_dir / "report.md").read_text(encoding="utf-8")
    assert "## What the engine keeps" in report
    assert "| default | graphrag-3.3.0 (graphrag-3.x) |" in report
    assert "| default: graphrag-3.3.0's graph (scored) | default: harness-recovered graph |" in report
    assert "| entity recall | 20.0% | 40.0% |" in report
    assert "Scored on the graph graphrag-3.3.0 would keep" in report
    # the harness drops nothing here, the engine loses 3: the records row says both
    assert "| records parsed / seen (dropped; lost by the engine) | 5/5 (0; graphrag-3.3.0 loses 3) |" in report
    html = (outcome.run_dir / "report.html").read_text(encoding="utf-8")
    assert "What the engine keeps" in html and "harness-recovered graph</th>" in html
    assert "5/5 (0; graphrag-3.3.0 loses 3)" in html

    out = io.StringIO()
    print_run_table(finished.summary, outcome.run_dir, console=Console(file=out, width=300))
    assert ("default: graphrag-3.3.0 keeps 2 entities / 0 relationships, harness recovers 4 / 1, "
            "lost by the engine: 3 in 2/3 cases (2 record not separated by '##'") in out.getvalue()
    assert ("default: figures on graphrag-3.3.0's graph (the table's, gated) / on the harness-recovered graph: "
            "entity recall 20.0% / 40.0%") in out.getvalue()


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


def test_an_entity_kept_only_as_a_relationship_endpoint_is_lost(suite: Suite) -> None:
    """GraphRAG 2.7.0 loses IDA MOSS's record at the seam, but her relationship adds a node of that
    name without type or description: the record is lost, and the scored graph holds the bare node."""
    data = json.loads((CAPTURES / "graphrag-2.7.0.json").read_text(encoding="utf-8"))["conversations"]
    suite = _naming(suite, "graphrag-2.7.0")
    plan = plan_variant(suite, "default")
    row = evaluate_case(suite, plan, suite.cases[0], _rounds(data["seam"]["answers"]), "hash")
    assert row.engine is not None and row.engine.lost == 1
    assert row.engine.reasons == {"record glued after <|COMPLETE|> (answers joined before parsing)": 1}
    assert [(e.name, e.type, e.description) for e in row.graph.entities if e.name == "IDA MOSS"] == [("IDA MOSS", "", "")]


def test_a_llamaindex_suites_format_names_the_extractor_that_reads_it(suite: Suite) -> None:
    """A `json_triples` suite runs DynamicLLMPathExtractor, whose parser reads a `(s, p, o)` line as
    nothing; a `llamaindex` suite runs SimpleLLMPathExtractor, whose parser keeps it."""
    suite = _naming(suite, "llamaindex")
    lines = _rounds(["(Ada Lovelace, met, Charles Babbage)\n(Ada Lovelace, wrote, notes)"])
    for fmt, triples in (("llamaindex", 2), ("json_triples", 0)):
        variant = suite.spec.variants["default"].model_copy(update={"format": fmt})
        suite.spec.variants["default"] = variant
        row = evaluate_case(suite, plan_variant(suite, "default"), suite.cases[0], lines, "hash")
        assert row.engine is not None and row.engine.relationships == triples, fmt
        assert row.engine.parser == ("llamaindex-simple" if fmt == "llamaindex" else "llamaindex-dynamic")


def test_graphrag_2x_names_the_records_its_graph_merges(suite) -> None:
    # ARN and Arn, MILLBROOK twice; ARN-MILLBROOK three times, once the other way round: 2.7.0's
    # graph keeps 2 nodes and 1 edge (tests/fixtures/engine_parsing/graphrag-2.7.0.json, "repeats")
    answers = json.loads((CAPTURES / "graphrag-2.7.0.json").read_text(encoding="utf-8"))["conversations"]["repeats"]["answers"]
    plan = plan_variant(suite, "default")
    rounds = _rounds(answers)
    read = read_as_engine("graphrag-2.7.0", rounds, merge_rounds(rounds, plan)[0], plan.delimiters).read
    assert (read.entities, read.relationships) == (2, 1)
    assert read.reasons == {"entity named again (one node of the engine's graph)": 2,
                            "relationship written again, either way round (one edge of the engine's graph)": 2}
