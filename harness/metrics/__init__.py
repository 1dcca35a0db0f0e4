"""Metrics: the registry (`registry.py`) and one module per family, which registers on import.

Adding a metric: declare it in a family module (or a new one imported below), then document it
in docs/scoring.md. Registration order is the key order of summary.json.
"""

from __future__ import annotations

# importing a family registers it; this order is the order of summary.json (keep it)
from . import entities  # noqa: F401  isort: skip
from . import relationships  # noqa: F401  isort: skip
from . import typed_relationships  # noqa: F401  isort: skip
from . import grounding  # noqa: F401  isort: skip
from . import reference_free  # noqa: F401  isort: skip
from . import ontology  # noqa: F401  isort: skip
from . import summaries  # noqa: F401  isort: skip
from . import reports  # noqa: F401  isort: skip
from . import claims  # noqa: F401  isort: skip
from . import map_points  # noqa: F401  isort: skip
from . import judged  # noqa: F401  isort: skip
from .registry import Count, Metric, counts, get, gold_kind, metric_names, metrics, phrase

__all__ = ["Count", "Metric", "counts", "get", "gold_kind", "metric_names", "metrics", "phrase"]
