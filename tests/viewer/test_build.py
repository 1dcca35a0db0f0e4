"""The site's files: the index (per-run figures only), data files reused while their run is
unchanged, stale ones removed, and no run or case id able to become markup or script."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from harness.model import CaseResult
from harness.runfolder import RESULTS, read_rows, read_summary, write_artifact, write_results
from harness.viewer.build import CSP, build_site, data_script


def _reports(runs_project: Path, tmp_path: Path) -> Path:
    reports = tmp_path / "reports"
    shutil.copytree(runs_project / "reports", reports)
    return reports


def _index(out: Path) -> dict:
    page = (out / "index.html").read_text(encoding="utf-8")
    found = re.search(r"<script type='application/json' id='view-index'>(.*?)</script>", page, re.S)
    assert found
    return json.loads(found.group(1))


def _copy_run(reports: Path, source: str, run_id: str, *, cases: int | None = None) -> None:
    """A run like `source` named `run_id`; with `cases`, its rows repeated under new case ids."""
    src, dst = reports / "podcast" / source, reports / "podcast" / run_id
    shutil.copytree(src, dst)
    summary = read_summary(src)
    summary = summary.model_copy(update={"run_id": run_id, "created_at": summary.created_at.replace("T", "T") + "Z" + run_id})
    write_artifact(dst / "summary.json", summary)
    if cases is not None:
        rows = read_rows(src)
        many: list[CaseResult] = [rows[i % len(rows)].model_copy(update={"case_id": f"case-{i:05d}"}) for i in range(cases)]
        write_results(dst / RESULTS, many)


def test_index_holds_runs_figures_and_pairs_and_the_page_its_policy(runs_project, tmp_path):
    reports = _reports(runs_project, tmp_path)
    result = build_site(reports, tmp_path / "view")
    index = _index(tmp_path / "view")
    suite = index["suites"][0]
    assert suite["name"] == "podcast" and [run["id"] for run in suite["runs"]] == ["r1", "r2"]
    assert [m["name"] for m in suite["metrics"]][:2] == ["entity_recall", "relationship_recall"]
    assert [(p["a"], p["b"]) for p in suite["pairs"]] == [("r1", "r2")]
    assert (result.runs, result.pairs, result.written, result.reused) == (2, 1, 3, 0)
    page = (tmp_path / "view" / "index.html").read_text(encoding="utf-8")
    assert f'content="{CSP}"' in page and "<script src='view.js'></script>" in page
    assert "'unsafe-inline'" not in CSP.split("script-src")[1].split(";")[0]
    for entry in suite["runs"] + suite["pairs"]:
        assert (tmp_path / "view" / entry["data"]).is_file()


def test_rebuild_reuses_unchanged_runs_and_computes_only_what_is_new(runs_project, tmp_path):
    reports = _reports(runs_project, tmp_path)
    out = tmp_path / "view"
    build_site(reports, out)
    again = build_site(reports, out)
    assert (again.written, again.reused, again.removed) == (0, 3, 0)
    _copy_run(reports, "r2", "r3")
    third = build_site(reports, out)
    assert (third.written, third.reused) == (2, 3)  # r3's data and the pair r2 -> r3
    shutil.rmtree(reports / "podcast" / "r1")
    fourth = build_site(reports, out)
    assert fourth.removed == 2  # r1's data and the pair r1 -> r2
    assert sorted(p.name.split("-")[0] for p in (out / "data").iterdir()) == ["pair", "run", "run"]


def test_every_run_is_paired_with_the_baselines_run_too(runs_project, tmp_path, capsys):
    from harness.cli import main

    reports = _reports(runs_project, tmp_path)
    _copy_run(reports, "r2", "r3")
    assert main(["baseline", "update", str(reports / "podcast" / "r1")]) == 0
    capsys.readouterr()
    build_site(reports, tmp_path / "view")
    suite = _index(tmp_path / "view")["suites"][0]
    assert suite["baseline"]["run"] == "r1"
    assert sorted((p["a"], p["b"]) for p in suite["pairs"]) == [("r1", "r2"), ("r1", "r3"), ("r2", "r3")]


def test_index_size_does_not_grow_with_cases(runs_project, tmp_path):
    """The index holds per-run figures only: a run of 2,000 cases adds what a run of 12 adds."""
    small, large = tmp_path / "small", tmp_path / "large"
    for reports, cases in ((small, None), (large, 2000)):
        shutil.copytree(runs_project / "reports", reports)
        _copy_run(reports, "r1", "r3", cases=cases)
    size_small = build_site(small, tmp_path / "view-small").index_bytes
    size_large = build_site(large, tmp_path / "view-large").index_bytes
    assert size_small == size_large
    assert size_large < 12_000  # three runs of one variant: about 1 KB a run besides the page


def test_data_script_cannot_be_broken_out_of():
    hostile = {"case": "</script><script>alert(1)</script>\u2028", "entities": [["k", "\"); alert(2); (\"", ""]]}
    text = data_script("run-abc", hostile)
    assert text.startswith('harnessView.loaded("run-abc",') and text.endswith(");\n")
    assert "</script>" not in text and "\u2028" not in text and text.isascii()
    assert json.loads(text[len('harnessView.loaded("run-abc",'):-3]) == hostile


def test_hostile_ids_stay_inert_in_the_index(runs_project, tmp_path):
    reports = _reports(runs_project, tmp_path)
    summary_path = reports / "podcast" / "r2" / "summary.json"
    data = json.loads(summary_path.read_text(encoding="utf-8"))
    data["variants"]["default"]["model"] = "</script><script>alert(1)</script>"
    summary_path.write_text(json.dumps(data), encoding="utf-8")
    build_site(reports, tmp_path / "view")
    page = (tmp_path / "view" / "index.html").read_text(encoding="utf-8")
    assert page.count("</script>") == 2  # the index block's and view.js's, nothing from the data
    assert _index(tmp_path / "view")["suites"][0]["runs"][1]["series"][0]["model"].startswith("</script>")


def test_each_run_carries_the_commit_it_was_started_at(runs_project, tmp_path):
    commits = (runs_project / "commits.txt").read_text(encoding="utf-8").split("\n")
    reports = _reports(runs_project, tmp_path)
    build_site(reports, tmp_path / "view")
    runs = _index(tmp_path / "view")["suites"][0]["runs"]
    assert [run["commit"] for run in runs] == [commit or None for commit in commits]
    if shutil.which("git"):
        assert commits[0] and commits[1] and commits[0] != commits[1]
