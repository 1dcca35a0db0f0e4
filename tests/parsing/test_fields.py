

def test_json_number_reads_scores_as_the_query_phase_does() -> None:
    from harness.parsing.fields import json_number

    assert [json_number(v) for v in (80, 7.5, " 60 ", "high", True, None, [1])] == [80.0, 7.5, 60.0, None, None, None, None]
