"""Content words: how the harness tells whether a fact is carried by another text (description
summaries, community reports; docs/scoring.md, "Description summaries" and "Community reports").

A text's *words* are runs of letters and digits (an apostrophe inside a word kept), each CJK
character a word of its own (Chinese and Japanese write no spaces). Its *content words* are its
case-folded words without stopwords, without single letters, and without the caller's
`leave_out` words (a summary leaves out the words of its entity's name: every fact names it), each
reduced to its Snowball stem (NLTK; the stemmers need no data); numbers are content words.

A fact is *carried* by a text when at least a given share of the fact's distinct content words
are among the text's; a fact with no content word is never carried. Two shares:

- `KEEP_SHARE` (half): a description fact kept by a summary, a summary sentence supported by the
  descriptions. A paraphrase keeps the nouns and numbers and changes some verbs; half is where
  hand-checked summaries separate kept from dropped facts (docs/scoring.md, with the corpus figures).
- `GOLD_FACT_SHARE` (two thirds): a gold fact (`facts:` of a summary or report case) stated by
  the answer. A gold fact says what must be said; an answer that leaves out a third of it (the
  amount of a fine, say) has not said it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

KEEP_SHARE = 0.5
GOLD_FACT_SHARE = 2 / 3

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
CJK_CHAR = re.compile(f"[{_CJK}]")
_TOKEN = re.compile(f"[{_CJK}]|[^\\W_{_CJK}]+(?:['’][^\\W_{_CJK}]+)*")
# a word as a length limit counts it: a run of non-space characters that starts and ends with a
# letter or digit ("re-opened" is one word, "route," is "route")
_COUNTED = re.compile(f"[^\\W_](?:[^\\s{_CJK}]*[^\\W_])?")
# sentence ends followed by a space (so not the point of 2.5), CJK sentence ends, semicolons and
# line breaks; a full stop after a single capital (an initial: "J. Smith") ends no sentence
_SPLIT = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)\s+|[。！？；;\n]+")

STOPWORDS: frozenset[str] = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each either few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just me more
most much my myself no nor not now of off on once only or other our ours ourselves out over own same
she should so some such than that the their theirs them themselves then there these they this those
through to too under until up upon very was we were what when where which while who whom whose why
will with within would you your yours yourself yourselves including include includes well among via
per one ones
""".split())


@lru_cache(maxsize=8)
def _stemmer(language: str):  # type: ignore[no-untyped-def]
    from nltk.stem.snowball import SnowballStemmer  # lazy: light commands never load nltk

    name = language.casefold()
    return SnowballStemmer(name if name in SnowballStemmer.languages else "english")


def words(text: str) -> list[str]:
    """The words of a text (module docstring), as written."""
    return _TOKEN.findall(text)


def count_words(text: str) -> int:
    """Words as a length limit counts them: what spaces separate ("re-opened" is one word), each CJK
    character one word of its own (a character is closer to a word than a sentence is)."""
    return len(CJK_CHAR.findall(text)) + len(_COUNTED.findall(CJK_CHAR.sub(" ", text)))


def split_facts(text: str) -> list[str]:
    """The sentences and semicolon clauses of a text, stripped, empty ones out."""
    return [part.strip() for part in _SPLIT.split(text) if part and part.strip()]


def content_words(text: str, *, language: str = "English", leave_out: Iterable[str] = ()) -> frozenset[str]:
    """The stemmed content words of a text (module docstring)."""
    stem = _stemmer(language).stem
    skip = set(leave_out)
    found = set()
    for token in _TOKEN.findall(text.casefold()):
        if token in STOPWORDS or token in skip:
            continue
        cjk = bool(CJK_CHAR.match(token))
        if len(token) == 1 and not cjk and not token.isdigit():
            continue
        found.add(token if cjk else stem(token))
    return frozenset(found)


def share(fact_words: frozenset[str], text_words: frozenset[str]) -> float:
    """The share of a fact's content words that the text has (0 for a fact without any)."""
    return len(fact_words & text_words) / len(fact_words) if fact_words else 0.0


def carried(fact_words: frozenset[str], text_words: frozenset[str], at_least: float) -> bool:
    """Whether a fact with content words is carried by a text: at least `at_least` of them there."""
    return bool(fact_words) and share(fact_words, text_words) >= at_least


def facts_found(facts: Iterable[str], text: str, *, language: str = "English",
                leave_out: Iterable[str] = ()) -> int:
    """How many gold facts the text states (`GOLD_FACT_SHARE` of each fact's content words)."""
    skip = tuple(leave_out)
    have = content_words(text, language=language, leave_out=skip)
    return sum(1 for fact in facts
               if carried(content_words(fact, language=language, leave_out=skip), have, GOLD_FACT_SHARE))
