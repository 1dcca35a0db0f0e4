"""The content-word rule (harness/content_words.py): one definition for summaries and reports."""

from __future__ import annotations

from harness.content_words import (
    GOLD_FACT_SHARE, KEEP_SHARE, carried, content_words, count_words, facts_found, split_facts,
)


def test_content_words() -> None:
    # "the", "is", "for" are stopwords; Snowball stems: "Corvid's" -> "corvid", "Systems" -> "system",
    # "buying" -> "buy", "dollars" -> "dollar"; "1.1" gives the number 1 (twice: one word); "press" kept
    assert content_words("The Corvid's Systems is buying 1.1 billion dollars for press") == {
        "corvid", "system", "buy", "1", "billion", "dollar", "press"}
    assert content_words("a I to") == frozenset()
    assert content_words("Corvid buys Tessellate", leave_out={"corvid"}) == {"buy", "tessel"}
    assert content_words("睡病") == {"睡", "病"}  # each CJK character is a word


def test_gold_facts_need_two_thirds_and_kept_facts_half() -> None:
    text = content_words("Pennant Mobile was fined by the commission")
    fact = content_words("Pennant Mobile was fined 400 million dollars")
    # {pennant, mobil, fine, 400, million, dollar}: 3 of 6 there: half, not two thirds
    assert carried(fact, text, KEEP_SHARE) and not carried(fact, text, GOLD_FACT_SHARE)
    # {pennant, fine, heavili}: 2 of 3 = two thirds
    assert carried(content_words("Pennant fined heavily"), text, GOLD_FACT_SHARE)
    # {pennant, appeal, court}: 1 of 3
    assert not carried(content_words("Pennant appeals to court"), text, KEEP_SHARE)
    assert not carried(content_words("the of"), text, 0.0)  # no content word: never carried


def test_facts_found() -> None:
    assert facts_found(["Pennant Mobile was fined", "Foxglove complained"], "Pennant Mobile was fined.") == 1


def test_words_are_counted_as_spaces_separate_them() -> None:
    assert count_words("The ferry's route, re-opened in 2024.") == 6
    assert count_words("发作性睡病是一种 chronic disorder") == 8 + 2


def test_facts_are_sentences_and_clauses() -> None:
    assert split_facts("J. Smith runs it. It costs 2.5 million; it grew.") == [
        "J. Smith runs it.", "It costs 2.5 million", "it grew."]
