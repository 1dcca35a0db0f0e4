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
    llamaindex_triplets,
)

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
