"""`harness tune --repeat N`: type discovery asked N times, each sample in its own cassette, and how
often each discovered type recurs, in the tuning report."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.errors import InputError
from harness.suites import load_suite
from harness.tune.pipeline import tune, type_stability

from ..support.fake_server import FakeOpenAIServer
from .test_pipeline import Responder, options

TYPE_ANSWERS = [
    '{"entity_types": ["person", "organization", "geo", "event"]}',
    '{"entity_types": ["person", "geo", "event", "place"]}',
    '{"entity_types": ["person", "geo", "event"]}',
]


class SampledTypes(Responder):
    """Each entity-types question gets the next of TYPE_ANSWERS, as a sampling model might answer."""

    def __init__(self, cases: dict[str, str]) -> None:
        super().__init__(cases)
        self.lock = threading.Lock()
        self.type_calls = 0

    def __call__(self, body: dict[str, Any]) -> str:
        if body["messages"][-1]["content"].startswith("TASK: entity-types"):
            with self.lock:
                self.type_calls += 1
                return TYPE_ANSWERS[(self.type_calls - 1) % len(TYPE_ANSWERS)]
        return super().__call__(body)


def test_type_stability_counts_each_type_once_per_sample():
    # person in 3 samples; geo in 2 (named twice by the first: counted once); event in 1; nothing
    # from the sample without an answer, which still counts among the 4
    found = type_stability([["person", "geo", "geo"], ["geo", "person"], None, ["event", "person"]])
    assert found.model_dump() == {"samples": 4, "types": [{"type": "person", "samples": 3}, {"type": "geo", "samples": 2},
                                                          {"type": "event", "samples": 1}]}


def test_repeat_records_each_type_sample_apart_and_reports_recurrence(project: Path, api_key: str, tmp_path: Path):
    suite = load_suite(project)
    responder = SampledTypes({c.id: c.text for c in suite.cases})
    with FakeOpenAIServer(responder) as srv:
        tune(options(suite, tmp_path / "a" / "t.yaml", tmp_path / "cassettes", "once", srv.base_url, repeat=3))
        assert responder.type_calls == 3
    assert (tmp_path / "cassettes" / "entity_types.json").exists()
    assert sorted(p.parent.name for p in (tmp_path / "cassettes").glob("sample-*/entity_types.json")) == [
        "sample-1", "sample-2"]
    report = json.loads((tmp_path / "a" / "t.tuning.json").read_text())
    stability = report["entity_type_stability"]
    assert stability["samples"] == 3
    # person, geo, event in all three answers; organization and place in one each
    assert {t["type"]: t["samples"] for t in stability["types"]} == {
        "person": 3, "geo": 3, "event": 3, "organization": 1, "place": 1}
    assert [t["samples"] for t in stability["types"]] == [3, 3, 3, 1, 1]  # most frequent first
    assert report["usage"]["calls"] == 5 + 2 + 3  # five steps, two more type samples, three examples
    markdown = (tmp_path / "a" / "t.tuning.md").read_text()
    assert "## Entity-type stability" in markdown and "| person | 3 of 3 | yes |" in markdown
    # replayed offline, the same samples give the same report
    tune(options(suite, tmp_path / "b" / "t.yaml", tmp_path / "cassettes", "none", repeat=3))
    again = json.loads((tmp_path / "b" / "t.tuning.json").read_text())
    assert again["entity_type_stability"] == stability and again["entity_types"] == report["entity_types"]
    # without --repeat the report has no stability block (and the sample cassettes are not asked for)
    tune(options(suite, tmp_path / "c" / "t.yaml", tmp_path / "cassettes", "none"))
    assert "entity_type_stability" not in json.loads((tmp_path / "c" / "t.tuning.json").read_text())


def test_repeat_needs_discovered_types(project: Path, tmp_path: Path):
    suite = load_suite(project)
    with pytest.raises(InputError, match="--repeat samples the discovery of entity types"):
        tune(options(suite, tmp_path / "t.yaml", tmp_path / "cassettes", "none", repeat=2,
                     entity_types=["person"]))
