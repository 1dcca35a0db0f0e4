

def test_json_number_reads_scores_as_the_query_phase_does() -> None:
    from harness.parsing.fields import json_number

    assert [json_number(v) for v in (80, 7.5, " 60 ", "high", True, None, [1])] == [80.0, 7.5, 60.0, None, None, None, None]


def test_a_strength_that_is_no_finite_number_is_not_a_strength() -> None:
    """Issue 28 item 12: a 5,000-digit strength read as inf (or `nan`, `inf` as written) is no
    strength: it was kept as one and broke the figures that weigh edges."""
    from harness.parsing.fields import parse_strength

    for raw in ("9" * 5000, "nan", "inf", "-Infinity", "(" + "9" * 400 + ")", "9" * 400 + "/10"):
        assert parse_strength(raw) == (None, "invalid"), raw
    assert parse_strength("8") == (8.0, "ok") and parse_strength("(7)") == (7.0, "repaired")


def test_a_json_answer_keeps_its_records_around_huge_numbers() -> None:
    from harness.formats.answer import parse

    big = "9" * 5000
    text = ('{"entities": [{"name": "A", "type": "person", "description": "d", "weight": ' + big + '}, '
            '{"name": "B", "type": "person", "description": "d"}], '
            '"relationships": [{"source": "A", "target": "B", "description": "knows", "strength": ' + big + '}]}')
    result = parse(text, "json")
    assert [e.name for e in result.graph.entities] == ["A", "B"]
    assert [(r.source, r.target, r.strength) for r in result.graph.relationships] == [("A", "B", None)]
    assert "strength-invalid" in {issue.code for issue in result.format_report.issues}
