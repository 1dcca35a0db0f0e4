"""`harness import llamaindex`: cases are LlamaIndex's SentenceSplitter chunks byte for byte, and the
prompt renders as LlamaIndex's extractor fills it (llama-index-core 0.14.25 captures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.prompts.commands import render_case
from harness.suites import load_suite

CAPTURE = Path(__file__).parents[1] / "fixtures" / "engine_captures" / "llamaindex-0.14.25"
CHUNKS = json.loads((CAPTURE / "chunks.json").read_text(encoding="utf-8"))["chunks"]
PROMPTS = json.loads((CAPTURE / "prompts.json").read_text(encoding="utf-8"))["prompts"]


def _import(tmp_path: Path, extractor: str, *options: str) -> Path:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text(PROMPTS[extractor]["template"], encoding="utf-8")
    out = tmp_path / "suites" / "li.yaml"
    result = CliRunner().invoke(app, ["import", "llamaindex", str(CAPTURE / "docs"), "--prompt", str(prompt),
                                      "--out", str(out), "--limit", "100", *options])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("size,overlap", [(1024, 200), (40, 10), (16, 4)])
def test_cases_are_llamaindex_chunks(tmp_path: Path, size: int, overlap: int) -> None:
    options = [] if size == 1024 else ["--chunk-size", str(size), "--chunk-overlap", str(overlap)]
    suite = load_suite(_import(tmp_path, "SimpleLLMPathExtractor", *options))
    expected = [c for row in CHUNKS if row["chunk_size"] == size for c in row["chunks"]]
    assert [case.text for case in suite.cases] == expected


@pytest.mark.parametrize("extractor", ["SimpleLLMPathExtractor", "DynamicLLMPathExtractor"])
def test_prompt_renders_as_llamaindex_fills_it(tmp_path: Path, extractor: str) -> None:
    out = _import(tmp_path, extractor, "--chunk-size", "40", "--chunk-overlap", "10")
    suite = load_suite(out)
    messages = render_case(None, suite=out, case=suite.cases[0].id)
    captured = PROMPTS[extractor]
    expected = captured["template"].format(**{**captured["variables"], "text": suite.cases[0].text})
    assert [m["content"] for m in messages] == [expected]
