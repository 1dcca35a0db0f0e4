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
