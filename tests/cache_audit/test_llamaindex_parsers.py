"""The harness's model of LlamaIndex's triple parsers keeps exactly what llama-index-core 0.14.25
kept from the same answers (tests/fixtures/engine_captures/llamaindex-0.14.25/parsed.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cache_audit.engines import (
    EngineParseError,
    engine_parser,
    llamaindex_counts,
    llamaindex_dynamic_triplets,
    llamaindex_extractor,
    llamaindex_triplets,
)
from harness.cache_audit.llamaindex_parser import llamaindex_graph

CAPTURE = Path(__file__).parents[1] / "fixtures" / "engine_captures" / "llamaindex-0.14.25"
PARSED = json.loads((CAPTURE / "parsed.json").read_text(encoding="utf-8"))["parsed"]
ANSWERS = sorted(PARSED)


def _answer(name: str) -> str:
    return (CAPTURE / "answers" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ANSWERS)
def test_simple_parser_keeps_what_llamaindex_keeps(name: str) -> None:
    assert [list(t) for t in llamaindex_triplets(_answer(name))] == PARSED[name]["default_parse_triplets_fn"]["kept"]


@pytest.mark.parametrize("props", [False, True])
@pytest.mark.parametrize("name", ANSWERS)
def test_dynamic_parser_keeps_what_llamaindex_keeps(name: str, props: bool) -> None:
    captured = PARSED[name]["default_parse_dynamic_triplets_with_props" if props else "default_parse_dynamic_triplets"]
    if "raises" in captured:
        with pytest.raises(EngineParseError):
            llamaindex_dynamic_triplets(_answer(name), props=props)
        return
    keys = ("head", "head_type", "relation", "tail", "tail_type")
    assert [dict(zip(keys, t)) for t in llamaindex_dynamic_triplets(_answer(name), props=props)] == captured["kept"]


def test_stray_bracket_answer_keeps_all_three_triples() -> None:
    """The issue's case: a stray `],` after the first item; LlamaIndex's regex fallback reads on."""
    name, count = engine_parser("llamaindex", _answer("dynamic_stray_bracket.txt"))
    assert name == "llamaindex-dynamic"
    assert count(_answer("dynamic_stray_bracket.txt")).relationships == 3


def test_json_object_answer_keeps_nothing() -> None:
    """DynamicLLMPathExtractor catches its parser's exception and keeps no triple."""
    assert llamaindex_counts(_answer("dynamic_object.json"), "dynamic").relationships == 0


def test_simple_answers_are_read_with_the_simple_parser() -> None:
    name, count = engine_parser("llamaindex", _answer("simple_malformed.txt"))
    assert name == "llamaindex-simple"
    assert count(_answer("simple_malformed.txt")).relationships == len(PARSED["simple_malformed.txt"]["default_parse_triplets_fn"]["kept"])


@pytest.mark.parametrize("name", ANSWERS)
def test_the_graph_holds_the_triples_llamaindex_keeps(name: str) -> None:
    """The graph a run scores: the triples the extractor chosen for the answer keeps, each once,
    and their names as nodes (typed by the dynamic extractor)."""
    answer = _answer(name)
    extractor = llamaindex_extractor(answer)
    captured = PARSED[name]["default_parse_triplets_fn" if extractor == "simple" else "default_parse_dynamic_triplets"]
    graph = llamaindex_graph([answer])
    assert graph.parser == f"llamaindex-{extractor}"
    if "raises" in captured:
        assert graph.entities == [] and graph.relationships == []
        assert sum(graph.reading.lost.values()) == 1
        return
    if extractor == "simple":
        triples = [tuple(t) for t in captured["kept"]]
    else:
        triples = [(t["head"], t["relation"], t["tail"]) for t in captured["kept"]]
    assert [(r.source, r.predicate, r.target) for r in graph.relationships] == list(dict.fromkeys(triples))
    assert [e.name for e in graph.entities] == list(dict.fromkeys(n for s, _, o in triples for n in (s, o)))
    if extractor != "simple":
        types: dict[str, str] = {}  # a node's label: the last one a triple gave it (the store upserts)
        for t in captured["kept"]:
            types[t["head"]], types[t["tail"]] = t["head_type"], t["tail_type"]
        assert {e.name: e.type for e in graph.entities} == types
