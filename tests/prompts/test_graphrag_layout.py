"""The one reader of GraphRAG's settings layout, on settings real versions ran with."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.prompts.graphrag_layout import settings_line, unread_sections
from harness.importers.graphrag import detect_version
from harness.importers.graphrag_chunks import MAJORS
from harness.prompts.kinds import engine_of_settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# settings files real GraphRAG versions ran with (engine_captures/*-chunks) or `graphrag init` wrote
# (stock_prompts/graphrag-N), and the major line each was written for
REAL = {
    "engine_captures/graphrag-0.5.0-chunks/settings.yaml": 0,
    "engine_captures/graphrag-0.9.0-chunks/settings.yaml": 0,
    "engine_captures/graphrag-1.2.0-chunks/settings.yaml": 1,  # no 1.1+ section in it: read as 0 (see below)
    "engine_captures/graphrag-2.1.0-chunks/settings.yaml": 2,  # `models:` and no extract_graph
    "engine_captures/graphrag-2.7.0-chunks/settings.yaml": 2,
    "engine_captures/graphrag-3.1.2-chunks/settings.yaml": 3,
    "stock_prompts/graphrag-0/settings.yaml": 0,
    "stock_prompts/graphrag-1/settings.yaml": 1,
    "stock_prompts/graphrag-2/settings.yaml": 2,
    "stock_prompts/graphrag-3/settings.yaml": 3,
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_every_reader_places_real_settings_in_their_line(name: str) -> None:
    settings = yaml.safe_load((FIXTURES / name).read_text(encoding="utf-8"))
    line = settings_line(settings)
    major = REAL[name]
    # 1.x settings without basic_search / drift_search.reduce_prompt look like 0.x's: the layout
    # label then admits both lines, so the version the project names is never refused
    assert line == major or (major == 1 and line == 0)
    assert major in MAJORS[detect_version(settings)]
    assert engine_of_settings(settings) == f"graphrag-{line}" and detect_version(settings) == f"v{line}"


def test_sections_under_their_old_names_are_named_in_a_2x_layout_only() -> None:
    assert unread_sections({"models": {}, "entity_extraction": {}, "claim_extraction": {}}) == [
        ("entity_extraction", "extract_graph"), ("claim_extraction", "extract_claims")]
    assert unread_sections({"llm": {}, "entity_extraction": {}}) == []
