"""Shared fixtures: a small project on disk and the local OpenAI-compatible server."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, settings

from .support.fake_server import FakeOpenAIServer, Faults, Script
from harness import known_keys
from harness.run.plan import plan_variant
from harness.suites import Suite, load_suite

# Property-based tests run under a profile: "ci" (the default, bounded so `make test` stays
# quick) or "thorough" for a longer local hunt: HYPOTHESIS_PROFILE=thorough make test.
settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# A CI service sets CI, which makes `record` replay only (llm/record_modes.py). Tests that want that
# set it themselves; the others, and the commands they start, must not inherit it from the runner.
os.environ.pop("CI", None)

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
# 2,182 real model answers (../shared/corpus/README.md): for measuring only; tests reading it say so
# in their names and skip without it
SHARED_CORPUS = SHARED / "corpus" / "real-llm-outputs.jsonl"

PROMPT = (
    "Extract entities of types [{entity_types}] from the text, in {language}.\n"
    '("entity"{tuple_delimiter}NAME{tuple_delimiter}TYPE{tuple_delimiter}DESC){record_delimiter}\n'
    "End with {completion_delimiter}\nText: {input_text}\nOutput:"
)
TUNED = "You are an analyst of small towns.\n" + PROMPT

CASES = {
    "mayor": {
        "text": "Mayor Ana Ruiz of Lowbridge opened the Lowbridge Library with the Kestrel Trust.",
        "entities": [
            {"name": "Ana Ruiz", "type": "person", "aliases": ["Ruiz"]},
            {"name": "Lowbridge", "type": "geo"},
            {"name": "Lowbridge Library", "type": "organization"},
            {"name": "Kestrel Trust", "type": "organization"},
        ],
        "relationships": [
            {"source": "Ana Ruiz", "target": "Lowbridge"},
            {"source": "Kestrel Trust", "target": "Lowbridge Library"},
        ],
    },
    "flood": {
        "text": "The Arn river flooded Millbrook in March; the Red Lantern Society sheltered families.",
        "entities": [
            {"name": "Arn", "type": "geo"},
            {"name": "Millbrook", "type": "geo"},
            {"name": "Red Lantern Society", "type": "organization"},
        ],
        "relationships": [
            {"source": "Arn", "target": "Millbrook"},
            {"source": "Red Lantern Society", "target": "Millbrook"},
        ],
    },
    "fair": {
        "text": "Tomas Berg won the Oakfield Fair pie contest, judged by chef Ida Moss.",
        "entities": [
            {"name": "Tomas Berg", "type": "person"},
            {"name": "Oakfield Fair", "type": "event"},
            {"name": "Ida Moss", "type": "person"},
        ],
        "relationships": [
            {"source": "Tomas Berg", "target": "Oakfield Fair"},
            {"source": "Ida Moss", "target": "Oakfield Fair"},
        ],
    },
}

ANSWERS = {
    "default": {
        "mayor": [
            '("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>geo<|>Town)##'
            '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>mayor of<|>8)\n<|COMPLETE|>',
            '("entity"<|>KESTREL TRUST<|>organization<|>Trust)\n<|COMPLETE|>',
        ],
        "flood": ['```\n("entity"<|>MILLBROOK<|>geo<|>Town)\n```', "<|COMPLETE|>"],
        "fair": ['("entity"<|>TOMAS BERG<|>person<|>Winner)\n<|COMPLETE|>', "<|COMPLETE|>"],
    },
    "tuned": {
        "mayor": [
            '("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>geo<|>Town)##'
            '("entity"<|>LOWBRIDGE LIBRARY<|>organization<|>Library)##("entity"<|>KESTREL TRUST<|>organization<|>Trust)##'
            '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>mayor of<|>8)##'
            '("relationship"<|>KESTREL TRUST<|>LOWBRIDGE LIBRARY<|>opened with<|>6)\n<|COMPLETE|>',
            "<|COMPLETE|>",
        ],
        "flood": [
            'Here you go:\n("entity"<|>ARN<|>geo<|>River)##("entity"<|>MILLBROOK<|>geo<|>Town)##'
            '("relationship"<|>ARN<|>MILLBROOK<|>flooded<|>9)',
            '("entity"<|>RED LANTERN SOCIETY<|>organization<|>Charity)\n<|COMPLETE|>',
        ],
        "fair": [
            '("entity"<|>TOMAS BERG<|>person<|>Winner)##("entity"<|>OAKFIELD FAIR<|>event<|>Fair)##'
            '("relationship"<|>TOMAS BERG<|>OAKFIELD FAIR<|>won at<|>7)\n<|COMPLETE|>',
            "<|COMPLETE|>",
        ],
    },
}


def write_project(root: Path, *, max_gleanings: int = 1) -> Path:
    """A tiny project: one suite of three cases and two prompt variants. Returns the suite path."""
    (root / "suites").mkdir(parents=True, exist_ok=True)
    (root / "prompts").mkdir(exist_ok=True)
    (root / "prompts" / "default.txt").write_text(PROMPT, encoding="utf-8")
    (root / "prompts" / "tuned.txt").write_text(TUNED, encoding="utf-8")
    suite = {
        "name": "towns",
        "description": "Tiny hand-written suite for tests.",
        "language": "English",
        "entity_types": ["person", "organization", "geo", "event"],
        "model": {"name": "gpt-4o-mini", "temperature": 0, "max_gleanings": max_gleanings, "max_retries": 3},
        "variants": {"default": {"prompt": "prompts/default.txt"}, "tuned": {"prompt": "prompts/tuned.txt"}},
        "baseline": "default",
        "thresholds": {"entity_recall": 0.5},
        "cases": [{"id": cid, **case} for cid, case in CASES.items()],
    }
    path = root / "suites" / "towns.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def script_for(suite: Suite) -> Script:
    script = Script()
    for variant in suite.variant_names():
        plan = plan_variant(suite, variant)
        for case in suite.cases:
            first_user = [m["content"] for m in plan.render(case) if m["role"] == "user"][0]
            script.rounds[first_user] = ANSWERS[variant][case.id]
    return script


@pytest.fixture(autouse=True)
def _known_keys_from_the_environment_only() -> Iterator[None]:
    """Each test starts knowing only the environment's keys: one learnt by an earlier test (a
    project's .env, a suite's api_key_env) must not redact what a later one writes."""
    known_keys.forget()
    yield
    known_keys.forget()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    return write_project(tmp_path)


@pytest.fixture
def suite(project: Path) -> Suite:
    return load_suite(project)


@pytest.fixture
def server(suite: Suite) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(script_for(suite), Faults()) as srv:
        yield srv


SECRET = "sk-test-" + "a1b2c3d4e5f6g7h8i9j0k1l2"


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return SECRET


def all_files_text(root: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace") for p in root.rglob("*") if p.is_file()
    ) + os.linesep


@pytest.fixture(scope="session")
def shared_corpus_rows() -> list[dict[str, Any]]:
    """The shared corpus's rows (see SHARED_CORPUS); the test skips where it is not beside the checkout."""
    if not SHARED_CORPUS.exists():
        pytest.skip("shared corpus not available")
    with SHARED_CORPUS.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]
