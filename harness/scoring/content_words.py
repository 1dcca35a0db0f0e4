"""Content words: the rule by which a gold fact counts as stated in an answer (reports, summaries).

A text's content words are its normalised tokens (`normalize_text`: case-folded, punctuation as
spaces) without English function words and single letters, each with a plural or possessive "s"
taken off when the word is longer than three letters and does not end in "ss" ("investors" ->
"investor", "Corvid's" -> "corvid" since apostrophes are deleted first: "corvids" -> "corvid").
Numbers are content words ("1.1" gives "1" and "1").

A fact is found in a text when at least two thirds of the fact's distinct content words are
among the text's content words (`FACT_SHARE`); a fact with no content word is never found.
Words are compared as sets, so order and repetition do not matter.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.scoring.normalize import normalize_text

FACT_SHARE = 2 / 3

STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them themselves
    then there these they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours yourself yourselves""".split()
)


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_words(text: str) -> frozenset[str]:
    """The distinct content words of `text` (module docstring)."""
    return frozenset(
        _stem(w) for w in normalize_text(text).split() if w not in STOPWORDS and (len(w) > 1 or w.isdigit())
    )


def fact_found(fact: str, text_words: Iterable[str]) -> bool:
    """True when at least two thirds of the fact's content words are in `text_words` (a text's
    `content_words`)."""
    words = content_words(fact)
    if not words:
        return False
    have = text_words if isinstance(text_words, (set, frozenset)) else frozenset(text_words)
    return 3 * len(words & have) >= 2 * len(words)  # FACT_SHARE, in integers


def facts_found(facts: Iterable[str], text: str) -> int:
    """How many of `facts` the text states."""
    words = content_words(text)
    return sum(1 for fact in facts if fact_found(fact, words))
