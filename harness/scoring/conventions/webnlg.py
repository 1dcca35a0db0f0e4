"""The WebNLG+ 2020 text-to-RDF scoring (github.com/WebNLG/WebNLG-Text-to-triples,
Evaluation_script.py, with nervaluate 0.1.7 as its requirements pin it), reimplemented from its
rules so that the challenge's published table can be reproduced (docs/benchmarks.md). The
scorer is GPL-3; nothing here is its code.

Its rules, as this module applies them:

1. Every triple, reference and candidate alike, is rewritten as one string: a space put between
   a lower-case and an upper-case letter (camelCase), `_` made a space, runs of white space made
   one space, all lower-cased, then split on ` | `; a last part ending in ` (...)` loses it.
2. An entry's shorter list (candidates or references) is padded with empty triples to the length
   of the longer one, and every candidate is scored against every reference.
3. A pair is scored element by element (subject, predicate, object): both strings are cut into
   NLTK words (punctuation-only words dropped from the reference, single punctuation characters
   from the candidate), the candidate's longest runs of words found in the reference are linked to
   it, longest first, and the words around them become spans of a token sequence: the reference
   element one span, the candidate one span per linked run or unlinked stretch, words before the
   first or after the last link joining that link's span when it touches the reference's start or
   end. When no word of two elements links, subject and object (then subject and predicate, then
   predicate and object) are tried crossed. The spans are then scored as named entities under
   SemEval-2013's four schemes (nervaluate 0.1.7's rules: `_semeval_counts`).
4. Of the entry's pairings (each candidate to one reference), the first, in itertools'
   permutation order, with the highest sum of the pairs' mean F1 over the four schemes is kept.
5. Each figure is the plain mean over every kept pair of the whole file (so an entry weighs as
   many pairs as its longer list).

Where the scorer would stop with an error (a candidate with fewer than three parts, a run found
in the reference but no longer in the candidate), the missing parts count as empty and the
run is left unlinked. Rule 4 is searched exactly over subsets rather than by listing every
permutation (ties: the first permutation in that order whose sum is, exactly, the highest); the
scorer's float sums could in principle order two exactly equal sums differently.
"""

from __future__ import annotations

import re
import statistics
import string
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

MODES = ("strict", "exact", "partial", "ent_type")
# the names `harness evaluate --json` prints under `metrics`
METRICS = tuple(f"{mode}_{figure}" for mode in MODES for figure in ("precision", "recall", "f1"))
ELEMENTS = ("SUB", "PRED", "OBJ")
MAX_PAIRING = 16  # triples per entry (the longer list) the exact pairing search accepts

_CAMEL = re.compile(r"([a-z])([A-Z])")
_SPACES = re.compile(r"\s+")
_TRAILING_NOTE = re.compile(r"^(.*?)(\s\((.*?)\))$")
_PUNCT = re.escape(string.punctuation)
_ALL_PUNCT = re.compile(rf"^[{_PUNCT}]+$")
_ONE_PUNCT = re.compile(rf"^[{_PUNCT}]$")
_ANY_PUNCT = re.compile(rf"[{_PUNCT}]")

Span = tuple[str, int, int]  # (label, first token, last token)


def normalise(triple: str) -> str:
    """Rule 1: one triple string as the scorer compares it."""
    text = _SPACES.sub(" ", _CAMEL.sub(r"\1 \2", triple).lower().replace("_", " ")).lower()
    parts = text.split(" | ")
    note = _TRAILING_NOTE.search(parts[-1])
    if note:
        parts[-1] = note.group(1)
        text = " | ".join(parts)
    return text


def triple_line(subject: str, predicate: str, obj: str) -> str:
    """A (subject, predicate, object) triple as the challenge's XML writes it."""
    return f"{subject} | {predicate} | {obj}"


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    from .text2kgbench import tokenize  # NLTK's word_tokenize, Punkt's split stood in for (lazy)

    return tuple(tokenize(text))


def _kept(text: str, drop: re.Pattern[str]) -> list[str]:
    return [word.lower() for word in _words(text) if drop.search(word) is None]


# --------------------------------------------------------------------------- linking words


def _find(sequence: Sequence[str], run: Sequence[str]) -> int | None:
    size = len(run)
    for start in range(len(sequence) - size + 1):
        if list(sequence[start:start + size]) == list(run):
            return start
    return None


def _link(ref: list[str], cand: list[str], number: int, size: int) -> None:
    """Mark, longest runs first, candidate runs found in the reference: reference words become
    `R:<n>:<i>`, the candidate's `C:<n>:<i>` (i: the reference position). As the scorer does it:
    each size's runs are listed before any is marked, a match re-enters at the same size, and
    the number a nested pass used is not carried back."""
    while size > 0:
        runs = [tuple(cand[i:i + size]) for i in range(len(cand) - size + 1)]
        for run in runs:
            at = _find(ref, run)
            if at is None:
                continue
            for offset in range(size):
                ref[at + offset] = f"R:{number}:{at + offset}"
            mine = _find(cand, run)
            if mine is not None:
                for offset in range(size):
                    cand[mine + offset] = f"C:{number}:{at + offset}"
            number += 1
            _link(ref, cand, number, size)
        size -= 1


def _group(token: str) -> str:
    """`C:3:5` and `C:3:L` -> `C:3`; `N:2` -> `N:2`."""
    return token if token.startswith("N:") else token.rsplit(":", 1)[0]


@dataclass
class ElementSpans:
    found: bool
    ref: list[Span]
    cand: list[Span]
    length: int  # tokens this element takes in the pair's sequence


def _spans(ref: list[str], cand: list[str], ref_label: str, cand_label: str, base: int) -> ElementSpans:
    """The reference element's span and the candidate's spans, from `base` on (marks `cand`)."""
    linked = [i for i, token in enumerate(cand) if token.startswith("C:")]
    if not linked:
        if not ref:
            return ElementSpans(False, [], [(cand_label, base, base + len(cand) - 1)], len(cand))
        if not cand:
            return ElementSpans(False, [(ref_label, base, base + len(ref) - 1)], [], 1)
        total = len(ref) + len(cand)
        return ElementSpans(False, [(ref_label, base, base + len(ref) - 1)],
                            [(cand_label, base + len(ref), base + total - 1)], total)
    first = linked[0]
    joins_start = cand[first].rsplit(":", 1)[1] == "0"
    first_group = _group(cand[first])
    last_at: int | None = None
    last_group = ""
    if ref[-1].startswith("R:") and not cand[-1].startswith("C:"):
        final = cand[linked[-1]]
        if final == "C" + ref[-1][1:]:
            last_at = cand.index(final)
            last_group = _group(final)
    before: list[str] = []
    after: list[str] = []
    loose: list[str] = []
    stretch = 1
    for i, token in enumerate(cand):
        if token.startswith("C:"):
            stretch += 1
        elif i < first and joins_start:
            cand[i] = first_group + ":L"
            before.append(cand[i])
        elif last_at is not None and i > last_at:
            cand[i] = last_group + ":L"
            after.append(cand[i])
        else:
            loose.append(f"N:{stretch}")
    sequence = [("C" + t[1:]) if t.startswith("R:") else t for t in before + ref + after + loose]
    spans: list[Span] = []
    current = ""
    begin = 0
    open_run = False
    for i, token in enumerate(sequence):
        if token.startswith(("C:", "N:")):
            open_run = True
            key = _group(token)
            if key != current:
                if current:
                    spans.append((cand_label, base + begin, base + i - 1))
                current, begin = key, i
            if i == len(sequence) - 1:
                spans.append((cand_label, base + begin, base + i))
        elif open_run:
            spans.append((cand_label, base + begin, base + i - 1))
    ref_span = (ref_label, base + len(before), base + len(before) + len(ref) - 1)
    return ElementSpans(True, [ref_span], spans, len(sequence))


def _element(ref_text: str, cand_text: str, ref_label: str, cand_label: str, base: int,
             *, crossed: bool) -> tuple[ElementSpans, list[str], list[str]]:
    ref = _kept(ref_text, _ANY_PUNCT if crossed else _ALL_PUNCT)
    cand = _kept(cand_text, _ANY_PUNCT if crossed else _ONE_PUNCT)
    _link(ref, cand, 1, len(cand))
    return _spans(ref, cand, ref_label, cand_label, base), ref, cand


# --------------------------------------------------------------------------- one pair


def _semeval_counts(truth: list[Span], guess: list[Span]) -> dict[str, dict[str, int]]:
    """nervaluate 0.1.7's counts for one document (all labels are tags here)."""
    counts = {mode: dict.fromkeys(("correct", "incorrect", "partial", "missed", "spurious"), 0) for mode in MODES}

    def add(strict: str, exact: str, partial: str, ent_type: str) -> None:
        for mode, outcome in zip(("strict", "exact", "partial", "ent_type"), (strict, exact, partial, ent_type)):
            counts[mode][outcome] += 1

    touched: list[Span] = []
    for span in guess:
        if span in truth:
            touched.append(span)
            add("correct", "correct", "correct", "correct")
            continue
        for gold in truth:
            if gold[1] == span[1] and gold[2] == span[2] and gold[0] != span[0]:
                add("incorrect", "correct", "correct", "incorrect")
                touched.append(gold)
                break
            if set(range(gold[1], gold[2])) & set(range(span[1], span[2])):
                touched.append(gold)
                add("incorrect", "incorrect", "partial", "correct" if gold[0] == span[0] else "incorrect")
                break
        else:
            add("spurious", "spurious", "spurious", "spurious")
    for gold in truth:
        if gold not in touched:
            add("missed", "missed", "missed", "missed")
    return counts


@dataclass(frozen=True)
class PairScore:
    """Precision, recall and F1 of each scheme for one candidate triple against one reference."""

    figures: dict[str, tuple[float, float, float]]

    @property
    def weight(self) -> float:
        """What the pairing maximises: the mean F1 over the four schemes."""
        return statistics.mean([self.figures[mode][2] for mode in ("ent_type", "partial", "strict", "exact")])


def _ratios(counts: dict[str, int], half_partial: bool) -> tuple[float, float, float]:
    actual = counts["correct"] + counts["incorrect"] + counts["partial"] + counts["spurious"]
    possible = counts["correct"] + counts["incorrect"] + counts["partial"] + counts["missed"]
    hits = counts["correct"] + (0.5 * counts["partial"] if half_partial else 0)
    precision = hits / actual if actual > 0 else 0
    recall = hits / possible if possible > 0 else 0
    f1 = 2 * (precision * recall) / (precision + recall) if precision + recall > 0 else 0
    return precision, recall, f1


def score_pair(reference: str, candidate: str) -> PairScore:
    """Rule 3 for two normalised triple strings ('' for a padding triple)."""
    ref = reference.split(" | ")
    cand = candidate.split(" | ")
    if len(ref) > 1 and len(cand) > 1:
        count = len(ref)
    elif len(ref) == 1:
        count, ref = len(cand), ["", "", ""]
    else:
        count, cand = len(ref), ["", "", ""]
    ref += [""] * (count - len(ref))
    cand += [""] * (count - len(cand))
    parts: dict[str, ElementSpans] = {}
    base = 0
    for index in range(count):
        label = ELEMENTS[min(index, 2)]
        if index >= 2:  # a fourth part is read as the object again, as the scorer does
            base = parts["SUB"].length + parts["PRED"].length
        parts[label] = _element(ref[index], cand[index], label, label, base, crossed=False)[0]
        base += parts[label].length
    if len(parts) == 3:
        _crossings(parts, ref, cand)
    truth = [span for label in ELEMENTS if label in parts for span in parts[label].ref]
    guess = [span for label in ELEMENTS if label in parts for span in parts[label].cand]
    counts = _semeval_counts(truth, guess)
    figures = {mode: _ratios(counts[mode], mode in ("partial", "ent_type")) for mode in MODES}
    return PairScore(figures)


def _crossings(parts: dict[str, ElementSpans], ref: list[str], cand: list[str]) -> None:
    """Rule 3's crossed tries, replacing `parts` entries when one links."""
    sub, pred, obj = parts["SUB"], parts["PRED"], parts["OBJ"]
    if not sub.found and not obj.found:
        first, _, _ = _element(ref[0], cand[2], "SUB", "OBJ", 0, crossed=True)
        second, ref_words, cand_words = _element(ref[2], cand[0], "OBJ", "SUB", first.length + pred.length, crossed=True)
        if first.found or second.found:
            parts["SUB"], parts["OBJ"] = first, second
            # the scorer re-reads the predicate from the last crossed pair's (marked) words
            parts["PRED"] = _spans(ref_words, cand_words, "PRED", "PRED", first.length)
            return
    if not sub.found and not pred.found:
        first, _, _ = _element(ref[0], cand[1], "SUB", "PRED", 0, crossed=True)
        second, _, _ = _element(ref[1], cand[0], "PRED", "SUB", first.length, crossed=True)
        if first.found or second.found:
            parts["SUB"], parts["PRED"] = first, second
            return
    if not pred.found and not obj.found:
        first, _, _ = _element(ref[1], cand[2], "PRED", "OBJ", sub.length, crossed=True)
        second, _, _ = _element(ref[2], cand[1], "OBJ", "PRED", sub.length + first.length, crossed=True)
        if first.found or second.found:
            parts["PRED"], parts["OBJ"] = first, second


# --------------------------------------------------------------------------- entries and the file


def best_pairing(weights: list[list[float]]) -> list[int]:
    """Rule 4: for a square matrix (candidate x reference), the reference of each candidate in the
    first permutation, in itertools.permutations' order, whose summed weight is the highest."""
    size = len(weights)
    exact = [[Fraction(w) for w in row] for row in weights]
    best: dict[int, Fraction] = {}

    def rest(row: int, used: int) -> Fraction:
        if row == size:
            return Fraction(0)
        if used not in best:
            best[used] = max(exact[row][col] + rest(row + 1, used | (1 << col))
                             for col in range(size) if not used & (1 << col))
        return best[used]

    target = rest(0, 0)
    chosen: list[int] = []
    used = 0
    total = Fraction(0)
    for row in range(size):
        for col in range(size):
            if used & (1 << col):
                continue
            if total + exact[row][col] + rest(row + 1, used | (1 << col)) == target:
                chosen.append(col)
                used |= 1 << col
                total += exact[row][col]
                break
    return chosen


def entry_pairs(references: Sequence[str], candidates: Sequence[str]) -> list[PairScore]:
    """Rules 1, 2 and 4 for one entry: the kept pair scores (as many as the longer list).
    Raises ValueError past MAX_PAIRING triples."""
    refs = [normalise(t) for t in references]
    cands = [normalise(t) for t in candidates]
    size = max(len(refs), len(cands))
    if size > MAX_PAIRING:
        raise ValueError(f"{size} triples: more than the {MAX_PAIRING} the pairing search takes")
    refs += [""] * (size - len(refs))
    cands += [""] * (size - len(cands))
    scores = [[score_pair(ref, cand) for ref in refs] for cand in cands]
    pairing = best_pairing([[score.weight for score in row] for row in scores])
    return [scores[row][col] for row, col in enumerate(pairing)]


def file_figures(entries: Sequence[tuple[Sequence[str], Sequence[str]]]) -> dict[str, float | None]:
    """Rule 5 over (references, candidates) per entry; None (n/a) when no pair was scored."""
    return pooled([pair for refs, cands in entries for pair in entry_pairs(refs, cands)])


def pooled(kept: Sequence[PairScore]) -> dict[str, float | None]:
    """Rule 5: each figure's mean over the kept pairs of every entry; None (n/a) without a pair."""
    if not kept:
        return {name: None for name in METRICS}
    figures: dict[str, float | None] = {}
    for mode in MODES:
        for index, figure in enumerate(("precision", "recall", "f1")):
            figures[f"{mode}_{figure}"] = statistics.mean([pair.figures[mode][index] for pair in kept])
    return figures


def answer_triples(text: str) -> list[str] | None:
    """The triples of an answer as the challenge's gtriples: a JSON list of lists of strings, each
    list joined with ` | ` (any number of parts, as the XML would hold them), or lines of
    `subject | property | object`, each line as it is; None for an answer of another shape
    (the caller reads it in its parsed format)."""
    from ...inputfiles import JsonRefused, loads

    stripped = text.strip()
    if stripped.startswith("["):
        try:
            value = loads(stripped)
        except (JsonRefused, ValueError):
            value = None
        if isinstance(value, list) and all(
                isinstance(item, list) and all(isinstance(part, str) for part in item) for item in value):
            return [" | ".join(item) for item in value]
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and all(" | " in line for line in lines):
        return [line.strip() for line in lines]
    return None


__all__ = ["answer_triples", "pooled", "ELEMENTS", "MAX_PAIRING", "METRICS", "MODES", "PairScore", "best_pairing", "entry_pairs", "file_figures",
           "normalise", "score_pair", "triple_line"]
