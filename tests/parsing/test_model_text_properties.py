"""The "model text" surface: any text (surrogates, NULs, deep brackets, huge repeats of answer
fragments) through parse (every format and auto), the checks and `harness parse --json/--jsonl`
raises nothing, keeps its counts consistent and can be written as UTF-8 (issue 13).

No max_examples here: the Hypothesis profile (tests/conftest.py) decides how hard to look.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.checks import check_citations, check_completion, check_map_response
from harness.cli import main
from harness.content_words import count_words
from harness.formats.summary import summary_text
from harness.parsing import has_format_errors, parse_result_to_json
from harness.formats.answer import FORMATS, parse

FRAGMENTS = [
    "<|>", "##", "<|COMPLETE|>", "<|complete|>", "(", ")", '"', "**", '("entity"<|>', '("relationship"<|>',
    "entity<|#|>", "relation<|#|>", "<think>", "</think>", "<thinking>", "```json\n", "```\n", "\n", "{", "}",
    "[", "]", '{"name": "A"', '"findings": [', '{"points": [{"description": "d", "score": 5}]}', ":", ",",
    "8)", "[Data: Entities (1, 2, 3, 4, 5, 6, +more)]", "[Data: ", "- **GAMMA** (org): x", "A -> B",
    "\ud800", "\udfff", "\\ud800", "\x00", "\ufeff", "\r\n", "孙悟空", "I'm sorry", " " * 50,
]
ANY_CHAR = st.characters(exclude_categories=())  # surrogates (category Cs) included
PIECE = st.one_of(st.sampled_from(FRAGMENTS), st.text(ANY_CHAR, max_size=8))
REPEATED = st.tuples(st.sampled_from(FRAGMENTS), st.integers(1, 3000)).map(lambda p: p[0] * p[1])
DEEP = st.tuples(st.sampled_from(["[", "{", '{"a":', "[{", '{"entities": [']), st.integers(1, 20_000)).map(
    lambda p: p[0] * p[1]
)
MODEL_TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=300),
    st.lists(st.one_of(PIECE, REPEATED, DEEP), max_size=12).map("".join),
)


def _utf8(value: object) -> None:
    json.dumps(value, ensure_ascii=False).encode("utf-8")


@given(MODEL_TEXT, st.sampled_from(FORMATS))
def test_parse_raises_nothing_and_counts_stay_consistent(text: str, fmt: str) -> None:
    r = parse(text, fmt)
    fr = r.format_report
    issues = fr.issues
    assert not any(i.code == "internal-error" for i in issues), issues
    dropped = [i for i in issues if i.dropped]
    assert fr.records_dropped == len(dropped)  # every lost record has its own issue
    assert fr.records_parsed + fr.records_dropped <= fr.records_seen
    kept = len(r.graph.entities) + len(r.graph.relationships) + len(r.graph.claims) + (r.graph.report is not None)
    assert kept <= fr.records_parsed
    if fr.records_dropped or fr.completion != "present":
        assert has_format_errors(r)
    _utf8(parse_result_to_json(r))


@given(MODEL_TEXT)
def test_checks_raise_nothing_and_write_utf8(text: str) -> None:
    check = check_completion(text)
    _utf8(check.trailing_text)
    _utf8(check_citations(text).to_json())
    _utf8([i.model_dump() for i in parse(text, "report").format_report.issues])
    _utf8([i.model_dump() for i in check_map_response(text)])


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
@given(MODEL_TEXT, st.sampled_from(FORMATS))
def test_cli_parse_json_and_jsonl(text: str, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        answer = os.path.join(tmp, "answer.txt")
        with open(answer, "wb") as f:
            f.write(text.encode("utf-8", "surrogatepass"))
        code, out, err = _cli("parse", answer, "--json", "--format", fmt)
        if any("\ud800" <= ch <= "\udfff" for ch in text):  # not UTF-8 on disk: bad input
            assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
        else:
            assert code in (0, 1), err
            out.encode("utf-8")
            expected = has_format_errors(parse(text, fmt))
            if fmt == "summary":  # `parse --format summary` also checks the length (500 words by default)
                expected = expected or count_words(summary_text(text)) > 500
            assert code == int(expected)
            json.loads(out)
        rows = os.path.join(tmp, "answers.jsonl")
        with open(rows, "w", encoding="utf-8") as f:
            f.write(json.dumps({"id": 1, "output": text, "format": fmt}) + "\n")  # \ud800 escaped
        code, out, err = _cli("parse", "--jsonl", rows)
        assert code in (0, 1), err
        out.encode("utf-8")
        assert json.loads(out)["id"] == 1
