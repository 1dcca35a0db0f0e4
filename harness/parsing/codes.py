"""Stable format-issue codes: what each means, whether it drops a record, whether it is an error.

Every code used anywhere in `harness.parsing`, `harness.checks` and `harness.formats` is listed
here and documented in docs/format-codes.md; a test keeps the two in sync. A leaf module (no
harness imports), so the format-error verdict that `harness.model` asks for closes no cycle.
"""

from __future__ import annotations

# code -> (meaning, dropped)
FORMAT_CODES: dict[str, tuple[str, bool]] = {
    # ---------------------------------------------------------------- whole output
    "empty-output": ("The answer is empty or whitespace only.", False),
    "empty-extraction": ("The answer holds nothing but the completion delimiter: a valid extraction that found nothing.", False),
    "refusal": ("The model refused or said it could not do the task.", False),
    "no-records": ("No record could be found in a non-empty answer (prose, tables, markdown).", False),
    "internal-error": ("The parser hit an unexpected error; the message names it. Please report it.", False),
    "think-block": ("A <think>...</think> reasoning block was removed before parsing.", False),
    "think-unclosed": ("A <think> block was never closed; the text after it was treated as reasoning and removed.", False),
    "fence-stripped": ("Markdown code fences were removed.", False),
    "preamble": ("Prose before the first record was ignored.", False),
    "closing-note": ("Prose after the last record was ignored.", False),
    "interleaved-prose": ("Prose lines between records (headings, comments) were ignored.", False),
    "markdown-decoration": ("Headings, numbering, bullets or bold around records were removed.", False),
    "delimiter-inferred": ("The configured tuple delimiter was absent; the one the model used was inferred.", False),
    "newline-separated": ("Records were separated by newlines or blank lines instead of the record delimiter.", False),
    "glued-records": ("Records followed each other with no separator (e.g. gleaning rounds glued together).", False),
    "truncated": ("The model stopped at its token limit (finish_reason `length`): the answer is cut off, whatever was read from it.", False),
    # ---------------------------------------------------------------- completion delimiter
    "completion-missing": ("The completion delimiter is absent.", False),
    "completion-repeated": ("The completion delimiter appears more than once.", False),
    "completion-not-last": ("Records follow the completion delimiter (e.g. it was written first).", False),
    "completion-lowercase": ("The completion delimiter was written in another letter case.", False),
    "completion-malformed": ("The completion delimiter was written with missing or extra brackets/pipes.", False),
    # ---------------------------------------------------------------- records
    "record-closer": ("A record was closed by something other than ')' (e.g. '>' or a full-width '）') or not closed.", False),
    "value-quotes": ("Stray or unbalanced quotes, bold or brackets were removed around a value.", False),
    "delimiter-in-description": ("A record had extra fields; they were joined back into the description.", False),
    "extra-field": ("A record carried an extra numeric field (e.g. a counter); it was ignored.", False),
    "record-type-missing": ("A record had no 'entity'/'relationship' tag; its kind was inferred from its fields.", False),
    "record-type-unknown": ("A record had an unknown tag (e.g. an entity type); it was read as an entity.", False),
    "record-type-alias": ("A record used a variant tag (e.g. 'relation', 'Entity', 'node'); it was accepted.", False),
    "missing-type": ("An entity record had no type.", False),
    "missing-description": ("A record had no description.", False),
    "strength-repaired": ("A relationship strength had junk around it (e.g. '5>', '7\")', '8/10') and was repaired.", False),
    "strength-missing": ("A relationship had no strength field.", False),
    "strength-placeholder": ("The strength was a placeholder copied from the prompt (e.g. <relationship_strength>).", False),
    "strength-invalid": ("The strength was not a number; it was left empty.", False),
    "strength-out-of-range": ("The strength was a number outside 0-10; it was kept as written.", False),
    "content-keywords": ("A LightRAG content_keywords record was read (keywords are not kept in the graph).", False),
    "placeholder-value": ("A value was a placeholder copied from the prompt (e.g. <entity_name>); the record was dropped.", True),
    "too-few-fields": ("A record had too few fields to be read.", True),
    "empty-name": ("An entity or an endpoint of a relationship had an empty name.", True),
    "unknown-record": ("A delimited record whose kind could not be inferred.", True),
    "wrong-delimiter": ("A record written with another separator (commas, pipes) that could not be read.", True),
    "prose-record": ("An entity or relationship written as prose or markdown instead of a record.", True),
    # ---------------------------------------------------------------- claims
    "claim-fields": ("A claim did not have exactly eight fields; it was read as far as possible.", False),
    "claim-status-invalid": ("A claim status was not TRUE, FALSE or SUSPECTED.", False),
    "claim-date-invalid": ("A claim date was neither ISO 8601 nor NONE; it was kept as written.", False),
    "claim-empty": ("A claim had no subject; it was dropped.", True),
    # ---------------------------------------------------------------- JSON
    "json-repaired": ("Invalid JSON (trailing commas, single quotes, comments...) was repaired.", False),
    "json-truncated": ("The JSON was cut off; what could be recovered was kept.", False),
    "json-too-complex": ("Broken JSON nested over 100 levels deep or over 200,000 characters long was not repaired (it would take too long).", False),
    "json-invalid": ("No JSON value could be read from the answer.", True),
    "json-item-invalid": ("A JSON item was neither an entity nor a relationship (or lacked its names).", True),
    "json-multiple": ("More than one JSON value was found; they were merged.", False),
    # ---------------------------------------------------------------- triples
    "triple-parts": ("A triple had the wrong number of parts (not subject, predicate, object; or a call without two arguments), or a part holding commas was not quoted so the split is ambiguous.", True),
    "triple-part-empty": ("A triple's subject, predicate or object was empty.", True),
    "triple-recovered": ("A triple LlamaIndex's own parser would drop or split otherwise (commas or brackets inside a part, a part over 128 bytes, several triples on a line) was read as a person sees it.", False),
    "triple-split-by-spacing": ("A triple had more commas than parts; the commas written without a space after them (as in `rel(S,O)`) were taken as the separators, the others kept inside the parts.", False),
    "triple-split-at-first-comma": ("A call had more than two unquoted arguments; the first comma was taken as the separator and the others kept in the object (`deathPlace(John Adams, Quincy, Massachusetts)`), as Text2KGBench's parser reads it.", False),
    "note-paragraph": ("A 'Note:' (or 'Explanation:') paragraph beside the triples was ignored.", False),
    "no-triples": ("The answer says there is nothing to extract ('No triples found.'): a valid extraction that found nothing.", False),
    # ---------------------------------------------------------------- community reports
    "report-not-object": ("The report JSON is not an object.", True),
    "report-missing-field": ("A required report field (title, summary, rating, rating_explanation, findings) is missing.", False),
    "report-field-type": ("A report field has the wrong type (e.g. findings not a list).", False),
    "report-rating-invalid": ("The rating is not a number.", False),
    "report-rating-range": ("The rating is outside 0-10.", False),
    "report-findings-count": ("The report has fewer than 5 or more than 10 findings.", False),
    "report-finding-invalid": ("A finding lacks a summary or an explanation, or is not an object.", False),
    "report-extra-field": ("The report carries fields the schema does not define.", False),
    # ---------------------------------------------------------------- citations
    "citation-too-many-ids": ("A [Data: ...] reference lists more than five ids (with or without '+more' after them).", False),
    "citation-unknown-dataset": ("A [Data: ...] reference names a dataset outside the allowed list.", False),
    "citation-unknown-id": ("A cited id is absent from the context given to the model.", False),
    "citation-missing": ("A finding or point carries no [Data: ...] reference.", False),
    "citation-malformed": ("A [Data: ...] reference could not be read.", False),
    "citation-bad-id": ("A cited id is not a number (or a range / '+more').", False),
    # ---------------------------------------------------------------- query-phase outputs
    "query-invalid-json": ("A query-phase answer is not valid JSON (after repair).", False),
    "query-missing-field": ("A query-phase answer lacks a required field.", False),
    "query-field-type": ("A query-phase field has the wrong type.", False),
    "query-score-range": ("A score or rating is outside its allowed range.", False),
    "summary-too-long": ("A description summary exceeds its word limit.", False),
    "summary-missing-entity": ("A description summary does not name the entity it summarises.", False),
    "summary-empty": ("A description summary is empty.", False),
    # ---------------------------------------------------------------- description summaries (format `summary`)
    "summary-not-prose": ("A description summary answer is JSON or extraction records instead of prose.", False),
}


# The sections of FORMAT_CODES, as sets: each output format (harness.formats) lists the sections its
# reader may emit; citations and query-phase codes come from harness.checks.
WHOLE_OUTPUT_CODES: frozenset[str] = frozenset(
    {"empty-output", "empty-extraction", "refusal", "no-records", "internal-error", "think-block", "think-unclosed", "fence-stripped", "preamble", "closing-note", "interleaved-prose", "markdown-decoration", "delimiter-inferred", "newline-separated", "glued-records", "truncated"}
)
COMPLETION_CODES: frozenset[str] = frozenset(
    {"completion-missing", "completion-repeated", "completion-not-last", "completion-lowercase", "completion-malformed"}
)
RECORD_CODES: frozenset[str] = frozenset(
    {"record-closer", "value-quotes", "delimiter-in-description", "extra-field", "record-type-missing", "record-type-unknown", "record-type-alias", "missing-type", "missing-description", "strength-repaired", "strength-missing", "strength-placeholder", "strength-invalid", "strength-out-of-range", "content-keywords", "placeholder-value", "too-few-fields", "empty-name", "unknown-record", "wrong-delimiter", "prose-record"}
)
CLAIM_CODES: frozenset[str] = frozenset(
    {"claim-fields", "claim-status-invalid", "claim-date-invalid", "claim-empty"}
)
JSON_CODES: frozenset[str] = frozenset(
    {"json-repaired", "json-truncated", "json-too-complex", "json-invalid", "json-item-invalid", "json-multiple"}
)
TRIPLE_CODES: frozenset[str] = frozenset(
    {"triple-parts", "triple-part-empty", "triple-recovered", "triple-split-by-spacing", "triple-split-at-first-comma", "note-paragraph", "no-triples"}
)
REPORT_CODES: frozenset[str] = frozenset(
    {"report-not-object", "report-missing-field", "report-field-type", "report-rating-invalid", "report-rating-range", "report-findings-count", "report-finding-invalid", "report-extra-field"}
)
CITATION_CODES: frozenset[str] = frozenset(
    {"citation-too-many-ids", "citation-unknown-dataset", "citation-unknown-id", "citation-missing", "citation-malformed", "citation-bad-id"}
)
QUERY_CODES: frozenset[str] = frozenset(
    {"query-invalid-json", "query-missing-field", "query-field-type", "query-score-range", "summary-too-long", "summary-missing-entity", "summary-empty"}
)


# Codes that make an answer count as having format errors although no record was dropped (see
# harness.parsing.verdict, the one definition used by parse, result rows, reports and the gate).
ERROR_CODES: frozenset[str] = frozenset(
    {
        "empty-output", "refusal", "no-records", "internal-error", "truncated",
        "report-missing-field", "report-field-type", "report-rating-invalid", "report-rating-range",
        "report-findings-count", "report-finding-invalid", "summary-not-prose",
    }
)


def is_error(code: str) -> bool:
    """Whether an issue with this code makes the answer count as having format errors."""
    return FORMAT_CODES[code][1] or code in ERROR_CODES


def codes_markdown_table() -> str:
    """The table of docs/format-codes.md (a test keeps the file in sync with FORMAT_CODES)."""
    rows = ["| code | meaning | dropped | error |", "| --- | --- | --- | --- |"]
    for code, (meaning, dropped) in FORMAT_CODES.items():
        cell = meaning.replace("|", "&#124;").replace("<", "&lt;").replace(">", "&gt;")
        rows.append(f"| `{code}` | {cell} | {'yes' if dropped else 'no'} | {'yes' if is_error(code) else 'no'} |")
    return "\n".join(rows) + "\n"
