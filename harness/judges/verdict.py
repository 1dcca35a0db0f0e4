"""Reading a judge's answer: its first word says `same` or `different`; anything else is n/a."""

from __future__ import annotations

import re
from typing import Literal

from ..model import JudgeVerdict

_WORDS: dict[str, JudgeVerdict] = {"same": "same", "yes": "same", "different": "different", "no": "different"}
_FIRST_WORD = re.compile(r"[A-Za-z]+")


def read_verdict(text: str) -> JudgeVerdict | None:
    """The verdict of an answer such as "SAME", "Different: ..." or "**yes**"; None (n/a) for an
    answer whose first word is neither, so an unreadable answer is never counted as a match."""
    found = _FIRST_WORD.search(text)
    if found is None:
        return None
    return _WORDS.get(found.group(0).lower())


Preference = Literal["first", "second", "tie"]
_PREFERENCES: dict[str, Preference] = {"first": "first", "second": "second", "tie": "tie", "a": "first", "b": "second"}


def read_preference(text: str) -> Preference | None:
    """A pairwise answer's first word: FIRST, SECOND or TIE (also A / B); None (n/a) otherwise."""
    found = _FIRST_WORD.search(text)
    if found is None:
        return None
    return _PREFERENCES.get(found.group(0).lower())


_SUPPORT: dict[str, JudgeVerdict] = {"supported": "supported", "yes": "supported", "unsupported": "unsupported",
                                     "no": "unsupported"}


def read_support(text: str) -> JudgeVerdict | None:
    """A support answer's first word: SUPPORTED or UNSUPPORTED (also YES / NO); None (n/a)
    otherwise ("Not supported" too: its first word says neither)."""
    found = _FIRST_WORD.search(text)
    if found is None:
        return None
    return _SUPPORT.get(found.group(0).lower())
