"""Answers that repeat the tuning question instead of answering it.

Whatever `harness tune` takes from an answer into a prompt (an entity type, the domain, the
persona, the rating description; example answers are judged in examples.py) is checked against
the question's own text: the question as asked with no sample passage and no earlier answer in
it (`steps.own_text`). An item repeats the question when it is

- a word of the question's answer shape: a key or a placeholder value of a JSON shape such as
  `{"entity_types": ["type", ...]}`, with their singular and plural and the words of a compound
  key (`entity_types` gives `entity_type`, `entity`, `entities`, `types`); or
- mostly the question's instructions or example passages (`scoring.copied`: a text of three words
  or more, most of whose words lie in runs of three that the question holds and the sample
  passages and earlier answers, `given`, do not). A one- or two-word item is never read so: the
  question's examples of the value asked (`person`, `technology podcasts`) are good answers.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..scoring.copied import copied_passage

SHAPE = "a word of the tuning prompt's answer shape"
_JSON_SHAPE = re.compile(r"\{[^{}]*\}")
_QUOTED = re.compile(r'"([^"\n]{1,60})"')


def item_key(item: str) -> str:
    """An item as tune writes a type: lower case, only letters, digits and `_` (spaces, hyphens)."""
    return re.sub(r"[^\w -]", "", item.strip().lower()).strip().replace(" ", "_").replace("-", "_")


def _forms(word: str) -> set[str]:
    forms = {word}
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    elif word.endswith("s"):
        forms.add(word[:-1])
    elif word.endswith("y"):
        forms |= {word + "s", word[:-1] + "ies"}
    else:
        forms.add(word + "s")
    return forms


@lru_cache(maxsize=16)
def shape_words(own_text: str) -> frozenset[str]:
    """The keys and placeholder values of the JSON shapes a question shows (module docstring)."""
    found: set[str] = set()
    for shape in _JSON_SHAPE.findall(own_text):
        for quoted in _QUOTED.findall(shape):
            key = item_key(quoted)
            if not key:
                continue
            found |= _forms(key)
            parts = [part for part in key.split("_") if part]
            if len(parts) > 1:
                for part in parts:
                    found |= _forms(part)
    return frozenset(found)


def echo(item: str, own_text: str, given: str = "") -> str | None:
    """Why `item` repeats the question whose own text is `own_text` (for a note or an error), or
    None; `given` is what the question was filled with (sample passages, earlier answers)."""
    if item_key(item) in shape_words(own_text):
        return SHAPE
    passage = copied_passage(item, own_text, given, long=False)
    if passage is not None:
        return f"a repeat of the tuning prompt's own text ({passage!r})"
    return None
