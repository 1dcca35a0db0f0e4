"""read_context_tables: the ids and entity names of a community context in GraphRAG's layout."""

from __future__ import annotations

from pathlib import Path

from harness.checks.citations import expand_ids, read_context_tables

REPO = Path(__file__).resolve().parents[2]

GRAPH = """----Reports-----
community,full_content
5,"# Old report
with, commas"

-----Entities-----
human_readable_id,title,description,degree
12,CORVID SYSTEMS,"Enterprise software company, in Fallowmere",6
13,TESSELLATE,"Makes ""TessDB""
over two lines",4


-----Claims-----
human_readable_id,subject_id,type,status,description
3,CORVID SYSTEMS,ACQUISITION,TRUE,Buying Tessellate


-----Relationships-----
human_readable_id,source,target,description,combined_degree
30,CORVID SYSTEMS,TESSELLATE,Corvid is acquiring Tessellate,10
31.0,TESSELLATE,TESSDB,Tessellate makes TessDB,5
"""


def test_graph_context() -> None:
    t = read_context_tables(GRAPH)
    assert t.ids == {"reports": {"5"}, "entities": {"12", "13"}, "claims": {"3"}, "relationships": {"30", "31"}}
    assert t.entity_names == ("CORVID SYSTEMS", "TESSELLATE")  # quoted fields with commas, quotes, line breaks
    assert t.ids_of("Relationships") == {"30", "31"} and t.ids_of("ENTITIES") == {"12", "13"}
    assert t.ids_of("Sources") is None


def test_text_unit_context() -> None:
    t = read_context_tables("-----SOURCES-----\nid,text,entity_degree\n7,\"Some text, with a comma\",3\n8,More,1\n")
    assert t.ids == {"sources": {"7", "8"}} and t.entity_names == ()


def test_pipe_tables_and_other_id_columns() -> None:
    # the query-time layout (id|entity|description) and a table whose first column is the id
    t = read_context_tables("-----Entities-----\nid|entity|description\n1|ALPHA|a\n\n-----Relationships-----\nrid,source\n9,ALPHA\n")
    assert t.ids == {"entities": {"1"}, "relationships": {"9"}} and t.entity_names == ("ALPHA",)


def test_no_tables() -> None:
    t = read_context_tables("Just prose about Corvid Systems.")
    assert t.ids == {} and t.entity_names == ()


def test_expand_ids() -> None:
    assert expand_ids(["1", "3-5", "x"]) == ["1", "3", "4", "5", "x"]


def test_shipped_report_contexts_have_every_table() -> None:
    folder = REPO / "fixtures" / "chunks" / "podcast-reports"
    paths = sorted(folder.glob("*.txt"))
    assert len(paths) == 5
    for path in paths:
        t = read_context_tables(path.read_text(encoding="utf-8"))
        assert "entities" in t.ids and "relationships" in t.ids, path.name
        # one name per entity row; corvid-tessellate has ten entities, the others nine
        assert len(t.entity_names) == len(t.ids["entities"]) == (10 if path.stem == "corvid-tessellate" else 9)


def test_a_cell_longer_than_the_csv_modules_limit_is_read():
    """Issue 28 item 14: a description over 128 KiB in a context table raised `_csv.Error`."""
    long = "w" * (200 * 1024)
    text = f"-----Entities-----\nid,entity,description\n7,ANA,{long}\n8,BO,short\n"
    tables = read_context_tables(text)
    assert tables.ids["entities"] == frozenset({"7", "8"}) and tables.entity_names == ("ANA", "BO")
