"""The suite's `judge:` block, without its model (suites.JudgeSpec adds the suite's model block)."""

from __future__ import annotations

from pydantic import Field

from ..model import Value

DEFAULT_MAX_CANDIDATES = 5
DEFAULT_MAX_QUESTIONS = 40
# the run folder's file of pairwise verdicts (judges.pairwise), beside results.jsonl
PAIRWISE_FILE = "judge-pairwise.json"


class PairwiseOptions(Value):
    """(d) Which two variants' answers the judge compares, per case, in both orders, `repeat` times."""

    a: str
    b: str
    repeat: int = Field(1, ge=1, le=20)
    prompt: str | None = None  # a YAML prompt with {input_text}, {first} and {second}; None: the shipped one


class JudgeOptions(Value):
    # a YAML prompt of kind `harness.judge_match` (relative to the suite); None: the shipped one
    prompt: str | None = None
    # (a) semantic matching of predicted to gold entities and relationships after exact/alias/fuzzy
    match: bool = True
    # (b) faithfulness of each extracted entity and relationship description to its chunk
    faithfulness: bool = False
    # (c) summary facts kept and added (summarize_descriptions) and report findings supported by
    # the context (community_report), judged where the stem share is unsure (judges/facts.py)
    facts: bool = False
    # (b) and (c)'s prompt: a YAML prompt of kind `harness.judge_support`; None: builtin:harness/judge_support
    support_prompt: str | None = None
    # open predicted items asked about per open gold item, and questions per case at most
    max_candidates: int = Field(DEFAULT_MAX_CANDIDATES, ge=1, le=50)
    max_questions: int = Field(DEFAULT_MAX_QUESTIONS, ge=1, le=1000)
    # the gate fails a judged figure whose judge agrees with reviewers below this Cohen's kappa
    min_kappa: float | None = Field(None, ge=-1.0, le=1.0, allow_inf_nan=False)
    # (d) pairwise preference between two variants' answers (docs/judges.md); None: not asked
    pairwise: PairwiseOptions | None = None
