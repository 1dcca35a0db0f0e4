"""Deciding whether a model's answer may become a few-shot example.

Weak tuning models answer with refusals, summaries (of the passage, or of the prompt's own
examples), prose, or records copied from the examples the prompt showed them; one such
"example" poisons every later call. An answer is kept only when it parses with the declared
format, loses no record, ends with the completion delimiter, holds at least one relationship,
relates only listed entities of listed types, every entity it names occurs in the chunk, no
description is empty or a placeholder (`<entity_description>`, `N/A`), and no description copies
the extraction prompt's own text (its instructions or worked examples) rather than the chunk
(`scoring.copied`, the rule the reference-free figures count `example_descriptions` with).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..formats import get_format
from ..model import ExtractedGraph
from ..formats.answer import parse
from ..prompts.lint import PROSE_CODES  # the same prose codes that lint reports in examples
from ..scoring.copied import copied_passage, input_text, prompt_text as index_prompt
from ..scoring.normalize import is_cjk, normalize_name, normalize_text, occurs_in
from ..scoring.reference_free import is_placeholder_description

SUMMARY_HINTS = re.compile(
    r"\b(the (above|previous|given|preceding) examples?|examples? (above|provided|given)|in summary|"
    r"to summari[sz]e|(a|the) summary of|(this|the) (input )?(text|passage|transcript|document|conversation) "
    r"(describes|discusses|is about|covers|appears to be)|the examples (show|above|illustrate|demonstrate)|"
    r"here is a summary|(machine )?translation of the text)\b",
    re.I,
)
POSSESSIVE = re.compile(r"(?<=\w)['\u2019\u02bc]s\b")

# Reasons start with one of these words, so reports and tests can group them.
REASONS = ("refusal", "empty", "summary", "prose", "unparsable", "completion", "prose-mixed",
           "no-relationship", "dangling", "type", "copied", "ungrounded", "placeholder")


@dataclass
class ExampleVerdict:
    kept: bool
    reason: str  # "ok", or "<kind>: why it was rejected" with kind one of REASONS
    graph: ExtractedGraph
    ungrounded: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "ok" if self.kept else self.reason.split(":", 1)[0]


def grounded(name: str, chunk_key: str, chunk_tokens: set[str]) -> bool:
    """Whether an entity name is found in the chunk.

    As whole tokens after the scoring's name normalisation (case, width, punctuation, leading
    article), or, for a name of several words, when most of its words occur in the chunk
    ("SAN FRANCISCO GIANTS" for "the Giants of San Francisco"), or, in scripts written without
    spaces, when three quarters of its character pairs do."""
    key = normalize_name(name)
    if occurs_in(key, chunk_key):
        return True
    if any(is_cjk(c) for c in key):  # no spaces between words: most character pairs must occur
        pairs = [key[i : i + 2] for i in range(len(key) - 1) if " " not in key[i : i + 2]]
        return bool(pairs) and sum(p in chunk_key for p in pairs) * 4 >= len(pairs) * 3
    words = [w for w in key.split() if len(w) > 2 or w.isdigit()]
    return len(words) > 1 and sum(w in chunk_tokens for w in words) * 2 > len(words)


def judge_example(
    answer: str,
    *,
    chunk: str | None = None,
    prompt_example_names: Iterable[str] = (),
    format: str = "graphrag",
    tuple_delimiter: str = "<|>",
    record_delimiter: str = "##",
    completion_delimiter: str = "<|COMPLETE|>",
    entity_types: list[str] | None = None,
    prompt_text: str | None = None,
) -> ExampleVerdict:
    """Judge one answer; `chunk` is the passage it was extracted from, `prompt_example_names`
    the entity names of the examples the extraction prompt itself showed the model, `prompt_text`
    that prompt as sent without the chunk (its instructions and examples: descriptions must not
    copy it)."""
    result = parse(answer, format, tuple_delimiter=tuple_delimiter, record_delimiter=record_delimiter,
                   completion_delimiter=completion_delimiter)
    graph, report = result.graph, result.format_report
    codes = {issue.code for issue in report.issues}
    if not graph.entities and not graph.relationships:
        if "refusal" in codes:
            return ExampleVerdict(False, "refusal: the answer declines instead of extracting", graph)
        if "empty-output" in codes or not answer.strip():
            return ExampleVerdict(False, "empty: the answer is empty", graph)
        if SUMMARY_HINTS.search(answer):
            return ExampleVerdict(False, "summary: the answer describes the passage or the examples instead of extracting", graph)
        return ExampleVerdict(False, "prose: no records in the declared format", graph)
    if report.records_dropped:
        dropped = sorted({i.code for i in report.issues if i.dropped} - PROSE_CODES)
        if dropped:
            return ExampleVerdict(False, f"unparsable: {report.records_dropped} record(s) lost ({', '.join(dropped)})", graph)
    if not get_format(format).is_complete(report.completion):
        return ExampleVerdict(False, f"completion: the delimiter {completion_delimiter} is {report.completion}", graph)
    if PROSE_CODES & codes:
        return ExampleVerdict(False, f"prose-mixed: prose around the records ({', '.join(sorted(PROSE_CODES & codes))})", graph)
    if not graph.relationships:
        return ExampleVerdict(False, "no-relationship: the answer lists entities but no relationship", graph)
    if chunk is not None:
        keys = [normalize_text(chunk), normalize_text(POSSESSIVE.sub("", chunk))]  # "Cruz's plan" names Cruz
        tokens = {t for key in keys for t in key.split()}
        missing = [e.name for e in graph.entities if not any(grounded(e.name, key, tokens) for key in keys)]
        if missing:
            shown = {normalize_name(n) for n in prompt_example_names}
            copied = [n for n in missing if normalize_name(n) in shown]
            if copied:
                return ExampleVerdict(False, f"copied: the answer repeats the prompt's own examples "
                                             f"({', '.join(copied[:3])}), which are not in the passage", graph, missing)
            return ExampleVerdict(False, f"ungrounded: {len(missing)} of {len(graph.entities)} entities are not in "
                                         f"the passage ({', '.join(missing[:3])})", graph, missing)
    names = {normalize_name(e.name) for e in graph.entities}
    dangling = sorted({end for r in graph.relationships for end in (r.source, r.target) if normalize_name(end) not in names})
    if dangling:
        return ExampleVerdict(False, f"dangling: a relationship names {dangling[0]}, which is not listed as an entity", graph)
    if entity_types:
        allowed = {t.strip().lower() for t in entity_types}
        bad = sorted({e.type for e in graph.entities if e.type.strip().lower() not in allowed})
        if bad:
            return ExampleVerdict(False, f"type: entity type(s) outside the list: {', '.join(bad)}", graph)
    if get_format(format).writes_descriptions:
        descriptions = [e.description for e in graph.entities] + [r.description for r in graph.relationships]
        empty = [d for d in descriptions if is_placeholder_description(d)]
        if empty:
            return ExampleVerdict(False, f"placeholder: {len(empty)} description(s) empty or a placeholder "
                                         f"({empty[0].strip()[:40]!r})", graph)
        if prompt_text is not None and chunk is not None:
            index, given = index_prompt(prompt_text), input_text(chunk)
            copies = [p for p in (copied_passage(d, index, given) for d in descriptions) if p is not None]
            if copies:
                return ExampleVerdict(False, f"copied: {len(copies)} description(s) repeat the prompt's own text, "
                                             f"not the passage ({copies[0][:60]!r})", graph)
    return ExampleVerdict(True, "ok", graph)
