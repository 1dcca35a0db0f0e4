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
    # the g0 cache does not say whether 0.1-0.3.1 or 0.3.2-0.5.x wrote it: the assumption, and the option
    assert lines[2].startswith(str(caches / "graphrag-0" / "cache") + ": GraphRAG 0.x cache;")
    assert lines[2].endswith("audit with --engine graphrag-1.x")
    assert lines[4].split()[:3] == ["kind", "entries", "parsed"]
    totals = [line for line in lines if line.startswith("total ")]
    assert len(totals) == 2  # one under the kind table, one under the model table
    # total: 29 entries, 28 parsed, 0 content findings, engine 12/9, ours 15/11, lost 5, lost at seams 1,
    # fallbacks 6, 9 with engine findings
    assert totals[0].split() == ["total", "29", "28", "0", "12/9", "15/11", "5", "1", "6", "9"]
    assert not any(line.lstrip().startswith("{") for line in lines)  # no JSON rows cut short
    worst = lines.index(next(line for line in lines if line.startswith("worst entries")))
    # the g2 extraction (a relationship written both ways: one edge of 2.x's graph, a weight
    # fallback, a seam loss) comes first, then LightRAG's gleaning with its 2 records lost
    assert "graphrag-2/cache/extract_graph/chat_7a1c" in lines[worst + 1]
    assert "lightrag/kv_store_llm_response_cache.json#default:extract:b2c3" in lines[worst + 5]


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


def test_a_folder_with_no_cache_entry_is_exit_2_naming_it(tmp_path: Path, capsys) -> None:
    """Issue 27, item 9: an audit of a folder holding no cache entry is a wrong path, not a report."""
    assert main(["audit-cache", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"harness: {tmp_path}: no cache entry here"
    (tmp_path / "stats.json").write_text('{"total_runtime": 1}')
    assert main(["audit-cache", str(tmp_path), "--json"]) == 2
    assert capsys.readouterr().err.strip() == (f"harness: {tmp_path}: no cache entry here "
                                               "(skipped 1 file(s): 1 JSON that is no cache entry)")


def test_an_empty_lightrag_store_says_empty(tmp_path: Path, capsys) -> None:
    """Issue 27, item 9: LightRAG's store before its first cached call is empty, not 'no cache entry'."""
    (tmp_path / "kv_store_llm_response_cache.json").write_text("{}")
    assert main(["audit-cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{tmp_path}: 0 cache entries (none)"
    assert "kv_store_llm_response_cache.json: empty (a LightRAG store with no cached call yet)" in out
    assert not any("no cache entry" in line for line in out)


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
