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


from pathlib import Path

import pytest

from harness.errors import InputError
from harness.llm.pricing import PRICES_AS_OF, Price, calls_cost, load_prices, price_for


def test_the_built_in_table_is_dated_and_says_where_it_comes_from() -> None:
    price = DEFAULT_PRICES["gpt-4o-mini"]
    assert price.as_of == PRICES_AS_OF and price.source == "built-in"
    assert price_for("gpt-4o-mini-2024-07-18", DEFAULT_PRICES) == price  # a dated snapshot: the longest prefix


def test_cached_tokens_are_billed_at_the_cached_price_and_batch_calls_at_batch_prices() -> None:
    price = Price(input=2.0, output=8.0, cached_input=0.5, batch_input=1.0, batch_output=4.0)
    table = {"m": price}
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=500_000, total_tokens=1_500_000, cached_tokens=400_000)
    # 600k input at 2.0 + 400k cached at 0.5 + 500k output at 8.0
    assert calls_cost([(usage, False)], "m", table) == pytest.approx(1.2 + 0.2 + 4.0)
    # a batch call: every prompt token at the batch input price, output at the batch output price
    assert calls_cost([(usage, True)], "m", table) == pytest.approx(1.0 + 2.0)
    # no cached or batch price given: cached tokens as input, a batch call at list prices (at most)
    plain = {"m": Price(input=2.0, output=8.0)}
    assert calls_cost([(usage, False)], "m", plain) == calls_cost([(usage, True)], "m", plain) == pytest.approx(6.0)


def test_later_tables_override_earlier_ones_per_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HARNESS_PRICES", raising=False)
    (tmp_path / "prices.yaml").write_text("gpt-4o-mini: {input: 1, output: 2, as_of: 2026-01-31}\n", encoding="utf-8")
    prices = load_prices(tmp_path)
    assert (prices["gpt-4o-mini"].input, prices["gpt-4o-mini"].as_of) == (1.0, "2026-01-31")
    assert prices["gpt-4o-mini"].source.endswith("prices.yaml") and prices["gpt-4o"].source == "built-in"
    suite_price = Price(input=3, output=4, source="suite")
    assert load_prices(tmp_path, {"gpt-4o-mini": suite_price})["gpt-4o-mini"] == suite_price


@pytest.mark.parametrize(("entry", "needle"), [
    ("{input: 1, output: 2, as_of: yesterday}", "as_of is a date"),
    ("{input: -1, output: 2}", "input"),
    ("{input: 1, output: 2, discount: 3}", "not a price field"),
])
def test_bad_price_entries_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str, needle: str) -> None:
    monkeypatch.delenv("HARNESS_PRICES", raising=False)
    (tmp_path / "prices.yaml").write_text(f"m: {entry}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_prices(tmp_path)
    assert needle in caught.value.message and "prices.yaml: m:" in caught.value.message
