"""The cassette writer's fast JSON (`dump_cassette_json`) writes what the straightforward way
(redact a copy, then `json.dumps` with an indent) writes, byte for byte."""

from __future__ import annotations

import copy
import json
from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.llm.cassettes import JsonSerializer, dump_cassette_json, scrub_response
from harness.redaction import Redactor
from harness.llm.request_digest import dump_json

SECRET = "sk-" + "abcdefgh" * 3  # built here so the repository holds no credential-like text
TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from([SECRET, f"Bearer {SECRET}", json.dumps(SECRET), "\ud800 lone", "é\u2028\x00\"\\"]),
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=30,
)


def straightforward(data: object, redactor: Redactor) -> str:
    return dump_json(redactor.redact_data(data), indent=1, sort_keys=True)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(JSON, st.booleans())
def test_the_fast_writer_writes_what_json_dumps_writes(data, with_secret):
    redactor = Redactor([SECRET] if with_secret else [])
    before = copy.deepcopy(data)
    assert dump_cassette_json(data, redactor) == straightforward(data, redactor)
    assert data == before or data != data  # not changed (NaN is never equal to itself)


def test_keys_that_redact_to_the_same_text_keep_the_later_value_as_redact_data_does():
    redactor = Redactor([SECRET])
    data = {SECRET: 1, "[REDACTED]": 2, "a": {f"x{SECRET}": [SECRET], "x[REDACTED]": 0}}
    assert dump_cassette_json(data, redactor) == straightforward(data, redactor)
    assert '"[REDACTED]": 2' in dump_cassette_json(data, redactor)


def test_values_that_are_not_plain_json_are_left_to_json_dumps():
    redactor = Redactor([SECRET])
    data = {"ordered": OrderedDict(b=1, a=SECRET), "number": True, "float": 1e300 * 10, "sub": type("S", (str,), {})("x")}
    assert dump_cassette_json(data, redactor) == straightforward(data, redactor)
    assert dump_cassette_json({1: "a"}, redactor) == straightforward({1: "a"}, redactor)


def test_nesting_deeper_than_recursion_allows_falls_back_like_json_dumps():
    deep: object = "end"
    for _ in range(5000):
        deep = [deep]
    redactor = Redactor([SECRET])
    try:
        expected: object = straightforward(deep, redactor)
    except RecursionError as exc:
        expected = type(exc)
    try:
        got: object = dump_cassette_json(deep, redactor)
    except RecursionError as exc:
        got = type(exc)
    assert got == expected


def test_the_serializer_writes_a_cassette_as_before():
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": f"key {SECRET} é"}]})
    cassette = {"interactions": [{
        "request": {"body": body, "headers": {"content-type": ["application/json"]}, "method": "POST",
                    "uri": "http://h/v1/chat/completions"},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {"content-type": ["application/json"]},
                     "body": {"string": json.dumps({"choices": [{"message": {"content": SECRET}}]})}},
    }]}
    serializer = JsonSerializer(Redactor([SECRET]))
    written = serializer.serialize(copy.deepcopy(cassette))
    expected = copy.deepcopy(cassette)
    expected["version"] = 1
    for interaction in expected["interactions"]:
        interaction["request"]["body"] = {"json": json.loads(interaction["request"]["body"])}
        interaction["response"]["body"]["string"] = {"json": json.loads(interaction["response"]["body"]["string"])}
    assert written == straightforward(expected, Redactor([SECRET])) + "\n"
    assert SECRET not in written


def test_scrub_response_without_an_encoding_keeps_the_caller_s_response_intact():
    raw = json.dumps({"choices": [{"message": {"content": "é"}}]}, ensure_ascii=True).encode()
    response = {"status": {"code": 200, "message": "OK"},
                "headers": {"Content-Type": ["application/json; charset=utf-8"], "x-request-id": ["r"]},
                "body": {"string": raw}}
    before = copy.deepcopy(response)
    kept = scrub_response(response)
    assert response == before
    assert kept == {"status": {"code": 200, "message": "OK"}, "headers": {"Content-Type": ["application/json"]},
                    "body": {"string": json.dumps({"choices": [{"message": {"content": "é"}}]},
                                                  ensure_ascii=False).encode("utf-8")}}
