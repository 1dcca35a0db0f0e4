"""score_claims: GraphRAG claim records against their case, numbers worked by hand.

The worked example is the one in docs/scoring.md, "Claims".
"""

from __future__ import annotations

import pytest

from harness.model import Claim, ExtractedGraph, GoldCase, GoldClaim, MatchingConfig
from harness.formats.answer import parse
from harness.scoring.claims_score import claim_matches, score_claims, specs_are_types

ANSWER = """(PENNANT MOBILE<|>DIGITAL MARKETS COMMISSION OF ESTRAVA<|>ANTI-COMPETITIVE PRACTICES<|>TRUE<|>2024-03-01T00:00:00<|>2024-03-01T00:00:00<|>Pennant was fined for blocking rival payment systems<|>The Digital Markets Commission of Estrava has fined Pennant Mobile)
##
(PENNANT MOBILE<|>NONE<|>APPEAL<|>SUSPECTED<|>NONE<|>NONE<|>Pennant says it will appeal<|>the company will appeal to the High Court of Estrava)
##
(FOXGLOVE GAMES<|>PENNANT MOBILE<|>COMPLAINT<|>true<|>three years ago<|>NONE<|>Foxglove complained)
##
(AUGUSTIN REYLAND<|>NONE<|>SECURITY CLAIM<|>MAYBE<|>2024<|>2024-03-01<|>Reyland says users' security is at risk<|>the ruling puts users' security at risk)
<|COMPLETE|>"""

GOLD = [
    GoldClaim(subject="Pennant Mobile", object="Digital Markets Commission of Estrava", type="anti competitive practices", status="TRUE"),
    GoldClaim(subject="Pennant Mobile", object="NONE", type="appeal"),
    GoldClaim(subject="Ferrovia Pay", object="Pennant Mobile", type="complaint"),
]


def claims_of(text: str) -> ExtractedGraph:
    return parse(text, "claims").graph


def test_parser_reads_all_eight_fields() -> None:
    first = claims_of(ANSWER).claims[0]
    assert (first.subject, first.object, first.type, first.status) == (
        "PENNANT MOBILE", "DIGITAL MARKETS COMMISSION OF ESTRAVA", "ANTI-COMPETITIVE PRACTICES", "TRUE")
    assert first.start_date == first.end_date == "2024-03-01T00:00:00"
    assert first.description.startswith("Pennant was fined") and first.source_text.startswith("The Digital")
    second = claims_of(ANSWER).claims[1]
    assert second.start_date is None and second.end_date is None  # NONE


def test_worked_example() -> None:
    case = GoldCase(id="c", text="...", entity_specs=["Pennant Mobile", "Foxglove Games"], claims=GOLD)
    s = score_claims(case, claims_of(ANSWER), MatchingConfig())
    assert s.claims == 4
    # claim 3 has seven fields (no source text): 3 of 4 well formed
    assert s.well_formed == 3
    # "true" is read as TRUE (upper-cased); MAYBE is not a status -> 1
    assert s.bad_status == 1
    # claim 3 starts "three years ago", claim 4 starts "2024" (a year alone is not the format) -> 2
    assert s.bad_dates == 2
    # subjects PENNANT MOBILE x2 and FOXGLOVE GAMES are specs; AUGUSTIN REYLAND is not -> 3
    assert s.subjects_in_specs == 3
    # gold 1 matches claim 1 (type "anti competitive practices" == "ANTI-COMPETITIVE PRACTICES",
    # status TRUE); gold 2 matches claim 2 (object NONE, any status); gold 3 (Ferrovia Pay) none
    assert (s.gold_claims, s.gold_claims_found) == (3, 2)


def test_type_specs_leave_subjects_unchecked() -> None:
    case = GoldCase(id="c", text="...", entity_specs=["organization", "person"])
    s = score_claims(case, claims_of(ANSWER), MatchingConfig())
    assert s.subjects_in_specs is None  # n/a, not a pass: a subject cannot be checked against a type
    assert score_claims(GoldCase(id="c", text="..."), claims_of(ANSWER), MatchingConfig()).subjects_in_specs is None


@pytest.mark.parametrize(("specs", "types"), [
    (["organization", "person", "geo", "event"], True),
    (["Organization", "PERSON"], True),
    (["supply chain"], True),  # lowercase: read as a type
    (["PENNANT MOBILE"], False),
    (["Pennant Mobile", "organization"], False),
    ([], True),
])
def test_specs_are_types(specs: list[str], types: bool) -> None:
    assert specs_are_types(specs) is types


def test_gold_status_and_object_rules() -> None:
    claim = Claim(subject="Pennant", object="NONE", type="APPEAL", status="SUSPECTED")
    assert claim_matches(GoldClaim(subject="pennant", object="", type="appeal"), claim)
    assert not claim_matches(GoldClaim(subject="pennant", object="", status="TRUE"), claim)
    assert not claim_matches(GoldClaim(subject="pennant", object="High Court"), claim)  # gold wants an object
    assert claim_matches(GoldClaim(subject="pennant"), claim)  # no type, no status: any


def test_gold_matched_one_to_one_and_fuzzy_by_threshold() -> None:
    one = [Claim(subject="Pennant Mobil", object="NONE", type="APPEAL", status="TRUE")]
    gold = [GoldClaim(subject="Pennant Mobile", type="appeal"), GoldClaim(subject="Pennant Mobile", type="appeal")]
    case = GoldCase(id="c", text="...", claims=gold)
    # ratio("pennant mobil", "pennant mobile") = 2*13/27 = 0.963: a match at 0.9, not at 0.99
    assert score_claims(case, ExtractedGraph(claims=one), MatchingConfig(fuzzy_threshold=0.9)).gold_claims_found == 1
    assert score_claims(case, ExtractedGraph(claims=one), MatchingConfig(fuzzy_threshold=0.99)).gold_claims_found == 0


def test_no_claims() -> None:
    s = score_claims(GoldCase(id="c", text="...", entity_specs=["Pennant Mobile"]), ExtractedGraph(), MatchingConfig())
    assert (s.claims, s.well_formed, s.bad_status, s.bad_dates, s.subjects_in_specs) == (0, 0, 0, 0, 0)
