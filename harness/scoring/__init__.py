"""Scoring: name normalisation, entity alignment, per-case metrics, suite aggregates, graph statistics.

Pure functions over values from `harness.model`; see docs/scoring.md for every convention.
"""

from __future__ import annotations

from .aggregate import aggregate, micro_metrics
from .case_metrics import measure, measured, scored_metrics
from .align import Match, align
from .graph_stats import graph_stats, union_graph
from .case_score import CaseDetail, explain_case, score_case
from .normalize import canonical_type, normalize_name, normalize_text, normalize_type, type_table
from .reference_free import REFERENCE_FREE_KEYS, reference_free, reference_free_to_json
from .score_json import rate_text, score_to_json

__all__ = [
    "CaseDetail",
    "REFERENCE_FREE_KEYS",
    "Match",
    "aggregate",
    "align",
    "canonical_type",
    "explain_case",
    "graph_stats",
    "measure",
    "measured",
    "micro_metrics",
    "normalize_name",
    "normalize_text",
    "normalize_type",
    "rate_text",
    "reference_free",
    "reference_free_to_json",
    "score_case",
    "score_to_json",
    "scored_metrics",
    "type_table",
    "union_graph",
]
