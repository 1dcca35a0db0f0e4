"""LlamaIndex's own extraction prompts lint clean as their kind, with the variables its extractors
fill (llama-index-core 0.14.25, tests/fixtures/engine_captures/llamaindex-0.14.25/prompts.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.prompts.kinds import PROMPT_KINDS
from harness.prompts.lint import lint_report

CAPTURE = Path(__file__).parents[1] / "fixtures" / "engine_captures" / "llamaindex-0.14.25"
PROMPTS = json.loads((CAPTURE / "prompts.json").read_text(encoding="utf-8"))["prompts"]
KIND_OF = {
    "SimpleLLMPathExtractor": "llamaindex.kg_triplet_extract",
    "DynamicLLMPathExtractor": "llamaindex.dynamic_extract",
    "DynamicLLMPathExtractor(allowed types)": "llamaindex.dynamic_extract",
    "DynamicLLMPathExtractor(props)": "llamaindex.dynamic_extract",
    "SchemaLLMPathExtractor": "llamaindex.schema_extract",
}


@pytest.mark.parametrize("extractor", list(KIND_OF))
def test_stock_template_lints_clean_as_its_kind(extractor: str, tmp_path: Path) -> None:
    """On main `{text}` and `{max_knowledge_triplets}` were placeholder-unknown plus input-missing."""
    path = tmp_path / "prompt.txt"
    path.write_text(PROMPTS[extractor]["template"], encoding="utf-8")
    report = lint_report(path)
    assert (report.kind, report.engine) == (KIND_OF[extractor], "llamaindex")
    assert [f.code for f in report.findings] == []


@pytest.mark.parametrize("extractor", ["SimpleLLMPathExtractor", "DynamicLLMPathExtractor", "SchemaLLMPathExtractor"])
def test_kind_fills_what_the_extractor_passes(extractor: str) -> None:
    kind = PROMPT_KINDS[KIND_OF[extractor]]
    passed = PROMPTS[extractor]["variables"]
    assert set(kind.filled["llamaindex"]) == set(passed)
    assert {k: str(v) for k, v in passed.items() if k != "text"} == dict(kind.engine_values)


def test_a_placeholder_llamaindex_does_not_fill_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "prompt.txt"
    path.write_text("Extract up to {max_knowledge_triplets} triples in {language}.\nText: {text}\n", encoding="utf-8")
    report = lint_report(path)
    assert report.engine == "llamaindex"
    assert [f.code for f in report.findings] == ["placeholder-unknown"]
