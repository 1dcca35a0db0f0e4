"""Claims metrics (`CaseScore.figures["claims"]`, harness/scoring/claims_score.py): the eight fields, the
status and date formats, subjects among the entity specs where the specs are names, and gold
claim recall where the case gives gold claims (docs/scoring.md, "Claims"). A case of another suite
kind has None there and pools nothing: n/a outside claims suites, rows left out of their tables.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import CaseScore, ClaimsScore
from .ratios import ratio_or_none
from .kind_figures import figure, ratio
from .registry import Count, Metric, register, register_count

KIND = "extract_claims"
# The columns a claims suite's console table shows (its key figures)
KEY_FIGURES: tuple[str, ...] = ("claims_well_formed", "claim_status_valid", "claim_dates_valid", "claim_recall")


def _cl(read: Callable[[ClaimsScore], int | None]) -> Callable[[CaseScore], int | None]:
    return figure("claims", read)


def _spec_claims(c: ClaimsScore) -> int | None:
    return None if c.subjects_in_specs is None else c.claims


def _gold(read: Callable[[ClaimsScore], int]) -> Callable[[ClaimsScore], int | None]:
    return lambda c: read(c) if c.gold_claims else None


_COUNTS: tuple[tuple[str, Callable[[ClaimsScore], int | None]], ...] = (
    ("claim_records", lambda c: c.claims),
    ("claims_well_formed", lambda c: c.well_formed),
    ("claims_status_ok", lambda c: c.claims - c.bad_status),
    ("claims_dates_ok", lambda c: c.claims - c.bad_dates),
    ("claims_spec_checked", _spec_claims),
    ("claims_subject_in_specs", lambda c: c.subjects_in_specs),
    ("claim_gold", _gold(lambda c: c.gold_claims)),
    ("claim_gold_found", _gold(lambda c: c.gold_claims_found)),
)
for _name, _read in _COUNTS:
    register_count(Count(_name, _cl(_read), None))


def _per_case(num: Callable[[ClaimsScore], int | None], den: Callable[[ClaimsScore], int | None]) -> Callable[[CaseScore], float | None]:
    return ratio("claims", num, den)


for _name, _label, _phrase, _num, _den, _n, _d, _short in (
    ("claims_well_formed", "Claims well formed", "claims with eight fields", "claims_well_formed", "claim_records",
     lambda c: c.well_formed, lambda c: c.claims, "8 fields"),
    ("claim_status_valid", "Claim status valid", "claim status validity", "claims_status_ok", "claim_records",
     lambda c: c.claims - c.bad_status, lambda c: c.claims, "status ok"),
    ("claim_dates_valid", "Claim dates valid", "claim date validity", "claims_dates_ok", "claim_records",
     lambda c: c.claims - c.bad_dates, lambda c: c.claims, "dates ok"),
    ("claim_subjects_in_specs", "Subjects in specs", "claim subjects among the entity specs",
     "claims_subject_in_specs", "claims_spec_checked", lambda c: c.subjects_in_specs, _spec_claims, "in specs"),
    ("claim_recall", "Claim recall", "claim recall", "claim_gold_found", "claim_gold",
     _gold(lambda c: c.gold_claims_found), _gold(lambda c: c.gold_claims), "claim R"),
):
    register(Metric(
        _name, _label, _phrase, value=_per_case(_n, _d),
        micro=(lambda num, den: lambda c: ratio_or_none(c[num], c[den]))(_num, _den), pools=(_num, _den),
        gold=None, threshold=">=", report_rank=50, only_where_defined=True, short_label=_short,
        suite_kind=KIND, key_figure=_name in KEY_FIGURES,
    ))

register(Metric(
    "claims_extracted", "Claims extracted", "claims extracted",
    value=_cl(lambda c: c.claims), micro=lambda c: c.total("claim_records"), pools=("claim_records",),
    gold=None, threshold=">=", report_rank=51, only_where_defined=True, kind="count", short_label="claims",
    suite_kind=KIND,
))
