"""Description summaries (GraphRAG's summarize_descriptions): the whole answer is the summary,
prose, after think blocks and code fences are stripped.

The format is never guessed (it has no detection rules): any prose would match, and an
extraction answer with a preamble must stay an extraction. A variant reads its answers as
summaries when its template (`format: summary`) or the suite's kind says so. What the reader
flags is an answer that is not a summary at all: JSON or extraction records instead of prose
(`summary-not-prose`); an empty answer and a refusal are flagged by the pipeline like every
format's (`empty-output`, `refusal`). Length, naming and facts are scored, not parsed
(harness/scoring/summary_score.py), since they need the case.
"""

from __future__ import annotations

import json
from typing import ClassVar

from harness.formats.base import DetectionContext, Delimiters, ExampleRecords, OutputFormat, ReadOutcome
from harness.parsing.cleanup import clean, is_refusal
from harness.parsing.codes import WHOLE_OUTPUT_CODES
from harness.parsing.delimited import ParsedRecords
from harness.parsing.issues_log import IssueLog

SUMMARY_CODES = frozenset({"summary-not-prose"})


def summary_text(answer: str) -> str:
    """The summary an answer holds: the answer without think blocks and fences, stripped."""
    cleaned, _reasoning = clean(answer, IssueLog())
    return cleaned.strip()


def _is_json(text: str) -> bool:
    if text[:1] not in "{[":
        return False
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # broken, or nested too deeply for the decoder to read
        return text.rstrip()[-1:] in "}]"  # a broken JSON object is still not prose
    return isinstance(value, (dict, list))


def not_prose(text: str, tuple_delimiter: str) -> bool:
    """Whether a cleaned answer is JSON or extraction records rather than a prose summary."""
    ctx = DetectionContext(text, tuple_delimiter)
    return _is_json(text.strip()) or ctx.tuple_records or ctx.tagged or ctx.lightrag_records


class SummaryFormat(OutputFormat):
    name: ClassVar[str] = "summary"
    delimited: ClassVar[bool] = False
    # GraphRAG fills {entity_name}, {description_list} and {max_length}; the harness supplies the
    # description list as {input_text} too (docs/suites.md, "Suite kinds") and {language}
    variables: ClassVar[tuple[str, ...]] = ("input_text", "entity_name", "description_list", "max_length", "language")
    codes: ClassVar[frozenset[str]] = WHOLE_OUTPUT_CODES | SUMMARY_CODES
    requires_completion_delimiter: ClassVar[bool] = False
    single_object: ClassVar[bool] = True  # one summary per answer: no "no-records", no completion shortcut
    example_template: ClassVar[str] = "Example {n}:\nDescription List: {text}\n\nOutput:\n{output}"

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        records = ParsedRecords()
        body = text.strip()
        if body and not is_refusal(body):  # empty and refusals: the pipeline's codes
            records.seen = 1
            if not_prose(body, delimiters.tuple):
                log.note("summary-not-prose", body)
            else:
                records.parsed = 1
        return ReadOutcome(records=records, report=None, completion="present", format=self.name)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        """A summary example's answer: the descriptions of its entities as sentences, in order."""
        sentences = [str(e.description).strip().rstrip(".") + "." for e in example.entities if str(e.description).strip()]
        return " ".join(sentences)
