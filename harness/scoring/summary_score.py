"""Description summaries scored against their case (docs/scoring.md, "Description summaries").

No gold is needed: the case's own description list is the reference. A *fact* is a sentence or
a semicolon clause; its content words are those of harness/content_words.py, without the
words of the entity's name (every fact names the entity, so those words would make any two facts
look alike).

- a description fact is *kept* when at least KEEP_SHARE of its content words occur in the summary;
- a summary fact is *added* when less than KEEP_SHARE of its content words occur in the
  descriptions (all of them together: a summary sentence may merge two descriptions);
- a gold fact (`facts:` of the case) is *found* when GOLD_FACT_SHARE of its content words occur
  in the summary, as for a community report's gold facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..inputfiles import loads
from ..model import GoldCase, SummaryScore
from ..content_words import (
    CJK_CHAR,
    GOLD_FACT_SHARE,
    KEEP_SHARE,
    carried,
    content_words,
    share,
    count_words,
    split_facts,
    words,
)
from .normalize import normalize_name, normalize_text

# GraphRAG's default `summarize_descriptions.max_length` (words; 1.x .. 3.x, config/defaults.py)
DEFAULT_MAX_LENGTH = 500
# First- and second-person pronouns, by language (the case's language is added to English).
PRONOUNS: dict[str, frozenset[str]] = {
    "english": frozenset("i me my mine myself we us our ours ourselves you your yours yourself yourselves".split()),
    "spanish": frozenset("yo mí conmigo nosotros nosotras nuestro nuestra nuestros nuestras tú ti contigo vosotros "
                         "vosotras vuestro vuestra usted ustedes".split()),
    "french": frozenset("je j moi nous notre nos tu toi vous votre vos".split()),
    "german": frozenset("ich mich mir mein meine wir uns unser unsere du dich dir dein deine ihr euch euer".split()),
    "chinese": frozenset("我 我们 咱们 你 你们 您".split()),
}
_CJK_PRONOUNS = ("我们", "咱们", "你们", "我", "你", "您")


def entity_names(case: GoldCase) -> list[str]:
    """The entity a summary case is about, or both ends of a relationship (`entity_name: [A, B]`
    in the suite, kept as the JSON list GraphRAG writes into `{entity_name}`)."""
    name = case.entity_name or ""
    if name.startswith("["):
        try:
            value = loads(name)  # the JSON policy: no RecursionError on "[[[[..."
        except ValueError:
            return [name]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
    return [name]


def names_entity(summary: str, names: list[str]) -> bool:
    """Whether the summary names every entity (normalised as entity names are: case, quotes,
    punctuation and spacing ignored; whole words, except in CJK text)."""
    text = normalize_text(summary)
    for name in names:
        key = normalize_name(name)
        if not key:
            return False
        found = key in text if CJK_CHAR.search(key) else f" {key} " in f" {text} "
        if not found:
            return False
    return True


def person_words(summary: str, language: str = "English") -> list[str]:
    """The first- and second-person pronouns a summary uses, in order of first use ("US" in
    capitals is the country, not "us")."""
    wanted = PRONOUNS["english"] | PRONOUNS.get(language.casefold(), frozenset())
    found: dict[str, None] = {}
    for token in re.findall(r"[^\W_]+", summary):
        if token == "US":
            continue
        if token.casefold() in wanted and not CJK_CHAR.match(token):
            found.setdefault(token.casefold())
    if language.casefold() == "chinese" or CJK_CHAR.search(summary):
        for pronoun in _CJK_PRONOUNS:
            if pronoun in summary and not any(pronoun in longer for longer in found):
                found.setdefault(pronoun)
    return list(found)


def _distinct_facts(texts: Iterable[str], language: str, name_words: set[str]) -> list[tuple[str, frozenset[str]]]:
    """(fact, content words) of every fact with content words, duplicates (same words) once."""
    seen: dict[frozenset[str], str] = {}
    for text in texts:
        for fact in split_facts(text):
            fact_words = content_words(fact, language=language, leave_out=name_words)
            if fact_words and fact_words not in seen:
                seen[fact_words] = fact
    return [(fact, fact_words) for fact_words, fact in seen.items()]


@dataclass(frozen=True)
class _Facts:
    """A summary's facts and its descriptions', as content words (the entity's names left out)."""

    names: list[str]
    name_words: set[str]
    described: list[tuple[str, frozenset[str]]]  # (description fact, its content words), distinct
    stated: list[tuple[str, frozenset[str]]]  # (summary fact, its content words), distinct
    summary_words: frozenset[str]
    description_words: frozenset[str]


def _facts(case: GoldCase, text: str, language: str) -> _Facts:
    names = entity_names(case)
    name_words = {t for name in names for t in words(name.casefold())}
    described = _distinct_facts(case.descriptions, language, name_words)
    stated = _distinct_facts([text], language, name_words)
    summary_words = content_words(text, language=language, leave_out=name_words)
    description_words = frozenset().union(*(w for _, w in described)) if described else frozenset()
    return _Facts(names, name_words, described, stated, summary_words, description_words)


def score_summary(case: GoldCase, text: str, *, language: str = "English") -> SummaryScore:
    """One summary (the answer without think blocks and fences) against its case's descriptions."""
    f = _facts(case, text, language)
    names, name_words, described, stated = f.names, f.name_words, f.described, f.stated
    summary_words, description_words = f.summary_words, f.description_words
    dropped = [fact for fact, fact_words in described if not carried(fact_words, summary_words, KEEP_SHARE)]
    added = [fact for fact, fact_words in stated if not carried(fact_words, description_words, KEEP_SHARE)]
    gold = [(fact, content_words(fact, language=language, leave_out=name_words)) for fact in case.facts]
    gold = [(fact, w) for fact, w in gold if w]
    limit = case.max_length or DEFAULT_MAX_LENGTH
    length = count_words(text)
    pronouns = person_words(text, language)
    return SummaryScore(
        words=length,
        max_length=limit,
        within_length=length <= limit,
        names_entity=names_entity(text, names),
        third_person=not pronouns,
        first_or_second_person=pronouns,
        description_facts=len(described),
        facts_kept=len(described) - len(dropped),
        summary_facts=len(stated),
        facts_added=len(added),
        gold_facts=len(gold),
        gold_facts_found=sum(1 for _, w in gold if carried(w, summary_words, GOLD_FACT_SHARE)),
        dropped_facts=dropped,
        added_facts=added,
    )


def fact_shares(case: GoldCase, text: str, *, language: str = "English") -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """The stem shares `score_summary` decides on: (description fact, share of its content words in
    the summary) for every distinct description fact, and (summary fact, share of its content words
    in the descriptions) for every summary fact; kept / supported at `KEEP_SHARE`. The suite
    judge asks about the facts whose share is close to it (harness/judges/facts.py)."""
    f = _facts(case, text, language)
    return ([(fact, share(w, f.summary_words)) for fact, w in f.described],
            [(fact, share(w, f.description_words)) for fact, w in f.stated])
