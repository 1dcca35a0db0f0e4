"""Description summaries scored against their case (docs/scoring.md, "Description summaries").

No gold is needed: the case's own description list is the reference. A *fact* is a sentence or
a semicolon clause; its *content words* are its words without stopwords and without the words of
the entity's name (every fact names the entity, so those words would make any two facts look
alike), each reduced to its Snowball stem (NLTK; the stemmers need no data). CJK text has no
spaces to split words on: each CJK character is a content word of its own.

- a description fact is *kept* when at least KEEP_SHARE of its content words occur in the summary;
- a summary fact is *added* when less than KEEP_SHARE of its content words occur in the
  descriptions (all of them together: a summary sentence may merge two descriptions);
- a gold fact (`facts:` of the case) is *found* by the rule that keeps a description fact.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache

from ..model import GoldCase, SummaryScore
from .normalize import normalize_name, normalize_text

# GraphRAG's default `summarize_descriptions.max_length` (words; 1.x .. 3.x, config/defaults.py)
DEFAULT_MAX_LENGTH = 500
# Share of a fact's content words that must appear on the other side for it to count as carried
# (docs/scoring.md: a paraphrase keeps the nouns and numbers, loses the function words and
# changes some verbs; half is where hand-checked summaries separate kept from dropped facts)
KEEP_SHARE = 0.5

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_TOKEN = re.compile(f"[{_CJK}]|[^\\W_{_CJK}]+(?:['’][^\\W_{_CJK}]+)*")
# sentence ends followed by a space (so not the point of 2.5), CJK sentence ends, semicolons and
# line breaks; a full stop after a single capital (an initial: "J. Smith") ends no sentence
_SPLIT = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)\s+|[。！？；;\n]+")

STOPWORDS: frozenset[str] = frozenset("""
a about above after again against all also an and any are as at be because been before being below
between both but by can could did do does doing down during each either few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just more
most much my no nor not now of off on once only or other our out over own same she should so some
such than that the their theirs them themselves then there these they this those through to too
under until up upon very was we were what when where which while who whom whose why will with
within would you your also including include includes well among via per one ones
""".split())

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


@lru_cache(maxsize=8)
def _stemmer(language: str):  # type: ignore[no-untyped-def]
    from nltk.stem.snowball import SnowballStemmer  # lazy: light commands never load nltk

    name = language.casefold()
    return SnowballStemmer(name if name in SnowballStemmer.languages else "english")


def entity_names(case: GoldCase) -> list[str]:
    """The entity a summary case is about, or both ends of a relationship (`entity_name: [A, B]`
    in the suite, kept as the JSON list GraphRAG writes into `{entity_name}`)."""
    name = case.entity_name or ""
    if name.startswith("["):
        try:
            value = json.loads(name)
        except ValueError:
            return [name]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
    return [name]


def count_words(text: str) -> int:
    """Words as the length limit counts them: runs of letters or digits; each CJK character is one
    word (Chinese and Japanese write no spaces, and a character is closer to a word than a
    sentence is)."""
    return len(_TOKEN.findall(text))


def split_facts(text: str) -> list[str]:
    """The sentences and semicolon clauses of a text, stripped, empty ones out."""
    return [part.strip() for part in _SPLIT.split(text) if part and part.strip()]


def content_words(text: str, *, language: str = "English", leave_out: Iterable[str] = ()) -> frozenset[str]:
    """The stemmed content words of a text (stopwords and `leave_out` words removed)."""
    stem = _stemmer(language).stem
    skip = set(leave_out)
    words = set()
    for token in _TOKEN.findall(text.casefold()):
        if token in STOPWORDS or token in skip or (len(token) == 1 and not _CJK_CHAR.match(token)):
            continue
        words.add(token if _CJK_CHAR.match(token) else stem(token))
    return frozenset(words)


def _share(words: frozenset[str], other: frozenset[str]) -> float:
    return len(words & other) / len(words)


def names_entity(summary: str, names: list[str]) -> bool:
    """Whether the summary names every entity (normalised as entity names are: case, quotes,
    punctuation and spacing ignored; whole words, except in CJK text)."""
    text = normalize_text(summary)
    for name in names:
        key = normalize_name(name)
        if not key:
            return False
        found = key in text if _CJK_CHAR.search(key) else f" {key} " in f" {text} "
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
        if token.casefold() in wanted and not _CJK_CHAR.match(token):
            found.setdefault(token.casefold())
    if language.casefold() == "chinese" or _CJK_CHAR.search(summary):
        for pronoun in _CJK_PRONOUNS:
            if pronoun in summary and not any(pronoun in longer for longer in found):
                found.setdefault(pronoun)
    return list(found)


def _distinct_facts(texts: Iterable[str], language: str, name_words: set[str]) -> list[tuple[str, frozenset[str]]]:
    """(fact, content words) of every fact with content words, duplicates (same words) once."""
    seen: dict[frozenset[str], str] = {}
    for text in texts:
        for fact in split_facts(text):
            words = content_words(fact, language=language, leave_out=name_words)
            if words and words not in seen:
                seen[words] = fact
    return [(fact, words) for words, fact in seen.items()]


def score_summary(case: GoldCase, text: str, *, language: str = "English") -> SummaryScore:
    """One summary (the answer without think blocks and fences) against its case's descriptions."""
    names = entity_names(case)
    name_words = {t for name in names for t in _TOKEN.findall(name.casefold())}
    described = _distinct_facts(case.descriptions, language, name_words)
    stated = _distinct_facts([text], language, name_words)
    summary_words = content_words(text, language=language, leave_out=name_words)
    description_words = frozenset().union(*(words for _, words in described)) if described else frozenset()
    dropped = [fact for fact, words in described if _share(words, summary_words) < KEEP_SHARE]
    added = [fact for fact, words in stated if _share(words, description_words) < KEEP_SHARE]
    gold = [(fact, content_words(fact, language=language, leave_out=name_words)) for fact in case.facts]
    gold = [(fact, words) for fact, words in gold if words]
    limit = case.max_length or DEFAULT_MAX_LENGTH
    words = count_words(text)
    pronouns = person_words(text, language)
    return SummaryScore(
        words=words,
        max_length=limit,
        within_length=words <= limit,
        names_entity=names_entity(text, names),
        third_person=not pronouns,
        first_or_second_person=pronouns,
        description_facts=len(described),
        facts_kept=len(described) - len(dropped),
        summary_facts=len(stated),
        facts_added=len(added),
        gold_facts=len(gold),
        gold_facts_found=sum(1 for _, w in gold if _share(w, summary_words) >= KEEP_SHARE),
        dropped_facts=dropped,
        added_facts=added,
    )
