"""score_report: a community report against its context, numbers worked by hand.

The worked example is the one in docs/scoring.md, "Community reports".
"""

from __future__ import annotations

import json

import pytest

from harness.model import GoldCase
from harness.formats.answer import parse
from harness.scoring.report_score import GRAPH_DATASETS, TEXT_UNIT_DATASETS, score_report

CONTEXT = """-----Entities-----
human_readable_id,title,description,degree
1,CORVID SYSTEMS,"Enterprise software company, headquartered in Fallowmere",3
2,TESSELLATE,Company that makes TessDB,2
3,TESSDB,Vector database,1
4,GIDEON MARWICK,Chief executive of Corvid,1


-----Claims-----
human_readable_id,subject_id,type,status,description
0,CORVID SYSTEMS,ACQUISITION,TRUE,Corvid is buying Tessellate


-----Relationships-----
human_readable_id,source,target,description,combined_degree
7,CORVID SYSTEMS,TESSELLATE,"Corvid is acquiring Tessellate for ""1.1 billion"" dollars",5
8,TESSELLATE,TESSDB,Tessellate makes TessDB,3
9,GIDEON MARWICK,CORVID SYSTEMS,Gideon Marwick runs Corvid,4
"""


def finding(summary: str, explanation: str) -> dict[str, str]:
    return {"summary": summary, "explanation": explanation}


def report(**overrides: object) -> dict[str, object]:
    obj: dict[str, object] = {
        "title": "Corvid Systems buys Tessellate",
        "summary": "Corvid Systems is buying Tessellate. [Data: Entities (1, 2); Relationships (7)]",
        "rating": 7.5,
        "rating_explanation": "A large acquisition.",
        "findings": [
            finding("Corvid's deal", "Corvid Systems buys Tessellate for 1.1 billion dollars. [Data: Relationships (7); Claims (0)]"),
            finding("TessDB", "Tessellate makes TessDB. [Data: Entities (3), Relationships (8, 12)]"),
            finding("Leadership", "The chief executive runs Corvid. [Data: Entities (4, 5, 6, 7, 8, 9)]"),
            finding("Sources", "A source says so. [Data: Sources (2)]"),
            finding("Uncited", "Nothing cited here."),
        ],
    }
    obj.update(overrides)
    return obj


def score(obj: object, *, facts: list[str] | None = None, text: str | None = None, context: str = CONTEXT,
          datasets: tuple[str, ...] = GRAPH_DATASETS):  # type: ignore[no-untyped-def]
    answer = text if text is not None else json.dumps(obj)
    graph = parse(answer, "report").graph
    return score_report(GoldCase(id="c", text=context, facts=facts or []), answer, graph, datasets=datasets)


def test_worked_example() -> None:
    s = score(report(), facts=["Corvid Systems buys Tessellate for 1.1 billion dollars", "Gideon Marwick resigned"])
    assert s.schema_ok and s.schema_problems == []
    assert s.rating == 7.5 and s.rating_in_range is True
    assert s.findings == 5 and s.findings_in_range is True
    # references: summary 2 (Entities, Relationships) + finding 1: 2 + finding 2: 2 + finding 3: 1
    # + finding 4: 1 = 8
    assert s.references == 8
    # ids: summary 1, 2, 7 (3) + f1 7, 0 (2) + f2 3, 8, 12 (3) + f3 4..9 (6) + f4 2 (1) = 15
    assert s.citations == 15
    # invalid: Relationships 12 (not in the table), Entities 5, 6, 7, 8, 9 (entities are 1-4),
    # Sources 2 (not a dataset of a graph report) = 7
    assert s.citations_invalid == 7
    assert s.overlong_references == 1  # Entities (4, 5, 6, 7, 8, 9): six ids, no +more
    assert s.unknown_datasets == 1  # Sources
    # findings with a valid id: f1 (7, 0), f2 (3, 8), f3 (4); not f4 (Sources) nor f5 (none) = 3
    assert s.findings_cited == 3
    # CORVID SYSTEMS, TESSELLATE, TESSDB named; GIDEON MARWICK not ("the chief executive")
    assert (s.context_entities, s.entities_covered) == (4, 3)
    # fact 1: {corvid, system, buy, tessellate, 1, billion, dollar}... "buys" -> "buy", all 7 in
    # the report; fact 2: {gideon, marwick, resigned}: none -> 1 of 2
    assert (s.gold_facts, s.gold_facts_found) == (2, 1)


def test_rating_and_findings_out_of_range() -> None:
    s = score(report(rating=11, findings=report()["findings"][:4]))  # type: ignore[index]
    assert s.rating == 11 and s.rating_in_range is False
    assert s.findings == 4 and s.findings_in_range is False
    assert s.schema_ok  # range and count are figures of their own, not schema problems


def test_no_rating_is_not_in_range_nor_out() -> None:
    s = score(report(rating="high"))
    assert s.rating is None and s.rating_in_range is None
    assert not s.schema_ok and s.schema_problems == ["rating high is not a number."]


def test_schema_problems() -> None:
    obj = report()
    del obj["rating_explanation"]
    obj["findings"] = [finding("a", "")] * 5
    s = score(obj)
    assert not s.schema_ok
    assert s.schema_problems[0] == "Missing field 'rating_explanation'."
    assert len(s.schema_problems) == 6  # the missing field and five findings without explanation


def test_extra_field_is_not_a_schema_problem() -> None:
    assert score(report(date="2024-01-01")).schema_ok


def test_fenced_json_is_read() -> None:
    s = score(None, text="```json\n" + json.dumps(report()) + "\n```")
    assert s.schema_ok and s.findings == 5 and s.citations == 15


def test_truncated_answer_fails_the_schema() -> None:
    whole = json.dumps(report())
    cut = whole[: whole.index("Nothing cited")]  # inside the last finding
    s = score(None, text=cut)
    assert not s.schema_ok
    # the cut leaves the last explanation empty: a second problem
    assert s.schema_problems == ["the answer was cut off; its JSON was closed to read it", "Finding 5 has no 'explanation'."]
    assert s.findings == 5  # what the reader recovered


def test_no_report_at_all() -> None:
    s = score(None, text="I cannot write this report.")
    assert not s.schema_ok and s.schema_problems == ["no report object in the answer"]
    assert s.findings == 0 and not s.findings_in_range and s.rating_in_range is None
    assert s.citations == 0 and s.citations_invalid == 0  # the context has tables: 0 of 0 invalid


def test_more_marker_and_ranges() -> None:
    obj = report(summary="All of it [Data: Entities (1, 2, 3, 4, +more); Relationships (7-9)]",
                 findings=[finding("f", "x [Data: Entities (1)]")] * 5)
    s = score(obj)
    assert s.overlong_references == 0  # five ids then +more is the rule
    assert s.citations == 5 + 4 + 3 and s.citations_invalid == 0  # 7-9 spelled out
    assert s.findings_cited == 5


def test_context_without_tables_cannot_check_ids() -> None:
    s = score(report(), context="Corvid Systems buys Tessellate.")
    assert s.citations_invalid is None
    # without tables a finding counts as cited when it cites a known dataset: f1, f2, f3
    assert s.findings_cited == 3
    assert s.context_entities == 0 and s.entities_covered == 0


TEXT_CONTEXT = """----REPORTS-----
community,full_content
4,"# Sub-community

About TessDB."


-----SOURCES-----
id,text,entity_degree
11,"Corvid Systems is buying Tessellate, the maker of TessDB.",6
12,Gideon Marwick announced it.,2
"""


def test_text_unit_reports_cite_sources() -> None:
    obj = report(summary="Corvid buys Tessellate [Data: Sources (11, 12); Reports (4)]",
                 findings=[finding("f", "x [Data: Sources (11)]")] * 4 + [finding("g", "y [Data: Entities (1)]")])
    s = score(obj, context=TEXT_CONTEXT, datasets=TEXT_UNIT_DATASETS)
    # ids: 11, 12, 4 + 11 x4 + 1 = 8; invalid: Entities 1 (not a dataset of a text-unit report)
    assert s.citations == 8 and s.citations_invalid == 1 and s.unknown_datasets == 1
    assert s.findings_cited == 4
    assert s.context_entities == 0  # no Entities table: coverage is undefined, not 0 of 0 covered


@pytest.mark.parametrize("written", ["Tessellate's founder", "TESSELLATE", "tessellate."])
def test_entity_names_normalised(written: str) -> None:
    obj = report(title=written, summary="s", rating_explanation="r",
                 findings=[finding("f", "x")] * 5)
    assert score(obj).entities_covered == 1


# ---------------------------------------------------------------- issue 28: ids the community lacks, example names

def test_invalid_ids_per_dataset_in_the_worked_example() -> None:
    s = score(report())
    # Relationships 12, Entities 5-9, Sources 2 (not a dataset of a graph report)
    assert s.citations_invalid_by_dataset == {"Relationships": 1, "Entities": 5, "Sources": 1}
    assert score(report(), context="Corvid Systems buys Tessellate.").citations_invalid_by_dataset is None


def test_graphrags_example_citations_in_a_community_with_one_relationship() -> None:
    """A real report cited relationships 37-41, copied from GraphRAG's example, in a community with one."""
    context = CONTEXT.split("-----Relationships-----")[0] + (
        "-----Relationships-----\nhuman_readable_id,source,target,description,combined_degree\n"
        "7,CORVID SYSTEMS,TESSELLATE,Corvid is acquiring Tessellate,5\n")
    obj = report(findings=[finding("f", "x [Data: Entities (5), Relationships (37, 38, 39, 40, 41,+more)]")] * 5)
    s = score(obj, context=context)
    assert s.citations_invalid_by_dataset == {"Entities": 5, "Relationships": 25}
    assert s.findings_cited == 0


GRAPHRAG_EXAMPLE = """Entities

human_readable_id,title,description
5,VERDANT OASIS PLAZA,Verdant Oasis Plaza is the location of the Unity March

Relationships

human_readable_id,source,target,description
37,VERDANT OASIS PLAZA,UNITY MARCH,Verdant Oasis Plaza is the location of the Unity March
"""


def test_names_copied_from_the_prompts_example_report() -> None:
    obj = report(title="Verdant Oasis Plaza and Corvid Systems",
                 findings=[finding("f", "The Unity March's route passes Corvid. [Data: Entities (1)]")] * 5)
    answer = json.dumps(obj)
    graph = parse(answer, "report").graph
    s = score_report(GoldCase(id="c", text=CONTEXT), answer, graph, datasets=GRAPH_DATASETS, examples=GRAPHRAG_EXAMPLE)
    assert (s.example_names, s.example_names_found) == (2, ["VERDANT OASIS PLAZA", "UNITY MARCH"])
    # the prompt not known: n/a, not 0
    assert score_report(GoldCase(id="c", text=CONTEXT), answer, graph, datasets=GRAPH_DATASETS).example_names is None
    # a name the community holds is reported, not copied
    held = CONTEXT.replace("4,GIDEON MARWICK", "4,VERDANT OASIS PLAZA")
    s = score_report(GoldCase(id="c", text=held), answer, graph, datasets=GRAPH_DATASETS, examples=GRAPHRAG_EXAMPLE)
    assert s.example_names_found == ["UNITY MARCH"]
