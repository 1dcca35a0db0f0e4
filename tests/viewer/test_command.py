"""`harness view` on the command line."""

from __future__ import annotations

import shutil

from harness.cli import main


def test_view_writes_the_site_beside_the_runs_by_default(runs_project, tmp_path, monkeypatch, capsys):
    shutil.copytree(runs_project / "reports", tmp_path / "reports")
    monkeypatch.chdir(tmp_path)
    assert main(["view"]) == 0
    out = capsys.readouterr().out
    assert "2 run(s) of 1 suite(s), 1 precomputed pair(s)" in out
    assert (tmp_path / "reports" / "view" / "index.html").is_file()
    assert (tmp_path / "reports" / "view" / "view.js").is_file()


def test_view_out_folder_and_skipped_runs_are_said(runs_project, tmp_path, capsys):
    reports = tmp_path / "reports"
    shutil.copytree(runs_project / "reports", reports)
    (reports / "podcast" / "r2" / "summary.json").write_text("[]", encoding="utf-8")
    assert main(["view", str(reports), "--out", str(tmp_path / "site")]) == 0
    captured = capsys.readouterr()
    assert "1 run(s) of 1 suite(s)" in captured.out
    assert captured.err.startswith(f"skipped {reports / 'podcast' / 'r2'}: ")
    assert (tmp_path / "site" / "index.html").is_file()


def test_missing_reports_folder_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["view", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nope: no such reports folder" in err
