"""What a cost stands on: a price and counted tokens; without either it is n/a, never $0."""

from __future__ import annotations

from harness.llm.pricing import DEFAULT_PRICES, estimate_cost
from harness.model import Usage


def test_no_token_counted_is_no_cost_known() -> None:
    # answers another pipeline wrote (harness evaluate) come with no usage: $0.0000 was printed
    assert not Usage().counted
    assert estimate_cost(Usage(), "gpt-4o-mini", DEFAULT_PRICES) is None
    counted = Usage(prompt_tokens=1_000_000, completion_tokens=0, total_tokens=1_000_000)
    assert counted.counted and estimate_cost(counted, "gpt-4o-mini", DEFAULT_PRICES) == DEFAULT_PRICES["gpt-4o-mini"].input
    assert estimate_cost(counted, "no-such-model-priced", DEFAULT_PRICES) is None
