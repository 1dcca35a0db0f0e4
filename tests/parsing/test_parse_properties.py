"""Property tests: arbitrary text and mutations of valid answers never raise and keep the
report's counts consistent."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.checks import check_citations, check_completion
from harness.formats.report import report_from_text
from harness.parsing import parse_result_to_json
from harness.formats.answer import FORMATS, parse

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALID = [
    '("entity"<|>MARA OKAFOR<|>person<|>Lighthouse keeper)\n##\n'
    '("relationship"<|>MARA OKAFOR<|>EBBRIN ROCK<|>Keeps the light<|>8)\n<|COMPLETE|>',
    '("entity"<|>"Quillon Ferries"<|>"organization"<|>"Runs boats")##\n("content_keywords"<|>"ferries")<|COMPLETE|>',
    "entity<|#|>Pell Wharf<|#|>location<|#|>A yard\nrelation<|#|>A<|#|>B<|#|>kw<|#|>desc\n<|COMPLETE|>",
    '[{"name": "A", "type": "person", "description": "x"}, {"source": "A", "target": "B", "weight": 3}]',
    '{"title": "T", "summary": "S [Data: Entities (1)]", "rating": 5, "rating_explanation": "r", '
    '"findings": [{"summary": "a", "explanation": "b [Data: Reports (1, 2, +more)]"}]}',
    "(COMPANY A<|>NONE<|>FRAUD<|>TRUE<|>NONE<|>NONE<|>desc<|>source)\n<|COMPLETE|>",
]

# Fragments real answers are made of, so random mixes hit the parser's interesting paths.
FRAGMENTS = st.sampled_from(
    [
        "<|>", "##", "<|COMPLETE|>", "<|complete|>", "<COMPLETE>", "(", ")", "）", "（", ">", '"', "'", "**",
        '("entity"', '("relationship"', "entity<|#|>", "relation<|#|>", "<|#|>", "<think>", "</think>",
        "```json", "```", "\n", "\n\n", "{", "}", "[", "]", ":", ",", "9)", "5>", '7")', "2)**", "8/10",
        "<relationship_strength>", "<entity_name>", "[Data: Entities (1, 2); Relationships(3, +more)]",
        "1. ", "- ", "## Entities", "孙悟空", "Müller", "TRUE", "NONE", "\x00", "\ufeff", "\r\n", "İ",
    ]
)
TEXTS = st.one_of(
    st.text(max_size=400),
    st.lists(st.one_of(FRAGMENTS, st.text(max_size=12)), max_size=40).map("".join),
)


def _consistent(text: str, fmt: str = "auto") -> None:
    r = parse(text, fmt)
    fr = r.format_report
    assert fr.records_parsed + fr.records_dropped <= fr.records_seen or fr.records_seen == 0 or any(
        i.code == "internal-error" for i in fr.issues
    )
    assert fr.records_dropped == sum(1 for i in fr.issues if i.dropped)
    assert not any(i.code == "internal-error" for i in fr.issues), fr.issues
    json.dumps(parse_result_to_json(r))


@SETTINGS
@given(TEXTS, st.sampled_from(FORMATS))
def test_arbitrary_text_never_raises(text: str, fmt: str) -> None:
    _consistent(text, fmt)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(VALID))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["insert", "delete", "truncate", "duplicate", "swapcase"]))
        pos = draw(st.integers(0, len(text)))
        if op == "insert":
            text = text[:pos] + draw(st.one_of(FRAGMENTS, st.text(max_size=5))) + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 10)) :]
        elif op == "truncate":
            text = text[:pos]
        elif op == "duplicate":
            text = text[:pos] + text
        else:
            text = text[:pos] + text[pos:].swapcase()
    return text


@SETTINGS
@given(mutated(), st.sampled_from(FORMATS))
def test_mutated_valid_answers_never_raise(text: str, fmt: str) -> None:
    _consistent(text, fmt)


@SETTINGS
@given(TEXTS)
def test_checks_never_raise(text: str) -> None:
    check_completion(text)
    json.dumps(check_citations(text).to_json())
    report_from_text(text)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20),
            st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=10),
            st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_clean_records_round_trip(rows: list[tuple[str, str, str]]) -> None:
    """Whatever clean values a model writes (no delimiters, quotes or brackets inside), they come
    back exactly."""
    bad = set('<|>#()（）"\'“”‘’「」『』«»`„*_[]{}\n\r\\') | {"\x85", "\u2028", "\u2029"}
    rows = [tuple(v.strip() for v in r) for r in rows]  # type: ignore[misc]
    rows = [r for r in rows if all(v and not (set(v) & bad) for v in r)]
    text = "##\n".join(f'("entity"<|>{n}<|>{t}<|>{d})' for n, t, d in rows) + "\n<|COMPLETE|>"
    r = parse(text, "graphrag")
    got = [(e.name, e.type, e.description) for e in r.graph.entities]
    assert got == rows


_CLEAN_VALUE = st.sampled_from(["Ab", "x y", "(ETH)", "a (b", "C#", "7", "孙悟空", "Müller GmbH", "it's"])
_MESSY_VALUE = st.one_of(
    st.sampled_from(["c)", "'q'", "**b**", " sp ", "", "a##b", "x<y", '"q"']),
    st.text(alphabet="ab ()#'\"*<|>）\n", max_size=6),
)
_VALUE = st.one_of(_CLEAN_VALUE, _CLEAN_VALUE, _CLEAN_VALUE, _MESSY_VALUE)
_STRENGTH = st.sampled_from(["5", "10", "11", "2.5", "1", "07"])
_RECORD = st.builds(
    lambda tag, quote, texts, strength, closer: "("
    + tag
    + "<|>"
    + "<|>".join([quote + v + quote for v in texts] + ([strength] if strength is not None else []))
    + closer,
    st.sampled_from(['"entity"', '"relationship"', '"entity"', '"relationship"', "entity", '"event"']),
    st.sampled_from(['"', "", '"', ""]),
    st.one_of(st.tuples(_VALUE, _VALUE, _VALUE).map(list), st.lists(_VALUE, min_size=1, max_size=5)),
    st.one_of(st.none(), _STRENGTH, _STRENGTH.map(lambda v: f'"{v}"')),
    st.sampled_from([")", ")", ")", ")", ">", "）", "", "))", ")**"]),
)
RECORDISH = st.lists(
    st.tuples(_RECORD, st.sampled_from(["##\n", "##", "\n", "\n\n", "##\n##", " ## ", ""])),
    min_size=1,
    max_size=6,
).map(lambda parts: "".join(r + sep for r, sep in parts))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(RECORDISH, st.sampled_from(["auto", "graphrag", "lightrag"]))
def test_fast_paths_agree_with_the_general_reader(text: str, fmt: str) -> None:
    """The clean-record fast paths (clean_records.py) must give exactly what the general reader gives."""
    import harness.parsing.delimited as delimited
    from harness.parsing import clean_records

    fast = parse(text, fmt).model_dump()
    saved = (delimited._clean_prefix, delimited.clean_record_patterns)

    class _Never:
        def fullmatch(self, _: str) -> None:
            return None

    try:
        delimited._clean_prefix = lambda *a: ([], [], 0)  # type: ignore[assignment]
        delimited.clean_record_patterns = lambda td, rd: clean_records.CleanRecordPatterns(_Never(), None)  # type: ignore[assignment,arg-type]
        slow = parse(text, fmt).model_dump()
    finally:
        delimited._clean_prefix, delimited.clean_record_patterns = saved
    assert fast == slow


@settings(max_examples=200, deadline=None)
@given(
    TEXTS,
    st.text(min_size=1, max_size=4),
    st.text(max_size=4),
    st.text(max_size=12),
    st.sampled_from(FORMATS),
)
def test_any_delimiters_never_raise(text: str, td: str, rd: str, cd: str, fmt: str) -> None:
    r = parse(text, fmt, tuple_delimiter=td, record_delimiter=rd, completion_delimiter=cd)
    assert not any(i.code == "internal-error" for i in r.format_report.issues), r.format_report.issues


_KEYWORDS_RECORD = st.sampled_from(['("content_keywords"<|>"river, trust")', '("relationship"<|>A<|>B<|>d<|>k<|>5)'])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(RECORDISH, _KEYWORDS_RECORD.map(lambda r: r + "##\n")), min_size=1, max_size=3).map("".join),
    st.sampled_from(["<|>", "|", "\t", ";;", '"|"', "e", ")", "<r>"]),
)
@pytest.mark.slow
def test_clean_prefix_votes_give_the_layout_counting_every_record_gives(text: str, td: str) -> None:
    """detect_layout reads the clean prefix's votes from its readings instead of recounting its
    records: the layout must be the one counting every record gives, whatever the delimiter."""
    import harness.parsing.delimited as delimited
    from harness.parsing.issues_log import IssueLog

    text = text.replace("<|>", td)
    shortcut = delimited.parse_delimited(text, IssueLog(0), tuple_delimiter=td, record_delimiter="##").layout
    saved = delimited._clean_prefix_votes
    try:
        delimited._clean_prefix_votes = lambda found, td: None  # type: ignore[assignment]
        counted = delimited.parse_delimited(text, IssueLog(0), tuple_delimiter=td, record_delimiter="##").layout
    finally:
        delimited._clean_prefix_votes = saved
    assert shortcut == counted


def test_six_field_relationships_after_a_clean_prefix_still_make_lightrag() -> None:
    from harness.parsing.delimited import parse_delimited
    from harness.parsing.issues_log import IssueLog

    clean = '("relationship"<|>A<|>B<|>d<|>5)##\n'
    six = '("relationship"<|>A<|>C<|>d<|>kw<|>5)##\n'
    assert parse_delimited(clean + six * 2, IssueLog(0)).layout == "lightrag"
    assert parse_delimited(clean * 2 + six * 2, IssueLog(0)).layout == "graphrag"  # a tie stays GraphRAG
