"""prices.yaml is a user file: loaded through the bounded YAML loader, bad values are one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.llm.pricing import load_prices
from harness.pytest_plugin import _looks_like_suite


@pytest.mark.parametrize(
    ("text", "needle"),
    [("m: {input: abc, output: 1}\n", "prices must be numbers"),
     ("m: {input: !!float zz, output: 1}\n", "not a valid float"),
     ("m: " + "[" * 5000 + "]" * 5000 + "\n", "nested deeper")],
)
def test_bad_price_files_are_one_line_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, needle: str) -> None:
    monkeypatch.delenv("HARNESS_PRICES", raising=False)
    (tmp_path / "prices.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_prices(tmp_path)
    assert needle in caught.value.message and "\n" not in caught.value.message


def test_plugin_does_not_block_on_a_fifo_in_a_suites_folder(tmp_path: Path) -> None:
    (tmp_path / "suites").mkdir()
    fifo = tmp_path / "suites" / "pipe.yaml"
    os.mkfifo(fifo)
    assert _looks_like_suite(fifo)  # handed to load_suite, which reports it
