"""Passages an answer copies from its prompt's own text (instructions, worked examples) instead of
taking them from its input: the runs of words it shares with the prompt and not with the input.

Both sides are read as the scoring reads text (`normalize.normalize_text`: case, width,
punctuation), as words (`words`); a CJK character counts as a word (such text has no spaces). A run is
copied when the prompt holds it and the input does not: a chunk that stands in the prompt's own
examples copies nothing. Two tests, each a caller's choice:

- a long passage: LONG_RUN words in a row copied (an extraction description taken from an
  example: `long=True`);
- mostly copied: a text of RUN words or more, at least COPIED_SHARE of whose words lie in copied
  runs of RUN words or more. A prompt's form example that an answer adapts ("A float score
  between 0 and 10 for how much the community shapes <its own field>, 0 being ...") keeps well
  under that share (about half); the example word for word, or with one name swapped, does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .normalize import has_cjk, is_cjk, normalize_text

RUN = 3  # the shortest run that counts as copied
LONG_RUN = 8  # a run this long is a passage on its own
COPIED_SHARE = 0.8
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The normalised words of a text: its runs of letters and digits (a delimiter such as `<|>`
    between two fields separates words), each CJK character a word of its own."""
    normalized = normalize_text(text)
    tokens: list[str] = _WORD.findall(normalized)
    if not has_cjk(normalized):  # most texts: every token is a word as it stands
        return tokens
    out: list[str] = []
    for token in tokens:
        if has_cjk(token):
            run = ""
            for ch in token:
                if is_cjk(ch):
                    if run:
                        out.append(run)
                        run = ""
                    out.append(ch)
                else:
                    run += ch
            if run:
                out.append(run)
        else:
            out.append(token)
    return out


@dataclass(frozen=True)
class PromptText:
    """A prompt's own text, indexed: every run of RUN and of LONG_RUN words."""

    runs: frozenset[str]
    long_runs: frozenset[str]


@lru_cache(maxsize=32)
def prompt_text(text: str) -> PromptText:
    """The index of one prompt's text (the same for every case of a variant: built once)."""
    found = words(text)
    return PromptText(frozenset(" ".join(found[i : i + RUN]) for i in range(len(found) - RUN + 1)),
                      frozenset(" ".join(found[i : i + LONG_RUN]) for i in range(len(found) - LONG_RUN + 1)))


@dataclass(frozen=True)
class InputText:
    """What an answer was given to work from (a chunk, a community's tables, sample passages), as
    words: a run it holds is the input's, never copied."""

    padded: str  # " w1 w2 ... wn ": a run is held when " run " occurs in it

    def holds(self, run: str) -> bool:
        return f" {run} " in self.padded


@lru_cache(maxsize=8)
def input_text(text: str) -> InputText:
    return InputText(f" {' '.join(words(text))} ")


def copied_passage(text: str, prompt: PromptText | str, given: InputText | str = "", *, long: bool = True) -> str | None:
    """The passage `text` copies from the prompt and not from its input (module docstring), or None.

    `long`: a LONG_RUN-word passage alone is enough; without it only a text mostly copied is."""
    index = prompt_text(prompt) if isinstance(prompt, str) else prompt
    source = input_text(given) if isinstance(given, str) else given
    found = words(text)
    if len(found) < RUN:
        return None
    if long:
        for i in range(len(found) - LONG_RUN + 1):
            run = " ".join(found[i : i + LONG_RUN])
            if run in index.long_runs and not source.holds(run):
                return _widest(found, index, source, i)
    covered = [False] * len(found)
    for i in range(len(found) - RUN + 1):
        run = " ".join(found[i : i + RUN])
        if run in index.runs and not source.holds(run):
            covered[i : i + RUN] = [True] * RUN
    copied = sum(covered)
    if not copied or copied < COPIED_SHARE * len(found):
        return None
    return _longest_covered(found, covered)


def _widest(found: list[str], index: PromptText, source: InputText, start: int) -> str:
    """The copied passage that starts at `start`, grown while its runs stay copied."""
    end = start + LONG_RUN
    while end < len(found):
        run = " ".join(found[end - RUN + 1 : end + 1])
        if run not in index.runs or source.holds(run):
            break
        end += 1
    return " ".join(found[start:end])


def _longest_covered(found: list[str], covered: list[bool]) -> str:
    best: tuple[int, int] = (0, 0)
    start = None
    for i, hit in enumerate([*covered, False]):
        if hit and start is None:
            start = i
        elif not hit and start is not None:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = None
    return " ".join(found[best[0] : best[1]])
