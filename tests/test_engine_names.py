"""The engine names a suite may give (`engine:`), read once into a release (harness/engine_names.py)."""

from __future__ import annotations

import pytest

from harness.engine_names import EngineRelease, parse_engine_name
from harness.errors import InputError


def test_llamaindex_names_stand_for_the_modelled_line() -> None:
    assert parse_engine_name("llamaindex") == EngineRelease("llamaindex", (0, 14, 25))
    assert parse_engine_name("LlamaIndex-0.14") == EngineRelease("llamaindex", (0, 14, 25))
    assert parse_engine_name("llamaindex-0.14.3").label == "llamaindex-0.14.3"


@pytest.mark.parametrize("name", ["llamaindex-0.9", "llamaindex-1.0", "llamaindex-0.14.x", "llama-index"])
def test_a_llamaindex_line_the_harness_does_not_model_is_refused(name: str) -> None:
    with pytest.raises(InputError, match="not an engine version the harness models"):
        parse_engine_name(name)
