"""The checks stay linear on pathological model output (issue 13.2)."""

from __future__ import annotations

import pytest

from harness.checks import check_citations, check_completion, find_citations
from harness.formats.report import report_from_text
from tests.support.growth import Repeat, assert_linear


@pytest.mark.slow
def test_citation_with_a_long_run_of_spaces_and_no_parenthesis() -> None:
    # The dataset-name pattern backtracked over the whole body from every position.
    assert_linear(find_citations, Repeat(" ", "[Data: a", "]"), 20_000)


@pytest.mark.slow
def test_citation_with_many_words_and_no_parenthesis() -> None:
    assert_linear(find_citations, Repeat("word ", "[Data: ", "]"), 10_000)


@pytest.mark.slow
def test_many_citation_openers() -> None:
    assert_linear(check_citations, Repeat("[Data: "), 8_000)


@pytest.mark.slow
def test_report_of_open_braces() -> None:
    assert_linear(report_from_text, Repeat("{"), 10_000)


@pytest.mark.slow
def test_many_completion_marks() -> None:
    assert_linear(check_completion, Repeat("<|COMPLETE|>"), 500)


def test_deep_nesting_does_not_raise() -> None:
    for opener in ("[", "{", '{"findings":', '{"points":['):
        report_from_text(opener * 100_000)
        check_citations(opener * 100_000)


@pytest.mark.slow
def test_citation_opener_followed_by_spaces_and_no_closer() -> None:
    assert_linear(find_citations, Repeat(" ", "[Data:"), 20_000)


@pytest.mark.slow
def test_many_date_ranges_and_their_openers() -> None:
    """GraphRAG's `Date_Range ((...), (...))` is read apart from the ids (issue 28): linear too."""
    assert_linear(find_citations, Repeat("Date_Range ((2000, 01, 01), (2000, 07, 12)), ", "[Data: Sources (1), ", "]"),
                  2_000)
    assert_linear(find_citations, Repeat("Date_Range ((", "[Data: ", "]"), 4_000)
