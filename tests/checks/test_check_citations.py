from __future__ import annotations

import json

from harness.checks import check_citations, citation_issues, find_citations


def codes(issues) -> list[str]:  # type: ignore[no-untyped-def]
    return [i.code for i in issues]


def test_parse_standard_reference() -> None:
    (c,) = find_citations("Text [Data: Entities (5, 7); Relationships (23, 41, 8, 2, 9, +more)].")
    assert [(r.dataset, r.ids, r.more) for r in c.references] == [
        ("Entities", ["5", "7"], False),
        ("Relationships", ["23", "41", "8", "2", "9"], True),
    ]
    assert not c.malformed


def test_tolerant_parsing() -> None:
    (c,) = find_citations("[Data: Entities(1), Relationships (2, 3,+more), (4)]")
    assert [(r.dataset, r.ids, r.more) for r in c.references] == [
        ("Entities", ["1"], False),
        ("Relationships", ["2", "3"], True),
        ("Relationships", ["4"], False),
    ]
    (d,) = find_citations("[Data: Reports (1, 2, 64+more)]")
    assert d.references[0].ids == ["1", "2", "64"] and d.references[0].more


def test_clean_citations_have_no_issues() -> None:
    assert citation_issues("a [Data: Reports (1, 2, 3, 4, 5, +more)] b [Data: Sources (2)]") == []


def test_too_many_ids_without_more() -> None:
    issues = citation_issues("[Data: Relationships (1, 2, 3, 4, 5, 6)]")
    assert codes(issues) == ["citation-too-many-ids"]
    assert issues[0].excerpt == "[Data: Relationships (1, 2, 3, 4, 5, 6)]"


def test_unknown_dataset_and_configurable_list() -> None:
    assert codes(citation_issues("[Data: Transcripts (1)]")) == ["citation-unknown-dataset"]
    assert citation_issues("[Data: Transcripts (1)]", allowed_datasets=["Transcripts"]) == []
    assert citation_issues("[Data: entities (1)]") == []  # case does not matter


def test_ids_absent_from_context() -> None:
    text = "[Data: Entities (1, 2); Relationships (7)]"
    assert codes(citation_issues(text, context_ids={"Entities": [1, 2], "Relationships": ["7"]})) == []
    assert codes(citation_issues(text, context_ids={"Entities": [1]})) == ["citation-unknown-id"]
    assert codes(citation_issues(text, context_ids=[1, 2])) == ["citation-unknown-id"]
    assert codes(citation_issues("[Data: Reports (3-5)]", context_ids=[3, 4])) == ["citation-unknown-id"]


def test_bad_ids_and_malformed() -> None:
    assert codes(citation_issues("[Data: Entities (abc)]")) == ["citation-bad-id"]
    assert codes(citation_issues("[Data: see the entities]")) == ["citation-malformed"]


def test_missing() -> None:
    # an answer without any [Data: ...] block, as `harness citations` reads it (answer_citations)
    assert [i.code for i in check_citations("no refs here").issues] == ["citation-missing"]
    assert check_citations("[Data: Entities (1)]").issues == []


def _report(findings: list[str]) -> str:
    return json.dumps(
        {
            "title": "T",
            "summary": "S",
            "rating": 3,
            "rating_explanation": "r",
            "findings": [{"summary": f"s{i}", "explanation": e} for i, e in enumerate(findings)],
        }
    )


def test_check_citations_report_mode() -> None:
    out = check_citations(_report(["x [Data: Entities (1)]", "no reference", "y [Data: Stuff (1, 2, 3, 4, 5, 6)]"]))
    assert out.mode == "report"
    assert sorted(i.code for i in out.issues) == [
        "citation-missing", "citation-too-many-ids", "citation-unknown-dataset",
    ]
    assert out.ok is False
    json.dumps(out.to_json())


def test_check_citations_text_mode() -> None:
    out = check_citations("The answer [Data: Reports (1, 2)].", context_ids={"Reports": [1, 2]}).to_json()
    assert out == {
        "mode": "text",
        "citations": [
            {
                "text": "[Data: Reports (1, 2)]",
                "start": 11,
                "end": 33,
                "references": [{"dataset": "Reports", "ids": ["1", "2"], "more": False}],
            }
        ],
        "issues": [],
        "ok": True,
    }
    assert check_citations("No references.").issues[0].code == "citation-missing"
