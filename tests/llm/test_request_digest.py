"""The request hash: volatile fields and key order do not change it, content does."""

from __future__ import annotations

import json

from harness.llm.request_digest import body_hash, canonical_body, request_hash

PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}


def test_key_order_and_volatile_fields_do_not_change_the_hash():
    reordered = dict(reversed(list(PAYLOAD.items())))
    assert request_hash(reordered) == request_hash(PAYLOAD)
    assert request_hash({**PAYLOAD, "user": "u1", "metadata": {"run": 2}, "store": True}) == request_hash(PAYLOAD)


def test_a_changed_prompt_changes_the_hash():
    edited = {**PAYLOAD, "messages": [{"role": "user", "content": "hi!"}]}
    assert request_hash(edited) != request_hash(PAYLOAD)


def test_the_payload_hash_is_the_hash_of_the_body_the_client_sends():
    sent = json.dumps(PAYLOAD, separators=(",", ":")).encode("utf-8")  # what httpx would carry
    assert request_hash(PAYLOAD) == body_hash(sent)


def test_bodies_that_are_not_json_are_hashed_as_text():
    assert canonical_body(b"not json") == "not json"
    assert body_hash(b"not json") != body_hash(b"not json ")
    assert canonical_body(None) is None


def test_the_payload_hash_equals_the_hash_of_its_json_text_for_every_kind_of_value():
    # request_hash skips writing and reading the payload back when it is plain JSON; these
    # payloads exercise what a round trip could change: lone surrogates, non-ASCII, NaN and
    # infinities, floats, nesting, volatile fields, and keys JSON turns into strings
    payloads = [
        PAYLOAD,
        {**PAYLOAD, "messages": [{"role": "user", "content": "caf\u00e9 \ud800 \u4e2d"}], "user": "u"},
        {"model": "m", "temperature": 0.1 + 0.2, "top_p": float("nan"), "max_tokens": float("inf"),
         "stop": ["\n", "<|COMPLETE|>"], "extra": {"a": [1, True, None, {"b": -0.0}]}},
        {"model": "m", "logit_bias": {1: 5, "2": -1}},  # int keys: read back as strings
        {"model": "m", "n": (1, 2)},  # a tuple is written as a list
    ]
    for payload in payloads:
        assert request_hash(payload) == body_hash(json.dumps(payload)), payload
    assert request_hash({"model": "m", "logit_bias": {1: 5}}) == request_hash({"model": "m", "logit_bias": {"1": 5}})
