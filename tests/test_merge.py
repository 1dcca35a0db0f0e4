"""Sharded runs (--shard i/n) and `harness merge`: the merged run is the unsharded run."""

from __future__ import annotations

import json

import pytest

from harness.errors import InputError
from harness.cli.inputs import parse_shard
from harness.run.schedule import RunOptions, select_cases

from .reports.helpers import harness, record_cassettes, replay, strip_volatile, summary_of


def test_shards_split_cases_by_position(suite):
    ids = [c.id for c in suite.cases]  # mayor, flood, fair
    picked = {i: [c.id for c in select_cases(suite, RunOptions(shard=(i, 2)))[1]] for i in (1, 2)}
    assert picked == {1: [ids[0], ids[2]], 2: [ids[1]]}
    assert select_cases(suite, RunOptions(shard=(1, 1)))[1] == suite.cases
    # after --case: positions among the selected cases
    assert [c.id for c in select_cases(suite, RunOptions(cases=["flood", "fair"], shard=(2, 2)))[1]] == ["fair"]
    # more shards than cases: the extra shards are empty
    assert select_cases(suite, RunOptions(shard=(4, 4)))[1] == []
    with pytest.raises(InputError):
        select_cases(suite, RunOptions(shard=(3, 2)))


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


@pytest.mark.slow
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


@pytest.mark.slow
def test_merge_defaults_to_the_shards_reports_folder(recorded, tmp_path, capsys):
    shards = [replay(recorded, tmp_path / "reports", f"s{i}", shard=(i, 2))[0] for i in (1, 2)]
    code, out, err = harness(capsys, "merge", *(str(s.run_dir) for s in shards), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["rows"] == 6 and data["missing"] == []
    assert data["run_dir"].startswith(str(tmp_path / "reports" / "towns"))


@pytest.mark.slow
def test_merge_notes_cases_no_shard_has(recorded, tmp_path, capsys):
    first, _ = replay(recorded, tmp_path / "reports", "s1", shard=(1, 2))
    code, _, err = harness(capsys, "merge", str(first.run_dir), "--run-id", "partial")
    assert code == 0
    assert "2 case × variant of the suite in no shard" in err


@pytest.mark.slow
def test_merge_gate_exit_code(recorded, project, tmp_path, capsys):
    from .reports.helpers import set_suite

    suite = set_suite(project, thresholds={"entity_recall": 0.95})
    shards = [replay(suite, tmp_path / "reports", f"s{i}", shard=(i, 2))[0] for i in (1, 2)]
    code, out, _ = harness(capsys, "merge", *(str(s.run_dir) for s in shards), "--run-id", "m", "--gate")
    assert code == 1 and "FAIL  default: entity recall 50.0% is below the threshold 95.0%" in out


@pytest.mark.slow
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


# --------------------------------------------------------------------------- the sharded workflow, as GitHub runs it


def _expand(command: str, variables: dict[str, str], workspace: Path) -> list[str]:
    """A workflow `run:` line as bash runs it: $VARS, quotes, then globs against the workspace."""
    import glob
    import re
    import shlex

    tokens = shlex.split(re.sub(r"\$\{?(\w+)\}?", lambda m: variables.get(m.group(1), ""), command))
    argv: list[str] = []
    for token in tokens:
        matches = sorted(glob.glob(token, root_dir=workspace)) if set("*?[") & set(token) else []
        argv.extend(matches or [token])
    return argv


def _steps_with(job: dict, needle: str) -> list[dict]:
    return [s for s in job["steps"] if needle in str(s.get("run", "")) or needle in str(s.get("uses", ""))]


@pytest.mark.slow
def test_sharded_workflow_merges_what_its_artifacts_hold(recorded, project, tmp_path, capsys, monkeypatch):
    """Each shard job on its own checkout, artifacts uploaded and downloaded with the v4 actions' layout
    (tests/support/artifacts.py), then the merge job's own command: the merged run is the unsharded run."""
    import yaml

    from .conftest import REPO
    from .support.artifacts import copy_checkout, download, upload

    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "prompt-regression-sharded.yml").read_text())
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    monkeypatch.setenv("CI", "true")
    suite_input = "suites/towns.yaml"
    artifacts: dict[str, dict[str, bytes]] = {}
    for shard in shard_job["strategy"]["matrix"]["shard"]:
        workspace = copy_checkout(tmp_path, tmp_path / "jobs" / f"shard-{shard}")
        monkeypatch.chdir(workspace)
        (run_step,) = _steps_with(shard_job, "harness run")
        env = {**workflow["env"], "SUITE": suite_input, "SHARD": str(shard)}
        argv = _expand(run_step["run"], env, workspace)
        assert argv[0] == "harness"
        code, _, err = harness(capsys, *argv[1:])
        assert code == 0, err
        (up,) = _steps_with(shard_job, "actions/upload-artifact@v4")
        name = up["with"]["name"].replace("${{ matrix.shard }}", str(shard))
        artifacts[name] = upload(workspace, up["with"]["path"].replace("${{ matrix.shard }}", str(shard)))
        assert artifacts[name], f"artifact {name} is empty"

    workspace = copy_checkout(tmp_path, tmp_path / "jobs" / "merge")
    monkeypatch.chdir(workspace)
    (down,) = _steps_with(merge_job, "actions/download-artifact@v4")
    options = down["with"]
    download(workspace, artifacts, path=options.get("path", "."), name=options.get("name"),
             pattern=options.get("pattern"), merge_multiple=bool(options.get("merge-multiple", False)))
    (merge_step,) = _steps_with(merge_job, "harness merge")
    argv = _expand(merge_step["run"], dict(workflow["env"]), workspace)
    code, out, err = harness(capsys, *argv[1:])
    assert code in (0, 1), err  # 1: the towns suite may fail its gate; 2 would be bad input
    merged = workspace / "reports" / "towns" / "merged"
    assert (merged / "report.md").exists()
    monkeypatch.chdir(tmp_path)
    full, _ = replay(recorded, tmp_path / "full", "full")
    rows = lambda d: [strip_volatile(json.loads(line)) for line in (d / "results.jsonl").read_text().splitlines()]  # noqa: E731
    assert rows(merged) == rows(full.run_dir)
    assert strip_volatile(summary_of(merged))["variants"] == strip_volatile(summary_of(full.run_dir))["variants"]


@pytest.mark.slow
def test_merge_finds_runs_inside_downloaded_artifact_folders(recorded, tmp_path, capsys):
    """`harness merge DIR` takes a folder holding run folders (an artifact as downloaded), not only run folders."""
    import shutil

    shards = [replay(recorded, tmp_path / "reports", f"shard-{i}", shard=(i, 2))[0] for i in (1, 2)]
    for i, shard in enumerate(shards, 1):  # download-artifact@v4 without merge-multiple: path/<artifact>/<suite>/<run>/
        shutil.copytree(shard.run_dir, tmp_path / "downloaded" / f"shard-{i}" / "towns" / shard.run_dir.name)
    code, _, err = harness(capsys, "merge", str(tmp_path / "downloaded" / "shard-1"),
                           str(tmp_path / "downloaded" / "shard-2"), "--reports", str(tmp_path / "out"), "--run-id", "m")
    assert code == 0, err
    code, _, err = harness(capsys, "merge", str(tmp_path / "downloaded"), "--reports", str(tmp_path / "out"),
                           "--run-id", "m2")
    assert code == 0, err
    assert len((tmp_path / "out" / "towns" / "m2" / "results.jsonl").read_text().splitlines()) == 6
    (tmp_path / "empty").mkdir()
    code, _, err = harness(capsys, "merge", str(tmp_path / "empty"))
    assert code == 2 and "no finished run" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_record_takes_shard(suite, server, api_key, project, tmp_path, capsys):
    code, _, err = harness(capsys, "record", str(project), "--shard", "2/3", "--base-url", server.base_url,
                           "--reports", str(tmp_path / "r"), "--run-id", "s2")
    assert code == 0, err
    rows = [json.loads(line) for line in (tmp_path / "r" / "towns" / "s2" / "results.jsonl").read_text().splitlines()]
    assert {r["case_id"] for r in rows} == {suite.cases[1].id} and len(rows) == 2
    code, _, err = harness(capsys, "record", str(project), "--shard", "4/3")
    assert code == 2 and "--shard" in err



@pytest.mark.slow
def test_a_merge_reports_the_entity_types_its_shards_ran_with_not_the_suite_as_edited_since(recorded, tmp_path, capsys):
    import yaml

    from harness.run.plan import plan_variant
    from harness.suites import load_suite

    shards = [replay(recorded, tmp_path / "shards", f"shard-{i}", shard=(i, 2))[0] for i in (1, 2)]
    ran = {name: v["entity_types"] for name, v in summary_of(shards[0].run_dir)["variants"].items()}
    spec = yaml.safe_load(recorded.path.read_text(encoding="utf-8"))
    spec["entity_types"] = ["edited_after_the_run"]
    recorded.path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    edited = load_suite(recorded.path)
    now = {name: plan_variant(edited, name).types.to_json() for name in ran}
    assert now != ran  # the edit changes what a re-read prompt would say
    code, _, err = harness(capsys, "merge", *(str(s.run_dir) for s in shards), "--reports", str(tmp_path / "m"),
                           "--run-id", "run", "--suite", str(recorded.path))
    assert code == 0, err
    merged = summary_of(tmp_path / "m" / "towns" / "run")
    assert {name: v["entity_types"] for name, v in merged["variants"].items()} == ran


def test_shards_of_a_suite_with_a_variant_case_list_merge_with_nothing_missing(project, server, api_key, tmp_path,
                                                                               capsys):
    """A variant that lists its cases (`cases:`) is expected, in the merge, on those cases only."""
    from .reports.helpers import set_suite

    suite = set_suite(project, variants={"default": {"prompt": "prompts/default.txt"},
                                         "tuned": {"prompt": "prompts/tuned.txt", "cases": ["fair"]}})
    record_cassettes(suite, server, tmp_path)
    shards = [replay(suite, tmp_path / "shards", f"shard-{i}", shard=(i, 2))[0] for i in (1, 2)]
    assert sorted((r.variant, r.case_id) for s in shards for r in s.results) == [
        ("default", "fair"), ("default", "flood"), ("default", "mayor"), ("tuned", "fair")]
    code, out, err = harness(capsys, "merge", *(str(s.run_dir) for s in shards), "--reports", str(tmp_path / "m"))
    assert code == 0, err
    assert "in no shard" not in err


def test_a_shard_whose_last_row_is_torn_is_refused(recorded, tmp_path, capsys):
    """Issue 28 item 22: a finished shard's torn last row was dropped as a killed run's, and the
    merge (one case short) exited 0, even with --gate."""
    shards = [replay(recorded, tmp_path / "shards", f"shard-{i}", shard=(i, 2))[0] for i in (1, 2)]
    results = shards[1].run_dir / "results.jsonl"
    results.write_bytes(results.read_bytes()[:-40])
    for gate in ((), ("--gate",)):
        code, _, err = harness(capsys, "merge", *(str(s.run_dir) for s in shards), "--reports", str(tmp_path / "m"),
                               *gate)
        assert code == 2 and err.startswith(f"harness: {results}:") and "not a result row" in err, err
        assert err.count("\n") == 1


def test_merge_never_writes_through_a_link_out_of_the_project(recorded, tmp_path, tmp_path_factory, capsys):
    """Issue 28 item 5: `merge` into a reports folder planted as a link wrote the merged run there."""
    outside = tmp_path_factory.mktemp("outside")
    shards = [replay(recorded, tmp_path / "reports", f"shard-{i}", shard=(i, 2))[0] for i in (1, 2)]
    (tmp_path / "merged").symlink_to(outside)
    (tmp_path / "reports" / "towns" / "m").symlink_to(outside)
    for reports in (("--reports", "merged"), ()):
        code, _, err = harness(capsys, "merge", *(str(s.run_dir.relative_to(tmp_path)) for s in shards), *reports,
                               "--run-id", "m")
        assert code == 2 and "outside the project folder" in err, err
    assert list(outside.iterdir()) == []


@pytest.mark.slow
def test_merge_gate_refuses_a_default_baseline_scored_on_other_gold(recorded, project, tmp_path, capsys):
    """As `harness run --gate`: the merged run is written, and --gate exits 2 naming the changed case."""
    from harness.suites import load_suite

    full, _ = replay(recorded, tmp_path / "reports", "full")
    code, _, err = harness(capsys, "baseline", "update", str(full.run_dir))
    assert code == 0, err
    text = project.read_text(encoding="utf-8")
    assert "name: Lowbridge\n    type: geo\n" in text
    project.write_text(text.replace("name: Lowbridge\n    type: geo\n", "name: Lowbridge\n    type: town\n", 1),
                       encoding="utf-8")
    changed = load_suite(project)
    shards = [replay(changed, tmp_path / "reports", f"s{i}", shard=(i, 2))[0] for i in (1, 2)]
    code, out, err = harness(capsys, "merge", *(str(s.run_dir) for s in shards), "--run-id", "m", "--gate")
    assert code == 2, out + err
    assert "gold changed for 1 of 3 case(s) (mayor) since the baseline was scored" in err
    assert (tmp_path / "reports" / "towns" / "m" / "summary.json").exists()
    code, out, err = harness(capsys, "merge", *(str(s.run_dir) for s in shards), "--run-id", "m2")
    assert code == 0, err
    assert "baseline not used: " in out
