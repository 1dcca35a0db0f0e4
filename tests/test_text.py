"""harness.text.scrub_surrogates: the one policy for lone surrogates in model text."""

from __future__ import annotations

import json

from harness.text import scrub_surrogates


def test_lone_surrogates_become_replacement_characters() -> None:
    assert scrub_surrogates("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert scrub_surrogates("\udc00\ud800") == "\ufffd\ufffd"  # low before high is no pair
    json.dumps(scrub_surrogates("x\ud800"), ensure_ascii=False).encode("utf-8")


def test_pairs_are_joined_and_clean_text_is_untouched() -> None:
    assert scrub_surrogates("\ud83d\ude00") == "\U0001F600"
    text = "Kraków 東京 \U0001F600"
    assert scrub_surrogates(text) is text


def test_ascii_text_is_returned_as_it_is() -> None:
    text = "plain ASCII, \\ud800 written out as an escape"
    assert scrub_surrogates(text) is text
    assert all(scrub_surrogates(chr(c)) == chr(c) for c in range(128))
