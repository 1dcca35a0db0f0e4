"""The content-word rule for gold facts (harness/scoring/content_words.py)."""

from __future__ import annotations

from harness.scoring.content_words import content_words, fact_found, facts_found


def test_content_words() -> None:
    # "the", "is", "for" are function words; "Systems" -> "system", "dollars" -> "dollar",
    # "Corvid's" -> "corvids" (apostrophe deleted) -> "corvid"; "1.1" -> "1"; "ss" kept in "press"
    assert content_words("The Corvid's Systems is buying 1.1 billion dollars for press") == {
        "corvid", "system", "buying", "1", "billion", "dollar", "press"}
    assert content_words("a I to") == frozenset()


def test_two_thirds_rule() -> None:
    text = content_words("Pennant Mobile was fined by the commission")
    # {pennant, mobile, fined, 400, million, dollar}: 3 of 6 present, 3*3 = 9 < 2*6 = 12 -> not found
    assert not fact_found("Pennant Mobile was fined 400 million dollars", text)
    # {pennant, mobile, fined}: 3 of 3
    assert fact_found("Pennant Mobile was fined", text)
    # {pennant, fined, heavily}: 2 of 3, 3*2 = 6 >= 2*3 = 6 -> found
    assert fact_found("Pennant fined heavily", text)
    # {pennant, appeal, court}: 1 of 3 -> not found
    assert not fact_found("Pennant appeals to court", text)
    assert not fact_found("the of", text)  # no content word: never found


def test_facts_found() -> None:
    assert facts_found(["Pennant Mobile was fined", "Foxglove complained"], "Pennant Mobile was fined.") == 1
