"""`extract_graph`: entity and relationship extraction from a chunk (the default suite kind).
Its figures are the entity/relationship scores and, without gold, the reference-free ones the
runner adds (`extraction_figures`). A case may give its own worked example (`example:`, the
prompt's `{example}`), as Text2KGBench chooses one per test sentence."""

from __future__ import annotations

from ..model import CaseScore, GoldCase
from .spec import KindSpec, Plan, ScoreInput


def _variables(plan: Plan, case: GoldCase) -> dict[str, str]:
    given = {"example": case.example} if case.example is not None else {}  # else the template's own
    return {"input_text": case.text, "entity_types": ",".join(plan.entity_types), **plan.delimiters.as_variables(),
            "language": plan.language, **given}


def _score(given: ScoreInput, base: CaseScore) -> CaseScore:
    return base  # the entity/relationship figures are the kind's; reference-free ones are added by the runner


SPEC = KindSpec(
    "extract_graph", needs_source=True, inputs=("example",), gold=("entities", "relationships", "annotated"),
    variables=_variables, engine_defaults={}, answer_format=None, gleans=True, score=_score,
    extraction_figures=True, builds_graph=True,
    prompt_kinds=("graphrag.extract_graph", "graphrag.extract_graph_untyped", "graphrag.extract_graph_json",
                  "lightrag.entity_extraction", "llamaindex.kg_triplet_extract", "llamaindex.dynamic_extract"),
)
