"""A claims extraction against its case (docs/scoring.md, "Claims").

GraphRAG's claims prompt (graphrag/prompts/index/extract_claims.py, v0.x to v3.x) asks for
records of eight fields, (subject, object, type, status, start date, end date, description,
source text), status TRUE, FALSE or SUSPECTED, dates in ISO-8601 or NONE, and subjects among the
"entity specification", which is either a list of entity names or a list of entity types
(GraphRAG fills it from `extract_claims.entity_types`, default organization, person, geo, event).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.model import Claim, ClaimsScore, ExtractedGraph, GoldCase, GoldClaim, MatchingConfig
from harness.scoring.normalize import normalize_name, normalize_predicate

STATUSES = frozenset({"TRUE", "FALSE", "SUSPECTED"})
# ISO-8601 date or date-time, as GraphRAG's example writes it (2022-01-10T00:00:00)
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
# Entity types as GraphRAG and the harness's suites name them; a spec list made only of these
# (any case) or only of lowercase words is a list of types
TYPE_WORDS = frozenset(
    {"organization", "organisation", "person", "geo", "location", "event", "product", "technology",
     "company", "place", "concept", "category", "role"}
)
_NO_OBJECT = frozenset({"", "none"})


def specs_are_types(specs: Sequence[str]) -> bool:
    """True when the entity specs read as entity types (every spec a known type word or written
    all in lowercase), False when they read as entity names; an empty list counts as types."""
    return all(s.strip().casefold() in TYPE_WORDS or s.strip() == s.strip().lower() for s in specs)


def score_claims(case: GoldCase, graph: ExtractedGraph, matching: MatchingConfig) -> ClaimsScore:
    """The claims figures of one case; `matching.fuzzy_threshold` is how alike two names must be
    for a gold claim's subject or object to match (`claim_matches`)."""
    claims = graph.claims
    specs = {normalize_name(s) for s in case.entity_specs if s.strip()}
    in_specs = None if specs_are_types(case.entity_specs) else sum(normalize_name(c.subject) in specs for c in claims)
    return ClaimsScore(
        claims=len(claims),
        well_formed=sum(_well_formed(c) for c in claims),
        bad_status=sum(c.status.strip().upper() not in STATUSES for c in claims),
        bad_dates=sum(not (_date_ok(c.start_date) and _date_ok(c.end_date)) for c in claims),
        subjects_in_specs=in_specs,
        gold_claims=len(case.claims),
        gold_claims_found=gold_claims_found(case.claims, claims, matching.fuzzy_threshold),
    )


def _well_formed(claim: Claim) -> bool:
    """All eight fields present. The reader pads a short record with empty fields at the end, so
    a record with fewer than eight fields has an empty source text; NONE dates read as None."""
    return all(
        v.strip() for v in (claim.subject, claim.object, claim.type, claim.status, claim.description, claim.source_text)
    )


def _date_ok(value: str | None) -> bool:
    """None is NONE (the reader also reads NULL, N/A and UNKNOWN as None)."""
    return value is None or bool(ISO_DATE.match(value.strip()))


def claim_matches(gold: GoldClaim, claim: Claim, threshold: float = 1.0) -> bool:
    """Subject and object the same name (`same_name`; a gold object "" or NONE wants NONE or
    nothing), the type equal after predicate normalisation when the gold gives one, the status
    equal when the gold gives one."""
    if not same_name(normalize_name(gold.subject), normalize_name(claim.subject), threshold):
        return False
    gold_object, object_ = _object(gold.object), _object(claim.object)
    if (gold_object == "") != (object_ == "") or not same_name(gold_object, object_, threshold):
        return False
    if gold.type.strip() and normalize_predicate(gold.type) != normalize_predicate(claim.type):
        return False
    return not gold.status.strip() or gold.status.strip().upper() == claim.status.strip().upper()


def _object(name: str) -> str:
    key = normalize_name(name) if name.strip() else ""
    return "" if key in _NO_OBJECT else key


def same_name(a: str, b: str, threshold: float) -> bool:
    """Two normalised names are the same when equal, or when their similarity (rapidfuzz's
    `fuzz.ratio` / 100, as entity alignment uses) reaches the suite's fuzzy threshold."""
    if a == b:
        return True
    from rapidfuzz import fuzz

    return fuzz.ratio(a, b) / 100 >= threshold


def gold_claims_found(gold: Sequence[GoldClaim], claims: Sequence[Claim], threshold: float = 1.0) -> int:
    """Gold claims matched one to one, in gold order, each by the first unused claim that matches."""
    used: set[int] = set()
    found = 0
    for g in gold:
        for k, claim in enumerate(claims):
            if k not in used and claim_matches(g, claim, threshold):
                used.add(k)
                found += 1
                break
    return found
