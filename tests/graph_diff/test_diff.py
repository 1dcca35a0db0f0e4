"""`harness diff` on real engine outputs, with figures counted by hand from the answers the
captures were made of (tests/fixtures/engine_captures/README.md, "Graph diffs")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.graph_diff.diff import diff_graphs
from harness.graph_diff.read import read_side

REPO = Path(__file__).resolve().parents[2]
CAPTURES = REPO / "tests" / "fixtures" / "engine_captures"
GRAPHRAG = CAPTURES / "graphrag-2.7.0-diff"
GRAPHRAG_1 = CAPTURES / "graphrag-1.2.0-diff"  # the same answers indexed by GraphRAG 1.2.0 (create_final_* tables)
LIGHTRAG = CAPTURES / "lightrag-1.4.9.11-diff"

# GraphRAG 1.2.0's and 2.7.0's text unit ids of harbour.txt's four units (60 tokens, overlap 12), by their first words
UNIT_1 = "517145e92e44"  # "The harbour authority of Port Meridian approved ..."
UNIT_2 = "0328ad87d5e1"  # ", and financed by the Meridian Infrastructure Fund. Kestrel Logistics will hire ..."
UNIT_3 = "ad85bfea7b51"  # "in March and the first ships ... Critics, including ... Blue Estuary ..."
UNIT_4 = "25d7f8e0465f"  # "Okafor replied that the authority had commissioned ... University of Lindgren."


def _run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["diff", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("outputs", [GRAPHRAG, GRAPHRAG_1], ids=["2.7.0", "1.2.0"])
def test_graphrag_outputs_hand_counted(capsys: pytest.CaptureFixture[str], outputs: Path) -> None:
    data = _run_json(capsys, str(outputs / "before"), str(outputs / "after"))
    ent, rel = data["entities"], data["relationships"]
    # before (capture_graphrag_diff.py ANSWERS["before"]), one node per title over the 4 units:
    # PORT MERIDIAN, AMARA OKAFOR, KESTREL LOGISTICS, ROTTERDAM, MERIDIAN INFRASTRUCTURE FUND (unit 1),
    # TOMAS VARGA, DOCK WORKERS UNION (unit 2), BLUE ESTUARY, SALT MARSHES, OKAFOR (unit 3),
    # UNIVERSITY OF LINDGREN (unit 4) = 11
    # after: PORT MERIDIAN, AMARA OKAFOR, HARBOUR AUTHORITY, KESTREL LOGISTICS, MERIDIAN INFRASTRUCTURE
    # FUND, TOMAS VARGA, VARGA, DOCK WORKERS' UNION, BLUE ESTUARY, UNIVERSITY OF LINDGREN = 10
    assert (ent["count_a"], ent["count_b"]) == (11, 10)
    assert ent["added"] == ["DOCK WORKERS' UNION", "HARBOUR AUTHORITY", "VARGA"]  # 3
    assert ent["removed"] == ["DOCK WORKERS UNION", "OKAFOR", "ROTTERDAM", "SALT MARSHES"]  # 4
    # OKAFOR joins AMARA OKAFOR (person containment), VARGA joins TOMAS VARGA, the apostrophe is
    # normalised away: one group each
    assert ent["merged"] == [{"before": ["AMARA OKAFOR", "OKAFOR"], "after": ["AMARA OKAFOR"],
                              "chunks": [c for c in ent["merged"][0]["chunks"]]}]
    assert [c[:12] for c in ent["merged"][0]["chunks"]] == [UNIT_3, UNIT_4]  # where OKAFOR was
    assert [(g["before"], g["after"]) for g in ent["split"]] == [(["TOMAS VARGA"], ["TOMAS VARGA", "VARGA"])]
    assert [(g["before"], g["after"]) for g in ent["renamed"]] == [(["DOCK WORKERS UNION"], ["DOCK WORKERS' UNION"])]
    assert ent["unexplained_added"] == ["HARBOUR AUTHORITY"]
    assert ent["unexplained_removed"] == ["ROTTERDAM", "SALT MARSHES"]
    assert [(c["title"], c["before"], c["after"]) for c in ent["retyped"]] == [("BLUE ESTUARY", "ORGANIZATION", "GEO")]
    # AMARA OKAFOR's description changed too, but it is in the merged group: counted there
    assert [c["title"] for c in ent["redescribed"]] == ["UNIVERSITY OF LINDGREN"]
    by_type = {row["type"]: (row["a"], row["b"], row["added"], row["removed"], row["retyped_in"], row["retyped_out"])
               for row in ent["by_type"]}
    # GEO: PORT MERIDIAN, ROTTERDAM, SALT MARSHES -> PORT MERIDIAN, BLUE ESTUARY (retyped in)
    assert by_type == {"GEO": (3, 2, 0, 2, 1, 0), "ORGANIZATION": (5, 5, 2, 1, 0, 1), "PERSON": (3, 3, 1, 1, 0, 0)}

    # relationships, unordered pairs: before 8, after 8, in common AMARA OKAFOR-KESTREL LOGISTICS and
    # KESTREL LOGISTICS-MERIDIAN INFRASTRUCTURE FUND
    assert (rel["count_a"], rel["count_b"]) == (8, 8)
    assert len(rel["added"]) == 6 and len(rel["removed"]) == 6
    assert sorted(map(sorted, rel["removed"])) == sorted(map(sorted, [
        ["BLUE ESTUARY", "OKAFOR"], ["BLUE ESTUARY", "SALT MARSHES"], ["DOCK WORKERS UNION", "KESTREL LOGISTICS"],
        ["DOCK WORKERS UNION", "TOMAS VARGA"], ["KESTREL LOGISTICS", "ROTTERDAM"], ["OKAFOR", "UNIVERSITY OF LINDGREN"]]))
    because = {k: sorted(map(sorted, v)) for k, v in rel["removed_because"].items()}
    assert because == {
        "repointed": [["BLUE ESTUARY", "OKAFOR"], ["DOCK WORKERS UNION", "TOMAS VARGA"], ["OKAFOR", "UNIVERSITY OF LINDGREN"]],
        "endpoint_gone": [["BLUE ESTUARY", "SALT MARSHES"], ["KESTREL LOGISTICS", "ROTTERDAM"]],
        "link_gone": [["DOCK WORKERS UNION", "KESTREL LOGISTICS"]],  # both ends still there, unlinked
    }
    because = {k: sorted(map(sorted, v)) for k, v in rel["added_because"].items()}
    assert because == {
        "repointed": [["AMARA OKAFOR", "BLUE ESTUARY"], ["AMARA OKAFOR", "UNIVERSITY OF LINDGREN"],
                      ["DOCK WORKERS' UNION", "TOMAS VARGA"]],
        "endpoint_new": [["AMARA OKAFOR", "HARBOUR AUTHORITY"], ["HARBOUR AUTHORITY", "UNIVERSITY OF LINDGREN"]],
        "link_new": [["KESTREL LOGISTICS", "VARGA"]],
    }
    assert rel["redescribed"] == []

    # per unit: added + removed + retyped + redescribed + links added + removed
    # unit 2: VARGA, DOCK WORKERS' UNION / DOCK WORKERS UNION; 2 links in, 2 out = 7
    # unit 3: - / SALT MARSHES, OKAFOR; BLUE ESTUARY retyped; 1 in, 2 out = 6
    # unit 4: HARBOUR AUTHORITY / OKAFOR; UNIVERSITY OF LINDGREN re-described; 2 in, 1 out = 6
    # unit 1: HARBOUR AUTHORITY / ROTTERDAM; 1 in, 1 out = 4
    ranked = [(c["chunk"][:12], c["changes"], c["entities_a"], c["entities_b"]) for c in data["chunks"]]
    assert ranked == [(UNIT_2, 7, 3, 4), (UNIT_3, 6, 3, 2), (UNIT_4, 6, 2, 3), (UNIT_1, 4, 5, 5)]
    assert data["chunks"][0]["text"].startswith(", and financed by the Meridian Infrastructure Fund.")


def test_graphrag_console_says_where_and_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(GRAPHRAG / "before"), str(GRAPHRAG / "after")]) == 0
    out = capsys.readouterr().out
    assert "Entities: 11 -> 10 (9.1% fewer entities): 3 added, 4 removed" in out
    assert "1 merged, 1 split, 1 renamed" in out
    assert "2 gone, 1 new" in out
    # 7 + 6 + 6 + 4 changes traced to the four units (a change in two units counts in both)
    assert f"where: GEO 3 -> 2; text unit {UNIT_2}… holds 7 of 23 traced changes" in out
    geo = next(line for line in out.splitlines() if line.strip().startswith("GEO"))
    assert geo.split() == ["GEO", "3", "2", "-33.3%", "0", "2", "1/0"]
    units = out.split("Text units that explain most of the change (4 of 4 changed):", 1)[1].splitlines()
    assert units[2].split()[:2] == [UNIT_2 + "…", "7"]
    assert "merged:        AMARA OKAFOR + OKAFOR -> AMARA OKAFOR" in out


def test_an_upgrade_with_the_same_answers_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """GraphRAG 1.2.0 -> 2.7.0 over the same answers: other table names, the same graph."""
    for run in ("before", "after"):
        data = _run_json(capsys, str(GRAPHRAG_1 / run), str(GRAPHRAG / run))
        assert data["a"]["source"] == "GraphRAG output (create_final_entities.parquet, create_final_relationships.parquet)"
        assert data["entities"]["count_a"] == data["entities"]["count_b"] == (11 if run == "before" else 10)
        assert data["entities"]["added"] == data["entities"]["removed"] == data["entities"]["redescribed"] == []
        assert data["relationships"]["added"] == data["relationships"]["removed"] == []
        assert data["chunks"] == [] and data["chunks_cited"] == 4


def test_same_graph_is_no_change() -> None:
    side = read_side(str(GRAPHRAG / "after"))
    diff = diff_graphs(side, read_side(str(GRAPHRAG / "after")))
    assert diff.entities.added == diff.entities.removed == [] and diff.relationships.added == []
    assert diff.entities.redescribed == [] and diff.entities.retyped == [] and diff.chunks == []


def test_csv_and_json_tables_and_0x_names(tmp_path: Path) -> None:
    """The same tables as CSV (list cells as GraphRAG's CSV emitter writes them) and JSON lines,
    and 0.x's `name` column in place of `title`, read into the same graph."""
    pd = pytest.importorskip("pandas")
    entities = pd.read_parquet(GRAPHRAG / "before" / "entities.parquet")
    relationships = pd.read_parquet(GRAPHRAG / "before" / "relationships.parquet")
    csv_dir = tmp_path / "csv" / "output"
    csv_dir.mkdir(parents=True)
    entities.assign(text_unit_ids=entities.text_unit_ids.map(list)).to_csv(csv_dir / "entities.csv", index=False)
    relationships.assign(text_unit_ids=relationships.text_unit_ids.map(list)).to_csv(csv_dir / "relationships.csv", index=False)
    old = tmp_path / "old"
    old.mkdir()
    entities.rename(columns={"title": "name"}).assign(text_unit_ids=entities.text_unit_ids.map(list)).to_json(
        old / "create_final_entities.json", orient="records", lines=True)
    relationships.assign(text_unit_ids=relationships.text_unit_ids.map(list)).to_json(
        old / "create_final_relationships.json", orient="records", lines=True)
    parquet = read_side(str(GRAPHRAG / "before"))
    for folder in (tmp_path / "csv", old):
        other = read_side(str(folder))
        assert other.entities == parquet.entities
        assert {k: (e.source, e.target, e.chunks) for k, e in other.relationships.items()} == \
               {k: (e.source, e.target, e.chunks) for k, e in parquet.relationships.items()}


def test_lightrag_graphml_hand_counted(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run_json(capsys, str(LIGHTRAG / "before"), str(LIGHTRAG / "after"))
    ent, rel = data["entities"], data["relationships"]
    # before (capture_lightrag_diff.py): Mara Lind, Kestrel, Tomas Vey (chunk 1), Osprey, Ines Harrow,
    # Millbrook (chunk 2), Harrow (chunk 3) = 7; after: Tomas Vey and Harrow gone, Arn River new = 6
    assert (ent["count_a"], ent["count_b"]) == (7, 6)
    assert ent["added"] == ["Arn River"] and ent["removed"] == ["Harrow", "Tomas Vey"]
    assert [(g["before"], g["after"]) for g in ent["merged"]] == [(["Harrow", "Ines Harrow"], ["Ines Harrow"])]
    assert [(c["title"], c["before"], c["after"]) for c in ent["retyped"]] == [("Millbrook", "harbour", "location")]
    assert [c["title"] for c in ent["redescribed"]] == ["Kestrel"]  # "A ferry" -> "The ferry Mara Lind pilots"
    # links: 6 -> 5; Harrow-Osprey is Ines Harrow-Osprey under the merged name; Tomas Vey-Kestrel lost
    # its end; Arn River-Millbrook is new; Ines Harrow-Osprey gained chunk 3's description
    assert (rel["count_a"], rel["count_b"]) == (6, 5)
    assert {k: sorted(map(sorted, v)) for k, v in rel["removed_because"].items()} == {
        "repointed": [["Harrow", "Osprey"]], "endpoint_gone": [["Kestrel", "Tomas Vey"]]}
    assert {k: sorted(map(sorted, v)) for k, v in rel["added_because"].items()} == {
        "endpoint_new": [["Arn River", "Millbrook"]]}
    assert [sorted([c["source"], c["target"]]) for c in rel["redescribed"]] == [["Ines Harrow", "Osprey"]]
    # chunk 3 (the river): Arn River / Harrow, Millbrook retyped, 1 link in, 1 out, Ines Harrow-Osprey
    # re-described = 6; chunk 1: Tomas Vey, Kestrel re-described, 1 link out = 3; chunk 2: Millbrook
    # retyped, Kestrel re-described, Ines Harrow-Osprey re-described = 3
    ranked = [(c["text"][:20], c["changes"]) for c in data["chunks"]]
    assert ranked == [("The Arn river floode", 6), ("Mara Lind is the sen", 3), ("a storm, and Mara Li", 3)]


def test_lightrag_kv_stores(capsys: pytest.CaptureFixture[str]) -> None:
    """Working folders without their graph file: names and chunks from the 1.4.9 chunk stores."""
    data = _run_json(capsys, str(CAPTURES / "lightrag-1.4.9.11-workdir"), str(CAPTURES / "lightrag-1.4.9.11-project"))
    assert data["a"]["source"] == "LightRAG working folder (kv_store_entity_chunks.json)"
    # the workdir's canned answer names Mara Lind and Kestrel in each of its 3 chunks; the project's
    # server names Mara, Kestrel and Port with each chunk's hash (Mara 33406b, Kestrel 33406b, ...)
    assert (data["entities"]["count_a"], data["entities"]["count_b"]) == (2, 9)
    assert data["entities"]["removed"] == ["Kestrel", "Mara Lind"]
    assert len(data["entities"]["added"]) == 9
    assert data["relationships"]["removed"] == [["Kestrel", "Mara Lind"]]


@pytest.mark.xdist_group("news-es-replay")
def test_two_runs_hand_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Two replays of the shipped news-es suite, one per variant, one case: the union graphs differ
    as the cassettes' answers do (counted from suites/news-es.yaml's recorded answers)."""
    monkeypatch.chdir(REPO)
    case = "juicio-caso-contenedores"
    for variant, run_id in (("default", "r1"), ("tuned", "r2")):
        assert main(["run", "suites/news-es.yaml", "--variant", variant, "--case", case,
                     "--reports", str(tmp_path), "--run-id", run_id]) == 0
    capsys.readouterr()
    data = _run_json(capsys, str(tmp_path / "news-es" / "r1"), str(tmp_path / "news-es" / "r2") + ":tuned")
    ent, rel = data["entities"], data["relationships"]
    # default: 9 entities (the court, the case, Olmedilla, the prosecutor's office of Valdeserra,
    # LUNSA, Bellido, Montaraz, the town hall, the citizens' association); tuned: 6 (the court
    # "Nº 2", Olmedilla, Limpiezas Urbanas del Norte, Bellido, the prosecutor's office, Montaraz)
    assert (ent["count_a"], ent["count_b"]) == (9, 6)
    assert ent["added"] == ["FISCALÍA PROVINCIAL", "JUZGADO DE LO PENAL Nº 2", "LIMPIEZAS URBANAS DEL NORTE"]
    assert ent["removed"] == ["ASOCIACIÓN CIUDADANA CASTROFRÍO TRANSPARENTE", "AYUNTAMIENTO DE CASTROFRÍO",
                              "CASO CONTENEDORES", "FISCALÍA PROVINCIAL DE VALDESERRA",
                              "JUZGADO DE LO PENAL NÚMERO 2 DE CASTROFRÍO", "LUNSA"]
    # no two names are alike enough to join (LUNSA is Limpiezas Urbanas del Norte only by its acronym)
    assert ent["merged"] == ent["split"] == ent["renamed"] == []
    # person -> persona is one type under the suite's synonyms: not a retype
    assert ent["retyped"] == []
    assert [c["title"] for c in ent["redescribed"]] == ["ARTURO BELLIDO", "FERMÍN OLMEDILLA", "INÉS MONTARAZ"]
    by_type = {row["type"]: (row["a"], row["b"], row["added"], row["removed"]) for row in ent["by_type"]}
    assert by_type == {"organization": (5, 1, 1, 5), "institucion": (0, 2, 2, 0), "event": (1, 0, 0, 1),
                       "person": (3, 3, 0, 0)}
    # 8 links -> 4, none in common: every removed one lost an end, every added one has a new end
    assert (rel["count_a"], rel["count_b"], len(rel["removed"]), len(rel["added"])) == (8, 4, 8, 4)
    assert {k: len(v) for k, v in rel["removed_because"].items()} == {"endpoint_gone": 8}
    assert {k: len(v) for k, v in rel["added_because"].items()} == {"endpoint_new": 4}
    # the one case: 3 + 6 entities, 3 re-described, 4 + 8 links = 24
    assert [(c["chunk"], c["changes"]) for c in data["chunks"]] == [(case, 24)]
    assert data["chunks"][0]["text"].startswith("CASTROFRÍO. El Juzgado de lo Penal")


def test_run_with_several_variants_needs_one(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert main(["run", "suites/news-es.yaml", "--case", "juicio-caso-contenedores", "--reports", str(tmp_path),
                 "--run-id", "both"]) == 0
    capsys.readouterr()
    run = tmp_path / "news-es" / "both"
    assert main(["diff", str(run), str(run)]) == 2
    err = capsys.readouterr().err
    assert "the run has 2 variants (default, tuned); name one as" in err and len(err.strip().splitlines()) == 1
    assert main(["diff", f"{run}:nope", f"{run}:tuned"]) == 2
    assert "no variant 'nope' (have default, tuned)" in capsys.readouterr().err
    data = _run_json(capsys, f"{run}:default", f"{run}:tuned")
    assert (data["entities"]["count_a"], data["entities"]["count_b"]) == (9, 6)


@pytest.mark.parametrize("make, expected", [
    (lambda p: p / "missing", "not found (expected a GraphRAG output folder"),
    (lambda p: (p / "file.txt").write_text("x") and p / "file.txt", "not a folder (expected"),
    (lambda p: p, "none of the graphs harness diff reads is here"),
    (lambda p: (p / "entities.parquet").write_text("not parquet") and p, "relationships table here"),
])
def test_bad_sides_are_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], make, expected: str) -> None:
    path = make(tmp_path)
    assert main(["diff", str(path), str(GRAPHRAG / "after")]) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err and str(path) in err and len(err.splitlines()) == 1


def test_broken_tables_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "entities.parquet").write_text("not parquet")
    (tmp_path / "relationships.parquet").write_text("not parquet")
    assert main(["diff", str(tmp_path), str(GRAPHRAG / "after")]) == 2
    assert "entities.parquet: not a readable parquet file" in capsys.readouterr().err
    (tmp_path / "entities.parquet").unlink()
    (tmp_path / "entities.json").write_text('[{"id": "1", "type": "GEO"}]')
    assert main(["diff", str(tmp_path), str(GRAPHRAG / "after")]) == 2
    assert "entities.json: row 1 has no title (or name) column" in capsys.readouterr().err
    graphml = tmp_path / "lr"
    graphml.mkdir()
    (graphml / "graph_chunk_entity_relation.graphml").write_text("<graphml><node")
    assert main(["diff", str(graphml), str(GRAPHRAG / "after")]) == 2
    assert "graph_chunk_entity_relation.graphml: not a GraphML file" in capsys.readouterr().err


def test_huge_or_special_table_files_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Tables are read as every input is: a regular file of bounded size (a sparse 600 MB
    entities.parquet is refused before pandas sees it; a FIFO never blocks the command)."""
    import os

    from harness.importers.common import MAX_DOCUMENT_BYTES

    (tmp_path / "relationships.parquet").write_bytes((GRAPHRAG / "after" / "relationships.parquet").read_bytes())
    with open(tmp_path / "entities.parquet", "wb") as handle:
        handle.truncate(MAX_DOCUMENT_BYTES + 1)
    assert main(["diff", str(tmp_path), str(GRAPHRAG / "after")]) == 2
    err = capsys.readouterr().err.strip()
    assert "entities.parquet" in err and "larger than" in err and len(err.splitlines()) == 1
    lightrag = tmp_path / "lr"
    lightrag.mkdir()
    os.mkfifo(lightrag / "graph_chunk_entity_relation.graphml")
    assert main(["diff", str(lightrag), str(GRAPHRAG / "after")]) == 2
    assert "none of the graphs harness diff reads is here" in capsys.readouterr().err


def test_json_keys_are_the_documented_ones(capsys: pytest.CaptureFixture[str]) -> None:
    """`harness view` reads this shape (docs/diff.md, format_version 1): keys may be added, with the
    docs, never renamed or removed."""
    data = _run_json(capsys, str(GRAPHRAG / "before"), str(GRAPHRAG / "after"))
    assert set(data) == {"format_version", "a", "b", "entities", "relationships", "chunks", "chunks_cited"}
    assert data["format_version"] == 1
    assert set(data["a"]) == {"label", "kind", "source", "entities", "relationships", "chunks", "chunk_word"}
    assert set(data["entities"]) == {"count_a", "count_b", "added", "removed", "merged", "split", "renamed", "retyped",
                                     "redescribed", "unexplained_added", "unexplained_removed", "by_type"}
    assert set(data["entities"]["merged"][0]) == {"before", "after", "chunks"}
    assert set(data["entities"]["retyped"][0]) == set(data["entities"]["redescribed"][0]) == {"title", "before", "after",
                                                                                              "chunks"}
    assert set(data["entities"]["by_type"][0]) == {"type", "a", "b", "added", "removed", "retyped_in", "retyped_out"}
    assert set(data["relationships"]) == {"count_a", "count_b", "added", "removed", "redescribed", "added_because",
                                          "removed_because"}
    assert all(isinstance(pair, list) and len(pair) == 2 for pair in data["relationships"]["added"])
    assert set(data["chunks"][0]) == {"chunk", "text", "entities_a", "entities_b", "added", "removed", "retyped",
                                      "redescribed", "relationships_added", "relationships_removed",
                                      "relationships_redescribed", "merged", "split", "renamed", "changes"}
    docs = (REPO / "docs" / "diff.md").read_text(encoding="utf-8")
    for key in ("unexplained_removed", "relationships_redescribed", "added_because", "chunks_cited", "chunk_word"):
        assert f'"{key}"' in docs
