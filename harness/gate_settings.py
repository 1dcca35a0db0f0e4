"""A suite's `thresholds:` and `regression:` blocks: what the gate holds a run to.

Values, not suite loading: the run's summary stores them (`artifacts.GateConfig`), and the
gate reads them from there, so reading a summary needs only these models and the metric
declarations, never the suite loader and everything it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import AliasChoices, Field, create_model, field_validator

from .metrics import metric_names
from .metrics.registry import Metric, canonical, thresholded
from .model import Value

Share = Field(None, ge=0.0, le=1.0, allow_inf_nan=False)  # a threshold: a share between 0 and 1


def _metric_threshold(metric: Metric) -> tuple[object, object]:
    """The `thresholds:` field of a metric, validated by its kind: a rate's limit is a share in
    0..1, a count's a number >= 0; its aliases are accepted as keys (and dumped under its name)."""
    names = AliasChoices(metric.name, *metric.aliases) if metric.aliases else None
    if metric.is_count:
        return (int | float | None, Field(None, ge=0, allow_inf_nan=False, validation_alias=names))
    return (float | None, Field(None, ge=0.0, le=1.0, allow_inf_nan=False, validation_alias=names))


# `thresholds:`: one limit per thresholded metric of the registry (in headline order; a share for
# a rate, a number for a count), then the format thresholds, then per-variant overrides of the same keys
if TYPE_CHECKING:
    class Thresholds(Value):
        """What the type checker knows of the model built below from the metric registry: the
        metrics' limits are read by name."""

        format_errors: float | None = None
        completion_rate: float | None = None
        max_cost_per_1k_chunks: float | None = None
        p95_latency_s: float | None = None
        variants: dict[str, Thresholds] = {}
else:
    Thresholds = create_model(
        "Thresholds",
        __base__=Value,
        **{metric.name: _metric_threshold(metric) for metric in thresholded()},
        format_errors=(float | None, Share),  # highest tolerated share of cases with a format error
        completion_rate=(float | None, Share),  # lowest tolerated share of answers ending with the delimiter
        # highest tolerated dollars per 1,000 chunks, and p95 latency per chunk in seconds (harness/cost_latency.py)
        max_cost_per_1k_chunks=(float | None, Field(None, ge=0, allow_inf_nan=False)),
        p95_latency_s=(float | None, Field(None, ge=0, allow_inf_nan=False)),
        variants=(dict[str, "Thresholds"], Field(default_factory=dict)),
    )
    Thresholds.model_rebuild(_types_namespace={"Thresholds": Thresholds})


class Regression(Value):
    max_drop: float = Field(0.05, ge=0.0, le=1.0, allow_inf_nan=False)
    case_max_drop: float = Field(0.20, ge=0.0, le=1.0, allow_inf_nan=False)
    # None: what the run measures (`gate.regression_metrics`): the key figures when some case has
    # gold, the compact reference-free set (grounded, types ok, duplicates, dangling, leaks) when none has
    metrics: list[str] | None = None
    # how much dollars per 1,000 chunks and p95 latency per chunk may rise over the baseline's, as a
    # share (0.10: by 10%); None: not watched. A side without the figure fails (n/a is no pass)
    max_cost_rise: float | None = Field(None, ge=0.0, allow_inf_nan=False)
    max_p95_latency_rise: float | None = Field(None, ge=0.0, allow_inf_nan=False)

    @field_validator("metrics")
    @classmethod
    def _known_metrics(cls, value: list[str] | None) -> list[str] | None:
        """Registered names only; an alias (`grounded_rate`) is normalised to its metric's name."""
        if value is None:
            return None
        names = [canonical(name) for name in value]
        for name, given in zip(names, value):
            if name not in metric_names():
                raise ValueError(f"'{given}' is not a metric (one of {', '.join(metric_names())})")
        return list(dict.fromkeys(names))
