"""The redactor computes each key's forms once; what it redacts is what it redacted before."""

from __future__ import annotations

from harness.llm.redaction import REDACTED, Redactor, secret_forms

KEY = "sk-" + "0123456789" * 2  # built here so the repository holds no credential-like text
OTHER = "az" + "f" * 30


def test_secret_forms_are_fresh_sets_of_the_same_forms():
    first = secret_forms(KEY)
    first.add("changed by a caller")
    assert "changed by a caller" not in secret_forms(KEY)
    assert KEY in secret_forms(KEY) and secret_forms("short") == set()


def test_learning_a_key_again_changes_nothing():
    once = Redactor([KEY])
    again = Redactor([KEY])
    for _ in range(3):
        again.add([KEY, KEY])
    text = f"a {KEY} b {secret_forms(KEY).pop()} c"
    assert again.redact(text) == once.redact(text)
    assert again.find(text) and len(again.find(text)) == len(once.find(text))


def test_keys_learnt_later_are_redacted_as_if_given_at_once():
    later = Redactor([KEY])
    later.add([OTHER])
    at_once = Redactor([OTHER, KEY])
    text = f"{KEY} and {OTHER}"
    assert later.redact(text) == at_once.redact(text) == f"{REDACTED} and {REDACTED}"
    assert not Redactor([])
