"""A variant's plans: scoring needs a `ScoringPlan` only, and one whose prompt is unknown says so."""

from __future__ import annotations

from pathlib import Path

from harness.run.evaluation import evaluate_case
from harness.run.plan import ScoringPlan, VariantPlan, plan_variant
from harness.suites import load_suite

REPO = Path(__file__).resolve().parents[2]


def _scoring_fields(plan: VariantPlan) -> dict:
    import dataclasses

    return {f.name: getattr(plan, f.name) for f in dataclasses.fields(ScoringPlan) if f.init}


def test_a_scoring_plan_scores_as_the_variant_plan_it_was_cut_from() -> None:
    suite = load_suite(REPO / "suites" / "podcast.yaml")
    name = suite.variant_names()[0]
    full = plan_variant(suite, name)
    scoring = ScoringPlan(**_scoring_fields(full))
    assert not hasattr(scoring, "endpoint") and not hasattr(scoring, "render")
    case = suite.cases[0]
    rounds = []  # no answer: both read nothing, and must agree on everything else
    a = evaluate_case(suite, full, case, rounds, "digest")
    b = evaluate_case(suite, scoring, case, rounds, "digest")
    assert a.model_dump_json() == b.model_dump_json()


def test_an_unknown_prompt_has_no_example_text_and_holds_no_chunk() -> None:
    suite = load_suite(REPO / "suites" / "podcast.yaml")
    full = plan_variant(suite, suite.variant_names()[0])
    case = suite.cases[0]
    unknown = ScoringPlan(**{**_scoring_fields(full), "prompt_known": False})
    assert full.examples_text(case) is not None
    assert unknown.examples_text(case) is None
    assert unknown.prompt_contains_chunk(case) is False


def test_a_plan_fingerprints_the_prompt_it_sends_and_an_unknown_prompt_has_none() -> None:
    import dataclasses

    suite = load_suite(REPO / "suites" / "podcast.yaml")
    default, tuned = (plan_variant(suite, name) for name in ("default", "tuned"))
    assert default.fingerprint() == plan_variant(suite, "default").fingerprint()
    assert default.fingerprint() != tuned.fingerprint()
    # what fills the prompt whatever the case is part of it: other entity types, another prompt
    retyped = dataclasses.replace(default, entity_types=[*default.entity_types, "vehicle"])
    assert retyped.fingerprint() != default.fingerprint()
    scoring = ScoringPlan(**{**_scoring_fields(default), "prompt_known": False})
    assert scoring.fingerprint() is None
