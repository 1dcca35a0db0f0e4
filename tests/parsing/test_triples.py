"""The helpers every triple format shares: splitting parts on the commas a person sees, quotes,
the sink that turns triples into entities and typed relationships, and the detection tests."""

from __future__ import annotations

import json

import pytest

from harness.formats import detect_format
from harness.formats.answer import parse
from harness.parsing.issues_log import IssueLog
from harness.parsing.triples import Triple, TripleSink, says_nothing, split_parts, unquote, unwrap


@pytest.mark.parametrize(
    ("text", "parts", "end"),
    [
        ("a, b, c)", ["a", " b", " c"], 8),
        ('"Tesla, Inc.", makes, Optimus) rest', ['"Tesla, Inc."', " makes", " Optimus"], 30),
        ("Philz's, is, cafe)", ["Philz's", " is", " cafe"], 18),  # an apostrophe is not a quote
        ("'Philz's', is, cafe)", ["'Philz's'", " is", " cafe"], 20),  # a quote closes only before a separator
        ("coffee (and tea), x, y)", ["coffee (and tea)", " x", " y"], 23),  # brackets nest
        ("a, b, c", ["a", " b", " c"], -1),  # no closer: cut off
    ],
)
def test_split_parts(text: str, parts: list[str], end: int) -> None:
    assert split_parts(text, ",", ")") == (parts, end)


def test_unquote_and_nothing_found() -> None:
    assert unquote(' "Tesla, Inc." ') == "Tesla, Inc."
    assert unquote("**Philz**") == "Philz"
    assert unquote("“Philz”") == "Philz"
    assert unquote("'Philz") == "'Philz"  # unbalanced: kept as written
    # an apostrophe inside is no closing mark: one quoted name (it stayed quoted before)
    assert unquote("'Bachelor's degree'") == "Bachelor's degree"
    assert unquote('"Ahri\'ahn" or "Arion"') == '"Ahri\'ahn" or "Arion"'  # two quoted strings
    assert unquote("'Ana' and 'Bo'") == "'Ana' and 'Bo'"
    assert says_nothing("No triples found.") and says_nothing("None") and says_nothing("There are no relations in the text.")
    assert not says_nothing("Nobody founded Philz.") and not says_nothing("(Philz, is, cafe)")


def test_sink_merges_entities_and_keeps_the_first_type_given() -> None:
    sink = TripleSink(round=1)
    log = IssueLog(1)
    assert sink.keep(Triple("Philz", "founded in", "Berkeley", "", "LOCATION"), "", log)
    assert sink.keep(Triple("Philz", "is in", "Berkeley", "ORG", "CITY"), "", log)  # Berkeley keeps LOCATION
    assert not sink.keep(Triple("Philz", " ", "x"), "(Philz, , x)", log)
    records = sink.records
    assert [(e.name, e.type, e.round) for e in records.entities] == [("Philz", "ORG", 1), ("Berkeley", "LOCATION", 1)]
    assert [r.type for r in records.relationships] == ["founded in", "is in"]
    assert (records.seen, records.parsed, log.dropped_count) == (3, 2, 1)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('("entity"<|>PHILZ<|>organization<|>A coffee company)\n##\n("relationship"<|>PHILZ<|>BERKELEY<|>founded in<|>8)\n<|COMPLETE|>', "graphrag"),
        ("entity<|#|>Philz<|#|>organization<|#|>A coffee company\nrelation<|#|>Philz<|#|>Berkeley<|#|>founded<|#|>founded in\n<|COMPLETE|>", "lightrag"),
        ('{"entities": [{"name": "Philz", "type": "org"}], "relationships": [{"source": "Philz", "target": "Berkeley", "relation": "in"}]}', "json"),
        ('{"title": "Philz", "summary": "s", "rating": 5, "rating_explanation": "r", "findings": []}', "report"),
        ("(PHILZ<|>BERKELEY<|>LOCATION<|>TRUE<|>1982-01-01<|>NONE<|>Founded there<|>Philz was founded)\n<|COMPLETE|>", "claims"),
        # a GraphRAG answer written with commas instead of its delimiter is not LlamaIndex's
        ('("entity", "Philz", "organization", "A coffee company")', "graphrag"),
        ("(Philz, founded in, Berkeley)\n(Philz, sells, coffee)", "llamaindex"),
        ("founded_in(Philz, Berkeley)\nsells(Philz, coffee)", "function"),
        ('[{"subject": "Philz", "predicate": "founded in", "object": "Berkeley"}]', "json_triples"),
        ("| subject | predicate | object |\n|---|---|---|\n| Philz | founded in | Berkeley |", "triple_table"),
    ],
)
def test_detection_both_ways(answer: str, expected: str) -> None:
    assert detect_format(answer) == expected


# --------------------------------------------------------------------------- parts as written


def test_triples_as_written_keep_what_parse_trims():
    from harness.formats.answer import triples_as_written

    # calls: the separating space and the delimiting quotes are syntax; inside quotes, all is kept
    call = 'fullName(1 FC Magdeburg, "1. FC Magdeburg")\nseason(1 FC Magdeburg,\' 2014 3. Liga \')'
    assert triples_as_written(call, "function") == [("1 FC Magdeburg", "fullName", "1. FC Magdeburg"),
                                                    ("1 FC Magdeburg", "season", " 2014 3. Liga ")]
    # JSON: a string is the part, spaces and quotes included
    as_json = '[["1 FC Magdeburg", "fullName", " \\"1. FC Magdeburg\\""], [" A ", "p", "B"]]'
    assert triples_as_written(as_json, "auto") == [("1 FC Magdeburg", "fullName", ' "1. FC Magdeburg"'),
                                                   (" A ", "p", "B")]
    # the same answers as parse reads them: the names trimmed and unquoted
    assert [(r.source, r.type, r.target) for r in parse(as_json, "json_triples").graph.relationships] == [
        ("1 FC Magdeburg", "fullName", "1. FC Magdeburg"), ("A", "p", "B")]
    assert [r.target for r in parse(call, "function").graph.relationships] == ["1. FC Magdeburg", "2014 3. Liga"]
    assert triples_as_written('("entity"<|>A<|>person<|>x)', "auto") == []  # no triple format
    assert triples_as_written("", "function") == []


@pytest.mark.parametrize(("part", "written"), [
    ('" UT Austin"', " UT Austin"),
    ("' \"Gus Grissom's Liberty Bell 7\"'", " \"Gus Grissom's Liberty Bell 7\""),  # an apostrophe inside
    ("'Bachelor's degree, 1975'", "Bachelor's degree, 1975"),
    ('"Ahri\'ahn" or "Arion"', '"Ahri\'ahn" or "Arion"'),  # two quoted strings: kept as written
    ("'a' and 'b'", "'a' and 'b'"),
    ("'rock 'n' roll'", "'rock 'n' roll'"),  # a mark beside a space is no apostrophe
])
def test_unwrap_takes_off_the_one_pair_of_quotes_that_delimits_a_part(part: str, written: str) -> None:
    assert unwrap(part) == written


def test_a_call_part_holding_both_quote_marks_reads_as_its_json_string() -> None:
    """Text2KGBench's Alpaca-LoRA-13B triples hold objects such as ` "Gus Grissom's ..."`: written
    as a call, single-quoted, they read back as the JSON door gives them (issue 32.5)."""
    from harness.formats.answer import triples_as_written

    triple = ("Alan Shepard", "mascot", " \"Gus Grissom's Liberty Bell 7 Mercury spacecraft\"")
    call = f"{triple[1]}({triple[0]}, '{triple[2]}')"
    assert triples_as_written(call, "function") == [triple]
    assert triples_as_written(json.dumps([list(triple)]), "auto") == [triple]
