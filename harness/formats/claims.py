"""GraphRAG's claims (covariates): eight tuple-delimited fields per record (subject, object,
type, status, start date, end date, description, source text), no entity/relationship tag."""

from __future__ import annotations

from typing import ClassVar

from harness.formats.base import DELIMITED_VARIABLES, DetectionContext, DetectionRule, Delimiters, ExampleRecords, OutputFormat, ReadOutcome
from harness.formats.reading import read_delimited_answer
from harness.parsing.codes import CLAIM_CODES, COMPLETION_CODES, RECORD_CODES, WHOLE_OUTPUT_CODES
from harness.parsing.detect import has_wide_records
from harness.parsing.issues_log import IssueLog


def _untagged_claims(ctx: DetectionContext) -> bool:
    """Untagged records with a claim status between delimiters, or eight-field records."""
    return ctx.has_td and not ctx.tagged and (ctx.claim or has_wide_records(ctx.text, ctx.td))


def _claim_status(ctx: DetectionContext) -> bool:
    return ctx.claim


class ClaimsFormat(OutputFormat):
    name: ClassVar[str] = "claims"
    delimited: ClassVar[bool] = True
    variables: ClassVar[tuple[str, ...]] = DELIMITED_VARIABLES
    codes: ClassVar[frozenset[str]] = WHOLE_OUTPUT_CODES | COMPLETION_CODES | RECORD_CODES | CLAIM_CODES
    detection_rules: ClassVar[tuple[DetectionRule, ...]] = (
        DetectionRule(40, _untagged_claims),
        DetectionRule(100, _claim_status),
    )
    requires_completion_delimiter: ClassVar[bool] = True

    def read(self, text: str, delimiters: Delimiters, log: IssueLog, round: int, *, detected: bool) -> ReadOutcome:
        return read_delimited_answer(self.name, text, delimiters, log, round, layout="claims", detected=detected)

    def write_example(self, example: ExampleRecords, delimiters: Delimiters) -> str:
        td, rd, cd = delimiters.tuple, delimiters.record, delimiters.completion
        records = [
            f"({c.subject}{td}{c.object}{td}{c.type}{td}{c.status}{td}{c.start_date}{td}{c.end_date}"
            f"{td}{c.description}{td}{c.source_text})"
            for c in example.claims
        ]
        return f"\n{rd}\n".join(records) + f"\n{cd}"
