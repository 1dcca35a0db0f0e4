"""The language an import writes into a suite when the project states none, from the script its
input text is written in: a Greek or Chinese project must never be written down as English (the
suite's `language:` fills `{language}` and picks the scoring's content words).

Only the script is read, so a script that several languages share gives the most common one and
a warning that says so (Cyrillic: Russian; Arabic: Arabic; Devanagari: Hindi). Latin script says
nothing about the language: the suite keeps the engine's default (English). Pure: texts in, a
guess out; `settle_language` writes it into a draft."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


class Draft(Protocol):
    """What settle_language reads and writes of an importer's SuiteDraft (importers.common)."""

    language: str
    language_stated: bool
    warnings: list[str]

SAMPLE_CHARS = 20_000  # per text: enough letters to tell the script, cheap on long documents

# (first, last code point, script), in code point order
_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0370, 0x03FF, "Greek"), (0x0400, 0x052F, "Cyrillic"), (0x0590, 0x05FF, "Hebrew"),
    (0x0600, 0x06FF, "Arabic"), (0x0750, 0x077F, "Arabic"), (0x0900, 0x097F, "Devanagari"),
    (0x0E00, 0x0E7F, "Thai"), (0x1100, 0x11FF, "Hangul"), (0x1F00, 0x1FFF, "Greek"),
    (0x3040, 0x30FF, "Kana"), (0x3130, 0x318F, "Hangul"), (0x3400, 0x4DBF, "Han"), (0x4E00, 0x9FFF, "Han"),
    (0xAC00, 0xD7AF, "Hangul"), (0xF900, 0xFAFF, "Han"), (0xFB50, 0xFDFF, "Arabic"), (0xFE70, 0xFEFF, "Arabic"),
)

# script -> (the language written down, other languages the script writes: a warning when any)
_LANGUAGES: dict[str, tuple[str, str]] = {
    "Greek": ("Greek", ""),
    "Cyrillic": ("Russian", "Ukrainian, Bulgarian, Serbian and others"),
    "Hebrew": ("Hebrew", ""),
    "Arabic": ("Arabic", "Persian, Urdu and others"),
    "Devanagari": ("Hindi", "Marathi, Nepali and others"),
    "Thai": ("Thai", ""),
    "Hangul": ("Korean", ""),
    "Han": ("Chinese", ""),
    "Japanese": ("Japanese", ""),
}


@dataclass(frozen=True, slots=True)
class LanguageGuess:
    script: str
    language: str | None  # None: the script says nothing about the language (Latin)
    also: str = ""  # other languages the script writes


def _script(char: str) -> str | None:
    code = ord(char)
    if code < 0x0250 or 0x1E00 <= code <= 0x1EFF:
        return "Latin" if char.isalpha() else None
    for first, last, script in _RANGES:
        if first <= code <= last:
            return script if char.isalpha() else None
    return None


def guess_language(texts: Iterable[str]) -> LanguageGuess | None:
    """The language of the script most letters of `texts` are written in; None without letters.
    Han with kana is Japanese; Latin gives no language."""
    counts: Counter[str] = Counter()
    for text in texts:
        for char in text[:SAMPLE_CHARS]:
            script = _script(char)
            if script is not None:
                counts[script] += 1
    if not counts:
        return None
    if counts["Kana"]:  # Japanese writes Han and kana together
        counts["Japanese"] = counts.pop("Kana") + counts.pop("Han", 0)
    script = max(sorted(counts), key=lambda s: counts[s])
    if script not in _LANGUAGES:
        return LanguageGuess(script, None)
    language, also = _LANGUAGES[script]
    return LanguageGuess(script, language, also)


def settle_language(draft: Draft, texts: Iterable[str]) -> None:
    """Write the input's language into a draft whose project states none, with a warning that
    says where it came from (and, for a shared script, which other languages it writes)."""
    if draft.language_stated:
        return
    guess = guess_language(texts)
    if guess is None or guess.language is None:
        return
    draft.language = guess.language
    warning = f"language: {guess.language}, from the {guess.script} script of the input text (the project states none)"
    if guess.also:
        warning += f"; the script also writes {guess.also}: set `language:` in the suite if it is not {guess.language}"
    draft.warnings.append(warning)
