"""`harness audit-cache`: the readable table with totals, --json rows plus totals, --engine."""

from __future__ import annotations

import json
from pathlib import Path

from harness.cli import main


def test_table_has_totals_per_kind_and_model_and_no_json(caches: Path, capsys) -> None:
    assert main(["audit-cache", str(caches)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("29 cache entries (graphrag-0.x 7, graphrag-2.x 7, graphrag-3.x 7, lightrag 8)")
    assert lines[1] == "skipped 6 file(s): 3 in .git/, 1 JSON that is no cache entry, 1 binary, 1 not JSON"
    assert lines[3].split()[:2] == ["kind", "entries"]
    totals = [line for line in lines if line.startswith("total ")]
    assert len(totals) == 2  # one under the kind table, one under the model table
    # total: 29 entries, 27 ok, engine 12/10, ours 15/11, lost 4, lost at seams 1, fallbacks 6, 10 with problems
    assert totals[0].split() == ["total", "29", "27", "12/10", "15/11", "4", "1", "6", "10"]
    assert not any(line.lstrip().startswith("{") for line in lines)  # no JSON rows cut short
    worst = lines.index(next(line for line in lines if line.startswith("worst entries")))
    assert "lightrag/kv_store_llm_response_cache.json#default:extract:b2c3" in lines[worst + 1]


def test_json_rows_are_whole_and_end_with_totals(caches: Path, capsys) -> None:
    assert main(["audit-cache", str(caches), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 30 and "totals" in rows[-1]
    assert rows[-1]["totals"]["all"]["entries"] == 29 and rows[-1]["skipped"]["in .git/"] == 3
    long = next(r for r in rows[:-1] if r["kind"] == "report")
    assert set(long) >= {"id", "engine", "layout", "kind", "model", "problems", "findings", "parsed", "engine_kept",
                         "recovered", "lost_silently", "weight_fallbacks"}


def test_bad_engine_and_missing_folder_are_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["audit-cache", str(tmp_path), "--engine", "graphrag-9"]) == 2
    assert main(["audit-cache", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("harness: --engine: 'graphrag-9' is not one of graphrag-0.x")
    assert err[1].endswith("nope: not found")


def test_an_empty_folder_says_so(tmp_path: Path, capsys) -> None:
    assert main(["audit-cache", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{tmp_path}: 0 cache entries (none)"]


def test_audit_and_query_checks_stay_light(tmp_path: Path) -> None:
    """audit-cache and the query formats of parse load no SDK and none of the heavy libraries
    (a fresh interpreter, as tests/test_startup.py does)."""
    import os
    import subprocess
    import sys

    heavy = ("openai", "vcr", "httpx", "pandas", "matplotlib", "scipy", "networkx")
    answer = tmp_path / "map.json"
    answer.write_text('{"points": []}')
    caches = Path(__file__).resolve().parents[1] / "fixtures" / "caches"
    code = (f"from harness.cli import main\nmain(['audit-cache', {str(caches)!r}])\n"
            f"main(['parse', {str(answer)!r}, '--format', 'map'])\nimport sys\n"
            f"print(sorted(m for m in {heavy!r} if m in sys.modules))")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON"))}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr
