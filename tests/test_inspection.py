"""`harness inspect RUN ENTITY`: one entity across a run, per variant."""

from __future__ import annotations

import json

import pytest

from harness.run.schedule import RunOptions, run_suite
from harness.finish import finish_outcome
from harness.suites import load_suite

from .reports.helpers import REPO, harness, record_cassettes, replay


@pytest.fixture
def run_dir(suite, server, api_key, tmp_path):
    record_cassettes(suite, server, tmp_path)
    outcome, _ = replay(suite, tmp_path / "reports", "r")
    return outcome.run_dir


def test_inspect_shows_relationships_cases_and_gold_for_both_variants(run_dir, capsys):
    code, out, err = harness(capsys, "inspect", str(run_dir), "Lowbridge")
    assert code == 0, err
    assert "gold: expected in mayor (as Lowbridge)" in out
    default, tuned = out.split("[default]")[1].split("[tuned]")
    for part in (default, tuned):
        assert "written as: LOWBRIDGE" in part
        assert "types: geo ×1" in part
        assert "description: Town." in part
        assert "in  ← ANA RUIZ (person)  strength     8  [mayor]  mayor of" in part
        assert "mayor: expected, found (gold: Lowbridge)" in part
        assert "“Mayor Ana Ruiz of Lowbridge opened the Lowbridge Library with the Kestrel Trust.”" in part


@pytest.mark.slow
def test_aliases_and_missed_entities(run_dir, capsys):
    # "Ruiz" is an alias of the gold entity Ana Ruiz
    code, out, _ = harness(capsys, "inspect", str(run_dir), "ruiz")
    assert code == 0
    assert "gold: expected in mayor (as Ana Ruiz, aka Ruiz)" in out and "out → LOWBRIDGE (geo)" in out
    # gold expects Red Lantern Society; default never extracted it, tuned did (in a gleaning round)
    code, out, _ = harness(capsys, "inspect", str(run_dir), "Red Lantern Society")
    assert code == 0
    default, tuned = out.split("[default]")[1].split("[tuned]")
    assert "written as: — (not extracted)" in default and "flood: expected, missed" in default
    assert "written as: RED LANTERN SOCIETY" in tuned and "flood: expected, found" in tuned


@pytest.mark.slow
def test_relationship_filters(run_dir, capsys):
    base = ["inspect", str(run_dir), "Ana Ruiz", "--variant", "tuned"]
    code, out, _ = harness(capsys, *base, "--direction", "in")
    assert code == 0 and "relationships (0 of 1; direction in)" in out and "[default]" not in out
    code, out, _ = harness(capsys, *base, "--direction", "out", "--min-strength", "8")
    assert "relationships (1 of 1; direction out, strength ≥ 8)" in out
    code, out, _ = harness(capsys, *base, "--min-strength", "9")
    assert "relationships (0 of 1;" in out
    code, out, _ = harness(capsys, *base, "--related-type", "GEO")
    assert "out → LOWBRIDGE (geo)" in out
    code, out, _ = harness(capsys, *base, "--related-type", "person")
    assert "relationships (0 of 1;" in out


def test_json_output(run_dir, capsys):
    code, out, _ = harness(capsys, "inspect", str(run_dir), "KESTREL TRUST", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["keys"] == ["kestrel trust"]
    by_variant = {v["variant"]: v for v in data["variants"]}
    assert set(by_variant) == {"default", "tuned"}
    tuned = by_variant["tuned"]
    assert tuned["relationships"][0] | {"description": None} == {
        "case_id": "mayor", "direction": "out", "source": "KESTREL TRUST", "target": "LOWBRIDGE LIBRARY",
        "other": "LOWBRIDGE LIBRARY", "other_type": "organization", "strength": 6.0, "description": None,
        "keywords": "", "round": 0,
    }
    assert by_variant["default"]["cases"][0]["names"] == ["KESTREL TRUST"]


@pytest.mark.slow
def test_unknown_entity_or_variant_is_bad_input(run_dir, capsys):
    code, _, err = harness(capsys, "inspect", str(run_dir), "Lowbridg Librar")
    assert code == 2 and "no entity named 'Lowbridg Librar'" in err and "closest: LOWBRIDGE LIBRARY" in err
    code, _, err = harness(capsys, "inspect", str(run_dir), "Lowbridge", "--variant", "nope")
    assert code == 2 and "no variant nope" in err
    code, _, err = harness(capsys, "inspect", str(run_dir), "Lowbridge", "--direction", "sideways")
    assert code == 2 and "--direction" in err


def test_inspect_an_example_run(tmp_path, monkeypatch, capsys):
    """On the shipped biomed suite: an entity's relationships and source cases in both variants."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("CI", "true")
    outcome = run_suite(load_suite(REPO / "suites" / "biomed.yaml"),
                        RunOptions(record_mode="none", reports_dir=tmp_path, fresh=True))
    assert not outcome.missing
    finish_outcome(outcome, record_mode="none").summary
    code, out, err = harness(capsys, "inspect", str(outcome.run_dir), "VLP-12")
    assert code == 0, err
    assert "gold: expected in velaprotin-phase-two (as Velaprotin, aka VLP-12)" in out
    default, tuned = out.split("[default]")[1].split("[tuned]")
    for part in (default, tuned):
        assert "written as: VELAPROTIN" in part
        assert "← MERIDIAN THERAPEUTICS (organization)" in part
        assert "velaprotin-phase-two: expected, found (gold: Velaprotin)" in part
        assert "Velaprotin (VLP-12) is an orally available" in part
    assert "→ KRX-7 KINASE (protein)" in tuned
