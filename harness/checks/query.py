"""Query-phase outputs: global-search map points, DRIFT primer and local answers, rate-query
answers, and description summaries. Each check takes the model's raw text and returns the
issues found (empty when the answer is well formed)."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from harness.checks.citations import DEFAULT_DATASETS, ContextIds, citation_issues, find_citations
from harness.model import FormatIssue
from harness.parsing.fields import json_number
from harness.parsing.cleanup import clean
from harness.parsing.issues import issue, short
from harness.parsing.issues_log import IssueLog
from harness.parsing.json_output import load_json
from harness.content_words import count_words
from harness.formats.summary import summary_text
from harness.parsing.codes import WHOLE_OUTPUT_CODES
from harness.text import scrub_surrogates



def load_answer(text: str) -> tuple[Any, list[FormatIssue]]:
    """The JSON object of a query-phase answer (fences, think blocks, prose and broken JSON
    tolerated); (None, [query-invalid-json]) when there is none."""
    log = IssueLog()
    text = scrub_surrogates(text)  # the text policy: see harness/text.py
    cleaned, _ = clean(text, log)
    loaded = load_json(cleaned, log)
    if loaded is None or not isinstance(loaded.value, (dict, list)):
        return None, [issue("query-invalid-json", "No JSON object found in the answer.", text)]
    issues = [i for i in log.issues() if i.code in ("json-repaired", "json-truncated")]
    return loaded.value, issues


def _score(obj: dict[str, Any], key: str, low: float, high: float, where: str) -> list[FormatIssue]:
    if key not in obj:
        return [issue("query-missing-field", f"{where} has no {key!r}.", short(obj))]
    value = json_number(obj[key])
    if value is None:
        return [issue("query-field-type", f"{where}: {key!r} is not a number.", short(obj[key]))]
    if not low <= value <= high:
        return [issue("query-score-range", f"{where}: {key} {value:g} outside {low:g}-{high:g}.", short(obj[key]))]
    return []


def _string(obj: dict[str, Any], key: str, where: str) -> list[FormatIssue]:
    if key not in obj:
        return [issue("query-missing-field", f"{where} has no {key!r}.", short(obj))]
    if not isinstance(obj[key], str):
        return [issue("query-field-type", f"{where}: {key!r} should be a string.", short(obj[key]))]
    return []


def check_map_response(
    text: str,
    *,
    allowed_datasets: Collection[str] = DEFAULT_DATASETS,
    context_ids: ContextIds = None,
    score_range: tuple[float, float] = (0.0, 100.0),
) -> list[FormatIssue]:
    """Global-search map answer: {"points": [{"description": ..., "score": 0-100}]}, every
    description citing its data."""
    value, out = load_answer(text)
    if value is None:
        return out
    if not isinstance(value, dict) or "points" not in value:
        return out + [issue("query-missing-field", "The answer has no 'points' list.", short(value))]
    points = value["points"]
    if not isinstance(points, list):
        return out + [issue("query-field-type", "'points' should be a list.", short(points))]
    for n, point in enumerate(points, 1):
        where = f"Point {n}"
        if not isinstance(point, dict):
            out.append(issue("query-field-type", f"{where} is not an object.", short(point)))
            continue
        out += _string(point, "description", where)
        out += _score(point, "score", *score_range, where)
        description = point.get("description")
        if isinstance(description, str):
            found = find_citations(description)
            out += citation_issues(
                description, allowed_datasets=allowed_datasets, context_ids=context_ids, citations=found
            )
            if not found and json_number(point.get("score")) != 0:
                out.append(issue("citation-missing", f"{where} has no [Data: ...] reference.", description))
    return out


def check_drift_response(
    text: str,
    *,
    kind: str = "primer",
    score_range: tuple[float, float] = (0.0, 100.0),
) -> list[FormatIssue]:
    """DRIFT primer ({"intermediate_answer", "score", "follow_up_queries"}) or DRIFT local
    answer (kind="local": {"response", "score", "follow_up_queries"})."""
    value, out = load_answer(text)
    if value is None:
        return out
    where = f"DRIFT {kind} answer"
    if not isinstance(value, dict):
        return out + [issue("query-field-type", f"{where} is not an object.", short(value))]
    answer_key = "intermediate_answer" if kind == "primer" else "response"
    out += _string(value, answer_key, where)
    out += _score(value, "score", *score_range, where)
    if "follow_up_queries" not in value:
        out.append(issue("query-missing-field", f"{where} has no 'follow_up_queries'.", short(value)))
    else:
        queries = value["follow_up_queries"]
        if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
            out.append(
                issue("query-field-type", f"{where}: 'follow_up_queries' should be a list of strings.", short(queries))
            )
    return out


def check_rate_response(text: str, *, rating_range: tuple[float, float] = (0.0, 5.0)) -> list[FormatIssue]:
    """Rate-query answer: {"reason": ..., "rating": 0-5}."""
    value, out = load_answer(text)
    if value is None:
        return out
    if not isinstance(value, dict):
        return out + [issue("query-field-type", "The rating answer is not an object.", short(value))]
    return out + _string(value, "reason", "The rating answer") + _score(value, "rating", *rating_range, "The rating answer")


def _norm(s: str) -> str:
    return re.sub(r"[\s\"'“”‘’_\-]+", " ", s.casefold()).strip()


def check_summary(
    text: str,
    names: str | Sequence[str],
    *,
    max_words: int = 500,
) -> list[FormatIssue]:
    """A description summary: within `max_words`, and naming the entity (or, for a
    relationship, both entities) it summarises. Matching ignores case, quotes and spacing."""
    stripped = text.strip()
    if not stripped:
        return [issue("summary-empty", "The summary is empty.", text)]
    out: list[FormatIssue] = []
    words = count_words(stripped)
    if words > max_words:
        out.append(issue("summary-too-long", f"{words} words; the limit is {max_words}.", stripped))
    wanted = [names] if isinstance(names, str) else list(names)
    haystack = _norm(stripped)
    missing = [n for n in wanted if n.strip() and _norm(n) not in haystack]
    if missing:
        out.append(
            issue("summary-missing-entity", f"The summary does not name {', '.join(map(repr, missing))}.", stripped)
        )
    return out


def summary_issues(text: str, names: Sequence[str] = (), *, max_words: int = 500) -> tuple[list[FormatIssue], bool]:
    """A description-summary answer checked as a summary suite reads it: the `summary` format's
    issues (JSON or extraction records instead of prose, a refusal, a think block...), then
    `check_summary` on the summary it holds (think blocks and fences stripped: the text that is
    scored). Returns (issues, ok): ok when the format finds no error (harness.parsing.verdict; a
    think block is a note) and the summary check finds nothing."""
    from harness.formats.answer import parse  # the formats registry: loaded only for summaries
    from harness.parsing.verdict import has_format_errors

    result = parse(text, "summary")
    checked = check_summary(summary_text(text), list(names), max_words=max_words)
    own = list(result.format_report.issues)
    if any(i.code == "summary-empty" for i in checked):
        own = [i for i in own if i.code not in WHOLE_OUTPUT_CODES]  # one finding for an empty answer
    return [*own, *checked], not checked and not has_format_errors(result)


def map_points(text: str) -> list[tuple[str, bool]] | None:
    """(description, must cite) of each point of a global-search map answer
    ({"points": [{"description", "score"}]}); a point scored 0 need not cite. None when the
    text is not a map answer."""
    if "points" not in text:
        return None
    value, _ = load_answer(text)
    if not isinstance(value, dict) or not isinstance(value.get("points"), list):
        return None
    out: list[tuple[str, bool]] = []
    for point in value["points"]:
        if isinstance(point, dict) and isinstance(point.get("description"), str):
            score = point.get("score")
            zero = not isinstance(score, bool) and isinstance(score, (int, float)) and score == 0
            out.append((point["description"], not zero))
    return out


# `harness parse --format map|drift|rate|summary`: the query-phase answers and description
# summaries, read and checked by the functions above.
QUERY_FORMATS: tuple[str, ...] = ("map", "drift", "rate", "summary")
_TOLERATED = frozenset({"json-repaired"})  # repaired JSON is read; anything else fails the answer


def issue_json(i: FormatIssue) -> dict[str, Any]:
    """One finding as `harness parse` and `harness citations` print it in JSON."""
    return {"code": i.code, "message": i.message, "excerpt": i.excerpt}


@dataclass(frozen=True)
class SummaryAnswer:
    """What a description-summary answer says: the summary that is scored, and its word count."""

    text: str
    words: int


@dataclass(frozen=True)
class QueryCheck:
    """One query-phase answer read as its format (`check_query_answer`). `answer` is the JSON the
    model wrote (None: none found) or, for a summary, a `SummaryAnswer`; `ok` is False when any
    issue other than a JSON repair was found (a summary: any summary finding or format error)."""

    format: str
    answer: SummaryAnswer | Any
    issues: list[FormatIssue]
    ok: bool

    def to_json(self) -> dict[str, Any]:
        """{"format", "answer", "issues", "ok"}: the line `harness parse --format <query>` prints."""
        answer = ({"text": self.answer.text, "words": self.answer.words} if isinstance(self.answer, SummaryAnswer)
                  else self.answer)
        return {"format": self.format, "answer": answer, "issues": [issue_json(i) for i in self.issues], "ok": self.ok}


def check_query_answer(
    text: str,
    format: str,
    *,
    names: Sequence[str] = (),
    max_words: int = 500,
    context_ids: ContextIds = None,
    allowed_datasets: Collection[str] = DEFAULT_DATASETS,
) -> QueryCheck:
    """One query-phase answer read as `format` (one of QUERY_FORMATS). A DRIFT answer is a primer
    when it has `intermediate_answer`, else a local answer."""
    if format not in QUERY_FORMATS:
        raise ValueError(f"unknown query format {format!r}; expected one of {', '.join(QUERY_FORMATS)}")
    text = scrub_surrogates(text)  # the text policy: see harness/text.py
    answer: SummaryAnswer | Any
    ok: bool | None = None
    if format == "summary":
        issues, ok = summary_issues(text, names, max_words=max_words)
        summary = summary_text(text)
        answer = SummaryAnswer(summary, count_words(summary))
    else:
        answer, _ = load_answer(text)
        if format == "map":
            issues = check_map_response(text, allowed_datasets=allowed_datasets, context_ids=context_ids)
        elif format == "drift":
            kind = "primer" if isinstance(answer, dict) and "intermediate_answer" in answer else "local"
            issues = check_drift_response(text, kind=kind)
        else:
            issues = check_rate_response(text)
    return QueryCheck(format, answer, list(issues),
                      ok if ok is not None else all(i.code in _TOLERATED for i in issues))
