"""Estimated cost from token usage, from a price table users can extend.

Prices are USD per million tokens (input, output), list prices as published by the
providers when this table was written; they are estimates, not invoices. Extend or
override them in `prices.yaml` at the project root, or a file named by HARNESS_PRICES:

    gpt-4o-mini: {input: 0.15, output: 0.60}
    my-vllm-model: {input: 0, output: 0}
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from ..errors import InputError
from ..model import Usage
from ..yamlfile import load_yaml

DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "o3-mini": (1.10, 4.40),
}


def load_prices(root: Path | None = None) -> dict[str, tuple[float, float]]:
    prices = dict(DEFAULT_PRICES)
    candidates = [Path(p) for p in [os.environ.get("HARNESS_PRICES")] if p]
    if root is not None:
        candidates.append(root / "prices.yaml")
    for path in candidates:
        if not path.exists():
            continue
        data = load_yaml(path)[0] or {}  # the bounded loader every user YAML file goes through
        if not isinstance(data, dict):
            raise InputError(f"{path}: expected a mapping of model -> {{input, output}}")
        for model, entry in data.items():
            if not isinstance(entry, dict) or not {"input", "output"} <= set(entry):
                raise InputError(f"{path}: {model}: give `input` and `output` prices per million tokens")
            try:
                prices[str(model)] = (float(entry["input"]), float(entry["output"]))
            except (TypeError, ValueError):
                raise InputError(f"{path}: {model}: prices must be numbers") from None
    return prices


def price_for(model: str, prices: dict[str, tuple[float, float]]) -> tuple[float, float] | None:
    """Exact name first, then the longest known prefix (dated snapshots: gpt-4o-2024-08-06)."""
    if model in prices:
        return prices[model]
    matches = [name for name in prices if model.startswith(name)]
    return prices[max(matches, key=len)] if matches else None


def estimate_cost(usage: Usage, model: str, prices: dict[str, tuple[float, float]]) -> float | None:
    """USD for `usage`, or None when the model has no price, no token was counted (no usage
    known: `harness evaluate` scores answers whose calls it never saw) or the counts give no
    finite cost (token counts too large for a float: a results file from a broken endpoint)."""
    price = price_for(model, prices)
    if price is None or not usage.counted:
        return None
    try:
        cost = (usage.prompt_tokens * price[0] + usage.completion_tokens * price[1]) / 1_000_000
    except OverflowError:
        return None
    return round(cost, 6) if math.isfinite(cost) else None
