"""Name and type normalisation: the one place that decides when two strings name the same thing.

`normalize_name` is applied to gold names, gold aliases, predicted names, relationship
endpoints and (for grounding) the chunk text, so all comparisons happen in one space.
Steps, in order:

1. HTML unescape (``&amp;`` -> ``&``; models echo escaped text from web chunks).
2. Unicode NFKC (full-width letters, ligatures, compatibility forms).
3. Case-fold (``Straße`` == ``STRASSE``).
4. Apostrophes are deleted (``Alzheimer's`` == ``Alzheimers``); every other Unicode
   punctuation character (category P*, which includes all quote marks, so wrapping quotes
   go too) becomes a space (``Osei-Landry`` == ``Osei Landry``). Symbols (``+``, ``$``) stay.
5. Whitespace is collapsed; one leading article is dropped when something follows it
   (English the/a/an, Spanish el/la/los/las).
6. Spaces between two CJK characters are removed (``北京 大学`` == ``北京大学``).

If steps 4-5 leave nothing (a name that is only punctuation), the case-folded stripped
text is used instead, so a non-empty name never normalises to "".

`normalize_predicate` is the comparison key of a relationship's predicate (typed matching,
ontology conformance): camelCase is split into words (``birthPlace`` -> ``birth place``,
``HTTPServer`` -> ``http server``), then HTML unescape, NFKC and case-fold as above; ``_``,
``-`` and every other punctuation character become spaces, and whitespace is collapsed
(``founded_by`` == ``Founded-By`` == ``foundedBy`` == ``founded  by``). No article is dropped.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

ARTICLES: frozenset[str] = frozenset({"the", "a", "an", "el", "la", "los", "las"})

_APOSTROPHES = "'\u2019\u02bc\u2018`\u00b4"

# Han (incl. extension A and compatibility), kana, Hangul syllables and jamo, CJK punctuation.
_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f"
    "\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
)
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_GAP = re.compile(f"(?<=[{_CJK}])\\s+(?=[{_CJK}])")


class _PunctuationTable(dict[int, str | None]):
    """str.translate table built lazily: apostrophes vanish, other P* characters become spaces."""

    def __missing__(self, codepoint: int) -> str | int | None:
        char = chr(codepoint)
        if char in _APOSTROPHES:
            value: str | int | None = None
        elif unicodedata.category(char).startswith("P"):
            value = " "
        else:
            value = codepoint
        self[codepoint] = value  # type: ignore[assignment]
        return value


_TABLE = _PunctuationTable()


def has_cjk(text: str) -> bool:
    """Whether any character of `text` is CJK (as `is_cjk`): one regex scan, not one call a character."""
    return _CJK_CHAR.search(text) is not None


def is_cjk(char: str) -> bool:
    # every CJK range starts at U+1100 or later: a Latin letter, digit or space needs no regex
    return char >= "\u1100" and _CJK_CHAR.match(char) is not None


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", html.unescape(text)).casefold()


@lru_cache(maxsize=262_144)
def normalize_name(name: str) -> str:
    """The comparison key of an entity name (see the module docstring for the steps)."""
    folded = _fold(name)
    tokens = folded.translate(_TABLE).split()
    if len(tokens) > 1 and tokens[0] in ARTICLES:
        tokens = tokens[1:]
    key = _close_cjk_gaps(" ".join(tokens))
    if not key:
        key = " ".join(folded.split())
    return key


def normalize_text(text: str) -> str:
    """A chunk in the same space as names (no article stripping: it is not a name)."""
    return _close_cjk_gaps(" ".join(_fold(text).translate(_TABLE).split()))


def _close_cjk_gaps(text: str) -> str:
    """Step 6: spaces between two CJK characters removed. ASCII text has no CJK character, and
    skips the regex (which tries its look-behind at every character: most of a chunk's cost)."""
    return text if text.isascii() else _CJK_GAP.sub("", text)


@lru_cache(maxsize=4096)
def normalize_type(entity_type: str) -> str:
    """An entity type label: folded, punctuation and underscores as spaces (``GEO`` == ``geo``)."""
    return " ".join(_fold(entity_type).replace("_", " ").translate(_TABLE).split())


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@lru_cache(maxsize=16_384)
def normalize_predicate(predicate: str) -> str:
    """A relationship's predicate as compared (module docstring): ``foundedBy`` == ``founded_by``."""
    split = _CAMEL.sub(" ", html.unescape(predicate))
    return " ".join(_fold(split).replace("_", " ").translate(_TABLE).split())


def predicate_table(predicate_synonyms: dict[str, list[str]]) -> dict[str, str]:
    """Normalised predicate -> normalised canonical predicate, from a suite's `predicate_synonyms`
    (``{canonical: [synonyms]}``); a spelling listed under two canonicals keeps the first."""
    return _synonym_table(predicate_synonyms, normalize_predicate)


def _synonym_table(synonyms: dict[str, list[str]], normalize: Callable[[str], str]) -> dict[str, str]:
    """normalize(spelling) -> normalize(canonical) for every canonical and its synonyms; the first
    listing of a spelling wins (file order), so the table is deterministic."""
    table: dict[str, str] = {}
    for canonical, others in synonyms.items():
        canon = normalize(canonical)
        table.setdefault(canon, canon)
        for other in others:
            table.setdefault(normalize(other), canon)
    return table


def canonical_predicate(predicate: str, table: dict[str, str]) -> str:
    key = normalize_predicate(predicate)
    return table.get(key, key)


def type_table(type_synonyms: dict[str, list[str]]) -> dict[str, str]:
    """Normalised label -> normalised canonical label, from a suite's ``{canonical: [synonyms]}``.

    A label listed under two canonicals keeps the first (in file order), so the table is deterministic.
    """
    return _synonym_table(type_synonyms, normalize_type)


def canonical_type(entity_type: str, table: dict[str, str]) -> str:
    label = normalize_type(entity_type)
    return table.get(label, label)


def _boundary(char: str) -> bool:
    return char == " " or is_cjk(char)


def occurs_in(name_key: str, text_key: str) -> bool:
    """Whether a normalised name occurs in normalised text as whole tokens.

    Token boundaries are required at an end of the name only when that end is not a CJK
    character (CJK text has no spaces between words); a CJK character next to a Latin or digit
    end is a boundary too (`提到vitalik，` holds `vitalik`: Chinese text writes Latin names
    without spaces around them).
    """
    if not name_key:
        return False
    need_left = not is_cjk(name_key[0])
    need_right = not is_cjk(name_key[-1])
    start = text_key.find(name_key)
    while start != -1:
        end = start + len(name_key)
        left_ok = not need_left or start == 0 or _boundary(text_key[start - 1])
        right_ok = not need_right or end == len(text_key) or _boundary(text_key[end])
        if left_ok and right_ok:
            return True
        start = text_key.find(name_key, start + 1)
    return False
