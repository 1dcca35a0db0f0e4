"""The cassette checks: the depth count and the shortcuts for bodies stored parsed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.llm.cassette_schema import CorruptCassette, nesting_depth, validate_cassette
from harness.llm.cassette_store import stored_body_hash
from harness.llm.request_digest import body_hash
from harness.text import scrub_surrogates

# JSON values with lone surrogates (as a "\ud800" escape reads), pairs split in two, and keys
# that sort differently once a surrogate is replaced
TEXT = st.text(alphabet=st.sampled_from(["a", "b", "é", " ", "\ud800", "\udc00", "\ud83d", "\ude00", "\ufffd"]),
               max_size=4)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                    max_leaves=12)


def depth_as_defined(value: Any) -> int:
    """The plain recursive definition: 1 + the deepest child for a list or dict, 0 otherwise."""
    if isinstance(value, dict):
        return 1 + max((depth_as_defined(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth_as_defined(v) for v in value), default=0)
    return 0


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(JSON, st.integers(min_value=0, max_value=6))
def test_nesting_depth_is_the_depth_and_stops_just_past_the_limit(value: Any, limit: int) -> None:
    depth = depth_as_defined(value)
    assert nesting_depth(value, limit) == (depth if depth <= limit else limit + 1)


@pytest.mark.slow
def test_nesting_depth_of_a_deep_value_does_not_recurse() -> None:
    value: Any = []
    for _ in range(100_000):
        value = [value, "leaf"]
    assert nesting_depth(value) == 65


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(JSON | st.dictionaries(st.sampled_from(["model", "user", "metadata", "store", "\ud800"]), JSON, max_size=4))
def test_a_stored_json_body_hashes_as_its_written_text(value: Any) -> None:
    # the store hashes the value without writing its text first: it must be the text's hash
    text = scrub_surrogates(json.dumps(value, ensure_ascii=False))
    assert stored_body_hash({"json": value}) == body_hash(text)


@pytest.mark.parametrize("body", [None, "plain text", '{"model": "m", "user": "u"}', "\ud800 lone"])
def test_a_stored_text_body_hashes_as_body_hash(body: str | None) -> None:
    assert stored_body_hash(scrub_surrogates(body) if body else body) == body_hash(scrub_surrogates(body) if body else body)


def cassette(answer: Any, request_body: Any = None) -> dict[str, Any]:
    return {"version": 1, "interactions": [{
        "request": {"method": "POST", "uri": "http://h/v1/chat/completions",
                    "body": {"json": {"model": "m"}} if request_body is None else request_body, "headers": {}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": answer}},
    }]}


ANSWERS = [
    {"choices": [{"message": {"content": "hi"}}], "usage": {"prompt_tokens": 1}},
    {"choices": "x"}, {"choices": [1]}, {"choices": [{"message": 2}]}, {"usage": []},
    {"usage": {"completion_tokens": -1}}, {"usage": {"total_tokens": True}}, {"usage": {"prompt_tokens": 1.5}},
    [], "text", None, {"choices": [{"message": {"content": "\ud800"}}]},
    {"deep": json.loads("[" * 58 + "]" * 58)},  # within the interaction's 64 levels
]


def outcome(data: dict[str, Any], **options: Any) -> Any:
    try:
        return validate_cassette(data, **options)
    except CorruptCassette as exc:
        return str(exc)


@pytest.mark.parametrize("answer", ANSWERS)
def test_an_answer_stored_parsed_is_checked_as_its_text(answer: Any) -> None:
    # the answer's value is checked without reading its text back: the same verdict as the text's
    parsed, as_text = outcome(cassette({"json": answer})), outcome(cassette(json.dumps(answer, ensure_ascii=False)))
    if isinstance(as_text, str):
        assert parsed == as_text
    else:
        assert parsed["interactions"][0]["response"] == as_text["interactions"][0]["response"]


@pytest.mark.parametrize("request_body", [{"json": {"model": "m"}}, "text", None, {"json": 1, "x": 2}, 5, ["a"]])
@pytest.mark.parametrize("answer", [ANSWERS[0], {"choices": "x"}])
def test_request_bodies_kept_as_stored_are_checked_alike(request_body: Any, answer: Any) -> None:
    kept, written = outcome(cassette({"json": answer}, request_body), request_text=False), outcome(cassette({"json": answer}, request_body))
    if isinstance(written, str):
        assert kept == written
    else:
        body = kept["interactions"][0]["request"].pop("body")
        expected = written["interactions"][0]["request"].pop("body")
        assert kept == written
        assert (body if not isinstance(body, dict) else json.dumps(body["json"], ensure_ascii=False)) == expected


def _cassette(harness: Any) -> dict[str, Any]:
    answer = {"choices": [{"message": {"role": "assistant", "content": "x"}}]}
    return {"version": 1, "interactions": [{
        "request": {"method": "POST", "uri": "https://api.example.com/v1/chat/completions", "body": None, "headers": {}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": json.dumps(answer)},
                     "harness": harness}}]}


def test_what_the_harness_kept_of_a_call_is_read_back():
    checked = validate_cassette(_cassette({"latency_s": 1.25, "batch": False}))
    assert checked["interactions"][0]["response"]["harness"] == {"latency_s": 1.25, "batch": False}


def test_a_cassette_without_the_harness_key_reads_as_before():
    data = _cassette(None)
    del data["interactions"][0]["response"]["harness"]
    assert "harness" not in validate_cassette(data)["interactions"][0]["response"]


@pytest.mark.parametrize(("harness", "place"), [
    ({"latency_s": -1}, "harness.latency_s"), ({"latency_s": "1"}, "harness.latency_s"),
    ({"latency_s": True}, "harness.latency_s"), ({"latency_s": float("inf")}, "harness.latency_s"),
    ({"batch": "yes"}, "harness.batch"), ({"cost": 1}, "harness.cost"), ([], "response.harness"),
])
def test_a_damaged_harness_key_names_its_place(harness: Any, place: str):
    with pytest.raises(CorruptCassette) as caught:
        validate_cassette(_cassette(harness))
    assert place in str(caught.value)
