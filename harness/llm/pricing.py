"""Estimated cost from token usage, from a dated price table users can extend or override.

Prices are USD per million tokens, list prices as the provider published them on the date the
table states (`PRICES_AS_OF` for the built-in table); they are estimates, not invoices. An entry
gives `input` and `output`, and may give `cached_input` (prompt tokens the endpoint read from its
cache), `batch_input` and `batch_output` (calls answered by the Batch API, `harness record
--batch`) and `as_of` (the date its prices were read). Later sources override earlier ones, per
model: the built-in table, the file named by HARNESS_PRICES, `prices.yaml` at the project root,
then the suite's own `prices:` block:

    gpt-4o-mini: {input: 0.15, output: 0.60, cached_input: 0.075, as_of: 2025-04-14}
    my-vllm-model: {input: 0, output: 0}

An entry without `cached_input` bills cached tokens as input; one without batch prices bills a
batch call at the list prices (what it would cost at most).
"""

from __future__ import annotations

import datetime as dt
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from ..errors import InputError
from ..model import Usage, Value
from ..yamlfile import load_yaml

# When the built-in prices were read from OpenAI's pricing page (the gpt-4.1 release day). A run's
# summary names the date of each price it used, so an old table shows as old.
PRICES_AS_OF = "2025-04-14"
BUILT_IN = "built-in"

PerMillion = Field(ge=0, allow_inf_nan=False)


class Price(Value):
    """One model's prices, USD per million tokens, and where and when they were read."""

    input: float = PerMillion
    output: float = PerMillion
    cached_input: float | None = Field(None, ge=0, allow_inf_nan=False)
    batch_input: float | None = Field(None, ge=0, allow_inf_nan=False)
    batch_output: float | None = Field(None, ge=0, allow_inf_nan=False)
    as_of: str | None = None  # the date the prices were read (YYYY-MM-DD); None: not said
    source: str = ""  # which table gave it: built-in, a file's path, or "suite" (filled when loaded)

    @field_validator("as_of", mode="before")
    @classmethod
    def _date(cls, value: Any) -> str | None:
        if value is None:
            return None
        if isinstance(value, dt.date):  # YAML reads an unquoted 2025-04-14 as a date
            return value.isoformat()
        try:
            return dt.date.fromisoformat(str(value)).isoformat()
        except ValueError:
            raise ValueError("as_of is a date, YYYY-MM-DD") from None


def _built_in(input: float, output: float, cached: float | None) -> Price:
    """An OpenAI list price: the Batch API bills half of each (OpenAI's published batch discount)."""
    return Price(input=input, output=output, cached_input=cached, batch_input=input / 2, batch_output=output / 2,
                 as_of=PRICES_AS_OF, source=BUILT_IN)


DEFAULT_PRICES: dict[str, Price] = {
    "gpt-4o": _built_in(2.50, 10.00, 1.25),
    "gpt-4o-mini": _built_in(0.15, 0.60, 0.075),
    "gpt-4.1": _built_in(2.00, 8.00, 0.50),
    "gpt-4.1-mini": _built_in(0.40, 1.60, 0.10),
    "gpt-4.1-nano": _built_in(0.10, 0.40, 0.025),
    "gpt-4-turbo": _built_in(10.00, 30.00, None),
    "gpt-3.5-turbo": _built_in(0.50, 1.50, None),
    "o3-mini": _built_in(1.10, 4.40, 0.55),
}


def read_price(entry: Any, *, place: str, source: str) -> Price:
    """One entry of a price table, or one line naming `place` and the problem."""
    if not isinstance(entry, dict) or not {"input", "output"} <= set(entry):
        raise InputError(f"{place}: give `input` and `output` prices per million tokens")
    try:
        return Price.model_validate({**entry, "source": source})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        if error["type"] in {"float_parsing", "float_type"}:
            raise InputError(f"{place}: {where}: prices must be numbers") from None
        if error["type"] == "extra_forbidden":
            raise InputError(f"{place}: {where}: not a price field (input, output, cached_input, batch_input, "
                             "batch_output, as_of)") from None
        problem = str(error.get("ctx", {}).get("error", "")) or error["msg"]
        raise InputError(f"{place}: {where}: {problem}") from None


def load_prices(root: Path | None = None, overrides: Mapping[str, Price] | None = None) -> dict[str, Price]:
    """The built-in table, then HARNESS_PRICES, `prices.yaml` at `root`, then `overrides` (a
    suite's `prices:`), each entry replacing the model's earlier one."""
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
            prices[str(model)] = read_price(entry, place=f"{path}: {model}", source=str(path))
    prices.update(overrides or {})
    return prices


def price_for(model: str, prices: Mapping[str, Price]) -> Price | None:
    """Exact name first, then the longest known prefix (dated snapshots: gpt-4o-2024-08-06)."""
    if model in prices:
        return prices[model]
    matches = [name for name in prices if model.startswith(name)]
    return prices[max(matches, key=len)] if matches else None


def call_cost(usage: Usage, price: Price, *, batch: bool = False) -> float:
    """USD of one call's tokens (or of calls alike in `batch`): cached prompt tokens at the cached
    price, a batch call at the batch prices. Raises OverflowError for counts no float holds."""
    if batch:
        return (usage.prompt_tokens * (price.batch_input if price.batch_input is not None else price.input)
                + usage.completion_tokens * (price.batch_output if price.batch_output is not None else price.output)
                ) / 1_000_000
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    cached_price = price.cached_input if price.cached_input is not None else price.input
    return ((usage.prompt_tokens - cached) * price.input + cached * cached_price
            + usage.completion_tokens * price.output) / 1_000_000


def calls_cost(calls: Iterable[tuple[Usage, bool]], model: str, prices: Mapping[str, Price],
               digits: int | None = 6) -> float | None:
    """USD of calls given as (usage, answered by a batch), or None when the model has no price, no
    token was counted (no usage known: `harness evaluate` scores answers whose calls it never saw)
    or the counts give no finite cost (token counts too large for a float: a broken endpoint)."""
    price = price_for(model, prices)
    calls = list(calls)
    if price is None or not any(usage.counted for usage, _ in calls):
        return None
    try:
        cost = sum(call_cost(usage, price, batch=batch) for usage, batch in calls)
    except OverflowError:
        return None
    if not math.isfinite(cost):
        return None
    return round(cost, digits) if digits is not None else cost


def estimate_cost(usage: Usage, model: str, prices: Mapping[str, Price]) -> float | None:
    """USD for `usage` at list prices (None as `calls_cost` says)."""
    return calls_cost([(usage, False)], model, prices)
