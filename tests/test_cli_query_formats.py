"""`harness parse --format map|drift|rate|summary` (the query-phase checks on the command line)
and `harness citations` on a global-search map answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main

MAP = {"points": [{"description": "Ferries run daily [Data: Reports (1, 2)]", "score": 80},
                  {"description": "No source here", "score": 50},
                  {"description": "I do not know.", "score": 0}]}


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_map_points_and_issues(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answer = _write(tmp_path, "map.json", json.dumps(MAP))
    assert main(["parse", answer, "--format", "map"]) == 1  # point 2 scores 50 and cites nothing
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "format: map; 3 point(s); 1 issue(s)"
    assert lines[1] == "  point 1 (score 80): Ferries run daily [Data: Reports (1, 2)]"
    assert lines[4].startswith("  citation-missing: Point 2 has no [Data: ...] reference.")


def test_map_with_context_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answer = _write(tmp_path, "map.json", json.dumps({"points": [MAP["points"][0]]}))
    context = _write(tmp_path, "context.json", json.dumps({"Reports": [1]}))
    assert main(["parse", answer, "--format", "map", "--context", context, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["format"], out["ok"], [i["code"] for i in out["issues"]]) == ("map", False, ["citation-unknown-id"])
    assert out["answer"] == {"points": [MAP["points"][0]]}
    assert main(["parse", answer, "--format", "map"]) == 0  # without the context, report 2 may be cited


def test_drift_primer_and_local(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    primer = _write(tmp_path, "p.json", '{"intermediate_answer": "A", "score": 70, "follow_up_queries": ["q1", "q2"]}')
    local = _write(tmp_path, "l.json", '{"response": "B", "score": 700, "follow_up_queries": []}')
    assert main(["parse", primer, "--format", "drift"]) == 0
    assert main(["parse", local, "--format", "drift"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "format: drift (primer); score 70; 2 follow-up quer(ies); 0 issue(s)"
    assert lines[2] == "format: drift (local); score 700; 0 follow-up quer(ies); 1 issue(s)"
    assert lines[4].startswith("  query-score-range:")


def test_rate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(tmp_path, "r.json", '```json\n{"reason": "relevant", "rating": 4}\n```')
    assert main(["parse", good, "--format", "rate"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "format: rate; rating 4; 0 issue(s)"
    assert main(["parse", _write(tmp_path, "bad.txt", "four"), "--format", "rate"]) == 1
    assert "query-invalid-json" in capsys.readouterr().out


def test_summary_names_and_length(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chinese = _write(tmp_path, "s.txt", "东京是日本的首都。")
    assert main(["parse", chinese, "--format", "summary", "--entity", "东京"]) == 0
    # 东京是日本的首都 = 8 CJK characters, each a word
    assert capsys.readouterr().out.splitlines() == ["format: summary; 8 word(s); 0 issue(s)"]
    english = _write(tmp_path, "e.txt", "Tokyo is the capital of Japan and its largest city.")
    assert main(["parse", english, "--format", "summary", "--entity", "TOKYO", "--entity", "Osaka", "--max-words", "5", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert sorted(i["code"] for i in out["issues"]) == ["summary-missing-entity", "summary-too-long"]  # 10 words > 5
    assert out["answer"]["words"] == 10


def test_jsonl_rows_may_name_a_query_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"id": "m", "format": "map", "output": json.dumps({"points": [MAP["points"][0]]})},
            {"id": "g", "output": '("entity"<|>A<|>PERSON<|>a)##\n<|COMPLETE|>'}]
    path = _write(tmp_path, "rows.jsonl", "\n".join(json.dumps(r) for r in rows))
    assert main(["parse", "--jsonl", path]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert (first["id"], first["format"], first["ok"]) == ("m", "map", True)
    assert second["id"] == "g" and second["format"] == "graphrag"


def test_query_options_need_their_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answer = _write(tmp_path, "a.txt", "x")
    assert main(["parse", answer, "--entity", "A"]) == 2
    assert main(["parse", answer, "--format", "rate", "--context", answer]) == 2
    assert main(["parse", answer, "--format", "mapp"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "harness: --entity and --max-words go with --format summary"
    assert err[1].startswith("harness: --context goes with --format map")
    assert err[2].startswith("harness: --format: 'mapp' is not one of auto, graphrag")


def test_citations_check_each_map_point_against_the_context(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answer = _write(tmp_path, "map.json", json.dumps(MAP))
    context = _write(tmp_path, "context.json", "[1]")
    assert main(["citations", answer, "--context", context]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "1 citation(s), 2 issue(s); read as a global-search map answer"
    assert lines[1].startswith("  citation-unknown-id: Reports id 2")
    assert lines[2].startswith("  citation-missing: Point 2")  # point 3 scores 0: it need not cite
    assert main(["citations", answer, "--context", _write(tmp_path, "c2.json", '{"Reports": [1, 2]}'), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "map" and [i["code"] for i in out["issues"]] == ["citation-missing"]
