"""The GraphRAG major line a settings mapping is written for, told from its layout.

The one reader of the layout: prompt kinds, lint and `prompts export` (`kinds.engine_of_settings`)
and the importer's version checks and chunking (`importers.graphrag.detect_version`) all ask it, so
they cannot disagree. Read from each line's config models and `init_content.py` (0.5.0, 0.9.0,
1.2.0, 2.1.0, 2.7.0, 3.3.0):

| line | what tells it |
| --- | --- |
| 3 | `completion_models`, `input_storage`, `chunking` or `output_storage` |
| 2 | `models` (2.0 replaced `llm:` with it), `extract_graph`, `extract_claims` or `community_reports.graph_prompt` |
| 1 | `llm:` with `basic_search` or `drift_search.reduce_prompt` (`graphrag init` of 1.1 and later) |
| 0 | `llm:` and none of the above: 0.x, or a 1.x file written without those sections |

No 0.x or 1.x release reads `models:`, so a `models:` layout is 2.x whatever else it holds (an
`entity_extraction:` section in it is a 1.x name 2.x does not read).
"""

from __future__ import annotations

from collections.abc import Mapping

V3_SECTIONS = ("completion_models", "input_storage", "chunking", "output_storage")
V2_SECTIONS = ("models", "extract_graph", "extract_claims")
# the 0.x/1.x names of sections 2.x renamed: in a 2.x or 3.x layout the engine does not read them
OLD_SECTION_NAMES = {"entity_extraction": "extract_graph", "claim_extraction": "extract_claims"}


def settings_line(settings: Mapping[str, object]) -> int:
    """The GraphRAG major line (0 to 3) whose layout the settings are written in."""
    if any(k in settings for k in V3_SECTIONS):
        return 3
    reports = settings.get("community_reports")
    if any(k in settings for k in V2_SECTIONS) or (isinstance(reports, Mapping) and "graph_prompt" in reports):
        return 2
    drift = settings.get("drift_search")
    if "basic_search" in settings or (isinstance(drift, Mapping) and "reduce_prompt" in drift):
        return 1
    return 0


def unread_sections(settings: Mapping[str, object]) -> list[tuple[str, str]]:
    """The sections of a 2.x or 3.x layout under their 0.x/1.x names, which that line does not
    read: (old name, the name it reads)."""
    if settings_line(settings) < 2:
        return []
    return [(old, new) for old, new in OLD_SECTION_NAMES.items() if old in settings]
