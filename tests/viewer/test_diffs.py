"""Graph diffs `harness diff --json` wrote into <reports>/diffs/: listed, or skipped with a reason."""

from __future__ import annotations

import json
import shutil

from harness.cli import main
from harness.viewer.build import build_site
from harness.viewer.diffs import diff_entry, find_diffs


def _diff_json(runs_project, reports, capsys) -> dict:
    run = reports / "podcast"
    capsys.readouterr()
    assert main(["diff", f"{run / 'r1'}:default", f"{run / 'r2'}:default", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_real_diff_is_listed_and_its_data_written(runs_project, tmp_path, capsys):
    reports = tmp_path / "reports"
    shutil.copytree(runs_project / "reports", reports)
    data = _diff_json(runs_project, reports, capsys)
    (reports / "diffs").mkdir()
    (reports / "diffs" / "prompt-change.json").write_text(json.dumps(data), encoding="utf-8")
    (reports / "diffs" / "other.json").write_text('{"format_version": 2}', encoding="utf-8")
    found, skipped = find_diffs(reports)
    assert [diff.name for diff in found] == ["prompt-change"]
    assert len(skipped) == 1 and skipped[0][0].endswith("other.json") and "format_version 2" in skipped[0][1]
    entry = diff_entry(found[0])
    assert entry["entities"] == [data["entities"]["count_a"], data["entities"]["count_b"]]
    assert entry["a"] == data["a"]["label"]
    result = build_site(reports, tmp_path / "view")
    assert any(path.endswith("other.json") for path, _ in result.skipped)
    assert len(list((tmp_path / "view" / "data").glob("diff-*.js"))) == 1


def test_no_diffs_folder_is_no_diff(tmp_path):
    assert find_diffs(tmp_path) == ([], [])
