"""Classification rules one by one: metadata first, then the answer's shape."""

from __future__ import annotations

import pytest

from harness.cache_audit.classify import classify, is_loop_answer, shape_kind
from harness.cache_audit.entry import CacheEntry


def _graphrag(hints: tuple[str, ...] = (), answer: str = "text", request: str | None = None) -> CacheEntry:
    return CacheEntry(id="x", engine="graphrag-2.x", layout="t", answer=answer, request=request, hints=hints)


def test_call_name_beats_folder_and_answer() -> None:
    assert classify(_graphrag(("extract_graph", "extract-loopcheck-0"), "Y")).kind == "loop"
    assert classify(_graphrag(("extract_graph", "extract-continuation-0"), '("entity"<|>A<|>B<|>c)')).kind == "continuation"
    # a gleaning of claims answers claims
    assert classify(_graphrag(("claim_extraction", "extract-continuation-0"), "(A<|>B<|>C<|>TRUE)")).kind == "claims"


def test_request_text_names_loop_continuation_and_summary() -> None:
    loop = "It appears some entities and relationships may have still been missed. Answer Y if there are still ..."
    assert classify(_graphrag(answer="N", request=loop)).source == "request"
    loop_1_0 = "It appears some entities may have still been missed.  Answer YES {tuple_delimiter} NO if there are still entities that need to be added.\n"
    assert classify(_graphrag(answer="NO", request=loop_1_0)).kind == "loop"
    assert classify(_graphrag(answer="(x)", request="MANY entities were missed in the last extraction.")).kind == "continuation"
    summary = "generating a comprehensive summary of the data provided below.\nEntities: \"A\"\nDescription List: []"
    assert classify(_graphrag(answer="A is a thing.", request=summary)).kind == "summary"


@pytest.mark.parametrize(("folder", "kind"), [
    ("summarize_descriptions", "summary"), ("community_reporting", "report"), ("extract_claims", "claims"),
    ("claim_extraction", "claims"), ("entity_extraction", "extraction"), ("extract_graph", "extraction"),
    ("text_embedding", "embedding"),
])
def test_folders(folder: str, kind: str) -> None:
    assert classify(_graphrag((folder,), "some answer")).kind == kind


def test_a_bare_y_or_n_in_an_extraction_folder_is_a_loop_answer() -> None:
    assert classify(_graphrag(("extract_graph",), "N")).kind == "loop"
    assert classify(_graphrag(("extract_graph",), "No entities found.")).kind == "extraction"


@pytest.mark.parametrize(("cache_type", "mode", "answer", "prompt", "expected"), [
    ("extract", "default", "entity<|#|>A<|#|>t<|#|>d", None, ("extraction", None)),
    ("extract", "default", "yes", None, ("loop", None)),
    ("extract", "default", "entity<|#|>A<|#|>t<|#|>d", "identify and extract any **missed or incorrectly formatted** entities", ("continuation", None)),
    ("summary", "default", "A is a thing.", None, ("summary", None)),
    ("keywords", "mix", '{"high_level_keywords": []}', None, ("query", "keywords")),
    ("query", "naive", "An answer.", None, ("query", "naive")),
    (None, "default", "A is a thing.", None, ("summary", None)),  # older LightRAG: no cache_type
    (None, "global", '{"high_level_keywords": [], "low_level_keywords": []}', None, ("query", "keywords")),
    (None, "local", "An answer.", None, ("query", "local")),
])
def test_lightrag(cache_type: str | None, mode: str, answer: str, prompt: str | None, expected: tuple) -> None:
    entry = CacheEntry(id="x", engine="lightrag", layout="t", answer=answer, request=prompt, cache_type=cache_type, mode=mode)
    kind = classify(entry)
    assert (kind.kind, kind.query_kind) == expected


@pytest.mark.parametrize(("answer", "expected"), [
    ('{"points": [{"description": "x [Data: Reports (1)]", "score": 50}]}', ("query", "map")),
    ('{"intermediate_answer": "a", "score": 5, "follow_up_queries": []}', ("query", "drift")),
    ('{"response": "a", "score": 5, "follow_up_queries": []}', ("query", "drift-local")),
    ('{"reason": "r", "rating": 3}', ("query", "rate")),
    ('{"title": "t", "summary": "s", "findings": []}', ("report", None)),
    ('("entity"<|>A<|>PERSON<|>d)##', ("extraction", None)),
    ("Y", ("loop", None)),
    ("A plain paragraph of prose.", ("unknown", None)),
])
def test_answer_shape(answer: str, expected: tuple) -> None:
    kind = shape_kind(answer)
    assert (kind.kind, kind.query_kind) == expected


def test_loop_answers() -> None:
    assert all(is_loop_answer(a) for a in ("Y", "N", "YES", "no", " Yes. "))
    assert not any(is_loop_answer(a) for a in ("Yesterday", "No entities were found", ""))
