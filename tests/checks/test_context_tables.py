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


# ---------------------------------------------------------------- issue 28: every form a citation takes

from harness.checks.citations import (  # noqa: E402
    count_citations,
    dataset_key,
    example_table_names,
    find_citations,
    id_key,
)

ONE_EDGE = """-----Entities-----
human_readable_id,title,description,degree
1,GEARLOOSE,Robotics startup,2
2,OMAR HADDAD,Founder,1

-----Relationships-----
human_readable_id,source,target,description,combined_degree
7,OMAR HADDAD,GEARLOOSE,Founded it,3
"""
GRAPH_DATASETS = ("Entities", "Relationships", "Claims", "Reports")


def test_invalid_ids_are_counted_per_dataset() -> None:
    tables = read_context_tables(ONE_EDGE)
    found = count_citations("[Data: Entities (5), Relationships (37, 38, 39, 40, 41,+more)] [Data: Claims (0); "
                            "Sources (2); Relationships (7)]", tables, GRAPH_DATASETS, checkable=True)
    assert (found.ids, found.valid, found.invalid) == (9, 1, 8)
    assert found.invalid_by_dataset == {"Entities": 1, "Relationships": 5, "Claims": 1, "Sources": 1}
    assert found.unknown_datasets == 1 and found.references == 5
    # without a table to check against, an id of a known dataset counts as valid
    unchecked = count_citations("[Data: Relationships (37); Sources (2)]", tables, GRAPH_DATASETS, checkable=False)
    assert (unchecked.valid, unchecked.invalid_by_dataset) == (1, {"Sources": 1})


def test_graphrags_own_text_report_forms() -> None:
    """`Date_Range ((...), (...))` is no record and `Source (5)` is the Sources dataset: both are
    written by GraphRAG's community_report_text example."""
    [citation] = find_citations("[Data: Sources (2, 3), Date_Range ((2000, 01, 01), (2000, 07, 12))]")
    assert [(r.dataset, r.ids) for r in citation.references] == [("Sources", ["2", "3"])]
    assert citation.date_ranges == ["Date_Range ((2000, 01, 01), (2000, 07, 12))"] and not citation.malformed
    assert dataset_key("Source") == dataset_key("SOURCES") == "sources" and dataset_key("Entity") == "entities"
    tables = read_context_tables("-----SOURCES-----\nid,text\n5,A text\n")
    assert tables.ids_of("Source") == frozenset({"5"})
    found = count_citations("[Data: Source (5), Date_Range ((2000, 04, 01), (2000, 07, 12))]", tables,
                            ("Sources", "Reports"), checkable=True)
    assert (found.ids, found.invalid, found.malformed) == (1, 0, 0)


def test_ids_of_any_length_or_form_are_one_citation_each() -> None:
    huge = "9" * 5000  # past Python's int limit: never read as an int
    tables = read_context_tables(ONE_EDGE)
    for ids, count in [(f"{huge}", 1), (f"1-{huge}", 1), ("41-37", 1), ("1-1000000", 1), ("-1", 1), ("seven", 1),
                       ("37-41", 5), ("007", 0), ("1-2", 0)]:
        dataset = "Entities" if ids == "1-2" else "Relationships"
        found = count_citations(f"[Data: {dataset} ({ids})]", tables, GRAPH_DATASETS, checkable=True)
        assert found.invalid == count, ids
    assert id_key("007") == "7" and id_key("0") == "0" and id_key("٧") == "٧"


def test_names_of_a_report_prompts_worked_example() -> None:
    stock = (REPO / "tests" / "fixtures" / "stock_prompts" / "graphrag-3" / "prompts" / "community_report_graph.txt")
    assert example_table_names(stock.read_text(encoding="utf-8")) == (
        "VERDANT OASIS PLAZA", "HARMONY ASSEMBLY", "UNITY MARCH", "TRIBUNE SPOTLIGHT", "BAILEY ASADI")
    assert example_table_names("Entities\nid,entity,description\n1,HARBOUR SAFETY OFFICE,Regulator\n\n"
                               "Relationships\nid,source,target\n4,HARBOUR SAFETY OFFICE,BRIGHTWATER SHIPPING\n") == (
        "HARBOUR SAFETY OFFICE", "BRIGHTWATER SHIPPING")
    assert example_table_names("No tables here. Entities are people.") == ()


def test_a_cell_longer_than_the_csv_modules_limit_is_read():
    """Issue 28 item 14: a description over 128 KiB in a context table raised `_csv.Error`."""
    long = "w" * (200 * 1024)
    text = f"-----Entities-----\nid,entity,description\n7,ANA,{long}\n8,BO,short\n"
    tables = read_context_tables(text)
    assert tables.ids["entities"] == frozenset({"7", "8"}) and tables.entity_names == ("ANA", "BO")
