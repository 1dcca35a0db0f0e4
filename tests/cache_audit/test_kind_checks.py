"""Each kind read with its own parser."""

from __future__ import annotations

import pytest

from harness.cache_audit.classify import Kind
from harness.cache_audit.entry import CacheEntry
from harness.cache_audit.kind_checks import audit_entry, engine_loop_reading, summary_names, summary_word_limit


def _audit(kind: str, answer: str, engine: str = "graphrag-3.x", request: str | None = None, query_kind: str | None = None):
    entry = CacheEntry(id="x", engine=engine, layout="t", answer=answer, request=request)
    return audit_entry(entry, Kind(kind, "test", query_kind))


def test_summary_names_from_both_engines_prompts() -> None:
    assert summary_names('Entities: "ALICE"\nDescription List: []') == ["ALICE"]
    assert summary_names('Entities: ["A", "B"]\n') == ["A", "B"]
    assert summary_names("---Data---\nEntity Name: Alan Turing\nDescription List:") == ["Alan Turing"]
    assert summary_names(None) == [] and summary_names("no name line") == []
    assert summary_word_limit("Limit the final description length to 120 words.") == 120
    assert summary_word_limit(None) == 500


def test_a_summary_is_prose_in_any_language() -> None:
    assert _audit("summary", "东京是日本的首都。", request='Entities: "东京"').parsed_ok
    bad = _audit("summary", '("entity"<|>TOKYO<|>GEO<|>x)', request='Entities: "OSAKA"')
    # read as prose: what it says is wrong (content findings), not that it could not be read
    assert bad.parsed_ok and not bad.problems
    assert bad.content[0] == "summary-missing-entity" and bad.content[1].startswith("summary-is-records")
    assert _audit("summary", "   ").problems == ["summary-empty"]


@pytest.mark.parametrize(("engine", "answer", "reads_yes"), [
    ("graphrag-0.x", "YES", True), ("graphrag-0.x", "Y", False), ("graphrag-2.x", "Y", True),
    ("graphrag-3.x", "Y\n", False), ("lightrag", ' "Yes" ', True), ("lightrag", "y", False),
])
def test_loop_answers_as_each_engine_reads_them(engine: str, answer: str, reads_yes: bool) -> None:
    assert engine_loop_reading(engine, answer) is reads_yes


def test_the_stored_loop_prompt_says_which_answer_means_yes() -> None:
    # GraphRAG 1.0.x (fnllm layout) still asked for YES or NO; 1.1 and later for Y or N
    asks_yes = "It appears some entities may have still been missed.  Answer YES {tuple_delimiter} NO if there are still entities that need to be added.\n"
    asks_y = "It appears some entities may have still been missed.  Answer Y or N if there are still entities that need to be added.\n"
    assert engine_loop_reading("graphrag-1.x", "YES", asks_yes) and not engine_loop_reading("graphrag-1.x", "Y", asks_yes)
    assert engine_loop_reading("graphrag-1.x", "Y", asks_y) and not engine_loop_reading("graphrag-1.x", "YES", asks_y)


def test_loop_problems() -> None:
    assert _audit("loop", "N").parsed_ok
    misread = _audit("loop", "Y\n")  # read as yes; the engine reads it as no: an engine finding
    assert misread.parsed_ok and misread.findings[0].startswith("loop-misread")
    assert _audit("loop", "There are more entities.").problems[0].startswith("loop-not-y-n")


def test_query_answers() -> None:
    assert _audit("query", '{"points": [{"description": "x [Data: Reports (1)]", "score": 5}]}', query_kind="map").parsed_ok
    assert _audit("query", '{"high_level_keywords": ["a"]}', engine="lightrag", query_kind="keywords").problems == [
        "query-missing-field: no list low_level_keywords"]
    assert _audit("query", "  ", engine="lightrag", query_kind="mix").problems == ["query-empty: the answer is empty"]


def test_unknown_kind_is_a_problem() -> None:
    assert _audit("unknown", "prose").problems[0].startswith("kind-unknown")


def _report(findings: int) -> str:
    listed = ", ".join(f'{{"summary": "s{n}", "explanation": "e{n}"}}' for n in range(findings))
    return f'{{"title": "T", "summary": "S", "rating": 5.0, "rating_explanation": "R", "findings": [{listed}]}}'


def test_a_content_finding_does_not_make_an_entry_look_unparsed() -> None:
    """Issue 27, item 9: 66 of 80 real reports had 4 findings where the prompt asks 5-10 and
    showed as not parsed. They are parsed, with a content finding; a parse problem stays one."""
    four = _audit("report", _report(4))
    assert four.parsed_ok and not four.problems and four.content == ["report-findings-count"]
    five = _audit("report", _report(5))
    assert five.parsed_ok and not five.content and not five.problems
    broken = _audit("report", '{"title": "T", "findings": ')
    assert not broken.parsed_ok and broken.problems


REPORT_CONTEXT = """-----Entities-----
human_readable_id,title,description,degree
1,GEARLOOSE,Robotics startup,2


-----Relationships-----
human_readable_id,source,target,description,combined_degree
7,OMAR HADDAD,GEARLOOSE,Haddad founded Gearloose,3
"""


def _citing_report(cite: str) -> str:
    import json

    finding = {"summary": "s", "explanation": f"Omar Haddad founded Gearloose. {cite}"}
    return json.dumps({"title": "t", "summary": "s [Data: Entities (1)]", "rating": 3, "rating_explanation": "r",
                       "findings": [finding] * 5})


def test_a_report_citing_records_its_community_does_not_hold_is_a_content_finding() -> None:
    """Issue 28: a real report cited relationships 37-41 (GraphRAG's example) of a community with one."""
    request = f"-Real Data-\nText:\n{REPORT_CONTEXT}\nOutput:"
    audit = _audit("report", _citing_report("[Data: Relationships (37, 38, 39, 40, 41,+more)]"), request=request)
    assert audit.parsed_ok and audit.content == [
        "citation-unknown-id: 25 cited id(s) that the community's tables do not hold (Relationships 25)"]
    assert _audit("report", _citing_report("[Data: Relationships (7)]"), request=request).content == []
    # no stored prompt, or one without the community's tables: nothing to check against
    assert _audit("report", _citing_report("[Data: Relationships (37)]")).content == []
    assert _audit("report", _citing_report("[Data: Relationships (37)]"), request="Write a report.").content == []
