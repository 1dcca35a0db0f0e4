"""The completion delimiter check: present exactly once, and last.

Used by the parser (to set FormatReport.completion and to split records on the marks) and on its
own by the CLI and the runner. Pure: text in, result out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from harness.model import CompletionStatus
from harness.parsing.issues_log import IssueLog
from harness.text import scrub_surrogates

# What may follow the completion mark without making it "not last": separators, closers, fences.
_TRAILING_JUNK = re.compile(r"[\s#)）>\]}\"'`*.,;:|~\-]*")


class CompletionMark(NamedTuple):
    start: int
    end: int
    kind: str  # "exact", "case" (another letter case) or "malformed" (brackets/pipes wrong)


@dataclass(slots=True)
class CompletionCheck:
    status: CompletionStatus
    marks: list[CompletionMark] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)  # format codes, see docs/format-codes.md
    trailing_text: str = ""  # prose after the last mark (a closing note), if any

    @property
    def ok(self) -> bool:
        return self.status == "present"


_OPEN_CHARS = "<[{|"
_CLOSE_CHARS = "|>]}"
_BRACKETS = frozenset("<>[]{}")
_OPEN_SPACE = _OPEN_CHARS + " "
_CLOSE_SPACE = _CLOSE_CHARS + " "


@lru_cache(maxsize=64)
def _core(completion_delimiter: str) -> tuple[re.Pattern[str], bool]:
    """A case-insensitive pattern for the delimiter's word (e.g. COMPLETE), and whether near
    misses around that word should be accepted (only for bracketed words like <|COMPLETE|>)."""
    words = re.findall(r"[A-Za-z]+", completion_delimiter)
    if len(words) == 1 and len(words[0]) >= 4 and words[0] != completion_delimiter:
        return re.compile(rf"(?<![A-Za-z]){re.escape(words[0])}D?(?![A-Za-z])", re.I), True
    return re.compile(re.escape(completion_delimiter), re.I), False


@lru_cache(maxsize=64)
def _variants(completion_delimiter: str) -> tuple[int, tuple[str, ...]]:
    """(length, spellings) of the delimiter's word: upper, lower and title case."""
    word = re.findall(r"[A-Za-z]+", completion_delimiter)[0].lower()
    return len(word), tuple(dict.fromkeys((word.upper(), word, word.capitalize())))  # title case last


def _word_spans(text: str, completion_delimiter: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """Where the delimiter's word occurs as a whole word in upper, lower or title case.
    str.find is far faster than a case-insensitive regex on long, non-ASCII text; oddly mixed
    case (CoMpLeTe) is not looked for."""
    wl, variants = _variants(completion_delimiter)
    spans: list[tuple[int, int]] = []
    n = len(text)
    lower_tail = variants[-1][1:]  # "omplete": one scan rules out both lower and title case
    has_lower = lower_tail != variants[0][1:] and lower_tail in text
    for variant in variants:
        if variant[1:] == lower_tail and not has_lower:
            continue
        pos = text.find(variant)
        while pos >= 0:
            start, end = pos, pos + wl
            if end < n and text[end] in "dD":
                end += 1
            pos = text.find(variant, end)
            if (start > 0 and text[start - 1].isalpha()) or (end < n and text[end].isalpha()):
                continue
            spans.append((start, end))
    if len(spans) > 1:
        spans.sort()
    return spans


def find_marks(text: str, completion_delimiter: str) -> list[CompletionMark]:
    """Every occurrence of the delimiter or a near miss (<|complete|>, <COMPLETE>, |COMPLETE|>).
    A bare word (no bracket or pipe next to it) is prose, not a mark."""
    marks: list[CompletionMark] = []
    if not completion_delimiter:
        return marks
    pattern, loose = _core(completion_delimiter)
    if not loose:
        for m in pattern.finditer(text):
            s = m.group(0)
            marks.append(CompletionMark(m.start(), m.end(), "exact" if s == completion_delimiter else "case"))
        return marks
    low = completion_delimiter.lower()
    n = len(text)
    for start, end in _word_spans(text, completion_delimiter, pattern):
        a, b = start, end
        while a > 0 and start - a < 4 and text[a - 1] in _OPEN_SPACE:
            a -= 1
        while b < n and b - end < 4 and text[b] in _CLOSE_SPACE:
            b += 1
        while a < start and text[a] == " ":
            a += 1
        while b > end and text[b - 1] == " ":
            b -= 1
        if a == start and b == end:
            continue  # the word "complete" in prose
        s = text[a:b]
        if not _BRACKETS.intersection(s) and not (text[start - 1 : start] == "|" or text[end : end + 1] == "|"):
            continue  # "| complete |": a markdown table cell
        if s == completion_delimiter:
            kind = "exact"
        elif s.lower() == low:
            kind = "case"
        else:
            kind = "malformed"
        marks.append(CompletionMark(a, b, kind))
    return marks


def check_completion(
    text: str,
    completion_delimiter: str = "<|COMPLETE|>",
    *,
    tuple_delimiter: str = "<|>",
    marks: list[CompletionMark] | None = None,
) -> CompletionCheck:
    """present: exactly one mark and no record after it; misplaced: repeated, or records follow
    it; missing: none. A lower-cased or malformed mark still counts, with its own code.
    Prose after the mark (a closing note) does not make it misplaced; it is returned in
    `trailing_text`."""
    if marks is None:
        marks = find_marks(text, completion_delimiter)
    if not marks:
        return CompletionCheck("missing", [], ["completion-missing"])
    codes: list[str] = []
    kinds = {m.kind for m in marks}
    if "case" in kinds:
        codes.append("completion-lowercase")
    if "malformed" in kinds:
        codes.append("completion-malformed")
    after = text[marks[-1].end :]
    junk = _TRAILING_JUNK.match(after)
    rest = after[junk.end() :] if junk else after
    status: CompletionStatus = "present"
    trailing = ""
    if rest:
        if tuple_delimiter and tuple_delimiter in rest or _looks_like_record(rest):
            status = "misplaced"
            codes.append("completion-not-last")
        else:
            trailing = scrub_surrogates(rest.strip())  # the text policy: see harness/text.py
    if len(marks) > 1:
        status = "misplaced"
        codes.append("completion-repeated")
    return CompletionCheck(status, marks, codes, trailing)


_RECORD_HINT = re.compile(r"[\(（]\s*[\"'“]?(?:entity|relationship|relation)\b", re.I)


def _looks_like_record(text: str) -> bool:
    return bool(_RECORD_HINT.search(text))


def remove_marks(text: str, check: CompletionCheck) -> str:
    """The text with every completion mark replaced by a newline (records on either side stay apart)."""
    if not check.marks:
        return text
    parts: list[str] = []
    pos = 0
    for m in check.marks:
        parts.append(text[pos : m.start])
        parts.append("\n")
        pos = m.end
    parts.append(text[pos:])
    return "".join(parts)


def settle_completion(
    text: str, cd: str, td: str, log: IssueLog, marks: list[CompletionMark] | None = None
) -> tuple[str, CompletionCheck]:
    """Check the completion delimiter while parsing: note its issues in `log` and return the text
    without its marks, with the check."""
    if marks is None:
        marks = find_marks(text, cd)
    check = check_completion(text, cd, tuple_delimiter=td, marks=marks)
    for code in check.codes:
        log.note(code, text[check.marks[-1].start :] if check.marks else text[-80:])
    return remove_marks(text, check), check
