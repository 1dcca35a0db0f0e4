"""`extract_claims`: GraphRAG's claims (covariates) extraction; its figures are a `ClaimsScore`
(harness/scoring/claims_score.py) under `claims`."""

from __future__ import annotations

from ..model import CaseScore, ClaimsScore, GoldCase
from ..scoring.claims_score import score_claims
from .spec import KindSpec, Plan, ScoreInput

# GraphRAG's default claim description (config/defaults.py, 2.x and 3.x)
DEFAULT_CLAIM_DESCRIPTION = "Any claims or facts that could be relevant to information discovery."


def _variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    specs = case.entity_specs or plan.entity_types
    given = {"claim_description": case.claim_description} if case.claim_description else {}
    return {"input_text": case.text, "entity_types": ",".join(specs),
            "entity_specs": str(list(specs)),  # GraphRAG formats the list itself into the prompt
            **given, **plan.delimiters.as_variables(), "language": plan.language}


def _score(given: ScoreInput, base: CaseScore) -> CaseScore:
    return base.with_figures("claims", score_claims(given.case, given.graph, given.matching))


SPEC = KindSpec(
    "extract_claims", needs_source=True, inputs=("entity_specs", "claim_description"), gold=("claims",),
    variables=_variables, engine_defaults={"claim_description": DEFAULT_CLAIM_DESCRIPTION},
    answer_format="claims", gleans=True, score=_score, prompt_kinds=("graphrag.extract_claims",),
    score_key="claims", score_model=ClaimsScore,
)
