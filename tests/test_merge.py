"""Sharded runs (--shard i/n) and `harness merge`: the merged run is the unsharded run."""

from __future__ import annotations

import json

import pytest

from harness.errors import InputError
from harness.reports.commands import parse_shard
from harness.runner import RunOptions, _selected

from .reports.helpers import harness, record_cassettes, replay, strip_volatile, summary_of


def test_shards_split_cases_by_position(suite):
    ids = [c.id for c in suite.cases]  # mayor, flood, fair
    picked = {i: [c.id for c in _selected(suite, RunOptions(shard=(i, 2)))[1]] for i in (1, 2)}
    assert picked == {1: [ids[0], ids[2]], 2: [ids[1]]}
    assert _selected(suite, RunOptions(shard=(1, 1)))[1] == suite.cases
    # after --case: positions among the selected cases
    assert [c.id for c in _selected(suite, RunOptions(cases=["flood", "fair"], shard=(2, 2)))[1]] == ["fair"]
    # more shards than cases: the extra shards are empty
    assert _selected(suite, RunOptions(shard=(4, 4)))[1] == []
    with pytest.raises(InputError):
        _selected(suite, RunOptions(shard=(3, 2)))


@pytest.mark.parametrize("text,expected", [("1/4", (1, 4)), (" 2 / 2 ", (2, 2)), (None, None)])
def test_parse_shard(text, expected):
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "a/b", "1", "1/2/3", "-1/2"])
def test_parse_shard_rejects(text):
    with pytest.raises(InputError, match="--shard"):
        parse_shard(text)


@pytest.fixture
def recorded(suite, server, api_key, tmp_path):
    record_cassettes(suite, server, tmp_path)
    return suite


def test_merged_shards_equal_the_unsharded_run(recorded, tmp_path, capsys):
    full, _ = replay(recorded, tmp_path / "full", "run")
    shards = [replay(recorded, tmp_path / "shards", f"shard-{i}", shard=(i, 3))[0] for i in (1, 2, 3)]
    assert sorted(len(s.results) for s in shards) == [2, 2, 2]
    code, out, err = harness(capsys, "merge", *(str(s.run_dir) for s in reversed(shards)),
                             "--reports", str(tmp_path / "merged"), "--run-id", "run")
    assert code == 0, err
    merged = tmp_path / "merged" / "towns" / "run"
    assert str(merged) in out
    assert strip_volatile(summary_of(merged)) == strip_volatile(summary_of(full.run_dir))
    # rows in the same order, and every report the same bytes
    rows = lambda d: [strip_volatile(json.loads(line)) for line in (d / "results.jsonl").read_text().splitlines()]  # noqa: E731
    assert rows(merged) == rows(full.run_dir)
    for name in ("report.md", "report.html", "junit.xml", "gate.json", "plots/metrics.png"):
        assert (merged / name).read_bytes() == (full.run_dir / name).read_bytes(), name


def test_merge_defaults_to_the_shards_reports_folder(recorded, tmp_path, capsys):
    shards = [replay(recorded, tmp_path / "reports", f"s{i}", shard=(i, 2))[0] for i in (1, 2)]
    code, out, err = harness(capsys, "merge", *(str(s.run_dir) for s in shards), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["rows"] == 6 and data["missing"] == []
    assert data["run_dir"].startswith(str(tmp_path / "reports" / "towns"))


def test_merge_notes_cases_no_shard_has(recorded, tmp_path, capsys):
    first, _ = replay(recorded, tmp_path / "reports", "s1", shard=(1, 2))
    code, _, err = harness(capsys, "merge", str(first.run_dir), "--run-id", "partial")
    assert code == 0
    assert "2 case × variant of the suite in no shard" in err


def test_merge_gate_exit_code(recorded, project, tmp_path, capsys):
    from .reports.helpers import set_suite

    suite = set_suite(project, thresholds={"entity_recall": 0.95})
    shards = [replay(suite, tmp_path / "reports", f"s{i}", shard=(i, 2))[0] for i in (1, 2)]
    code, out, _ = harness(capsys, "merge", *(str(s.run_dir) for s in shards), "--run-id", "m", "--gate")
    assert code == 1 and "FAIL  default: entity recall 50.0% is below the threshold 95.0%" in out


def test_merge_refuses_conflicting_or_foreign_or_unfinished_runs(recorded, tmp_path, capsys):
    a, _ = replay(recorded, tmp_path / "reports", "a", shard=(1, 2))
    b, _ = replay(recorded, tmp_path / "reports", "b", shard=(1, 2))
    # the same rows twice are fine (a retried shard)...
    code, _, err = harness(capsys, "merge", str(a.run_dir), str(b.run_dir), "--run-id", "twice")
    assert code == 0, err
    # ...different results for the same case are not
    path = b.run_dir / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["graph"]["entities"] = []
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = harness(capsys, "merge", str(a.run_dir), str(b.run_dir), "--run-id", "conflict")
    assert code == 2 and "with different results" in err and len(err.strip().splitlines()) == 1
    # a shard of another suite
    summary = json.loads((b.run_dir / "summary.json").read_text())
    summary["suite"] = "podcast"
    (b.run_dir / "summary.json").write_text(json.dumps(summary))
    code, _, err = harness(capsys, "merge", str(a.run_dir), str(b.run_dir), "--run-id", "foreign")
    assert code == 2 and "different suites" in err
    # an unfinished shard
    (b.run_dir / "summary.json").unlink()
    code, _, err = harness(capsys, "merge", str(a.run_dir), str(b.run_dir), "--run-id", "unfinished")
    assert code == 2 and "unfinished" in err
    # an existing target
    code, _, err = harness(capsys, "merge", str(a.run_dir), "--run-id", "twice")
    assert code == 2 and "already exists" in err
