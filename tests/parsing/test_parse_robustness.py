"""One hand-written case per kind of mess real models produce."""

from __future__ import annotations

import pytest

from harness.formats.answer import parse

COMPLETE = "<|COMPLETE|>"


def codes(result) -> set[str]:  # type: ignore[no-untyped-def]
    return {i.code for i in result.format_report.issues}


def names(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.name for e in result.graph.entities]


def edges(result) -> list[tuple[str, str, float | None]]:  # type: ignore[no-untyped-def]
    return [(r.source, r.target, r.strength) for r in result.graph.relationships]


CLEAN = (
    '("entity"<|>MARA OKAFOR<|>person<|>Lighthouse keeper on Ebbrin Rock)\n##\n'
    '("entity"<|>EBBRIN ROCK<|>geo<|>A tidal island with a lighthouse)\n##\n'
    '("relationship"<|>MARA OKAFOR<|>EBBRIN ROCK<|>Mara keeps the lighthouse on the rock<|>8)\n'
    "<|COMPLETE|>"
)


def test_clean_output() -> None:
    r = parse(CLEAN)
    assert r.format == "graphrag"
    assert names(r) == ["MARA OKAFOR", "EBBRIN ROCK"]
    assert edges(r) == [("MARA OKAFOR", "EBBRIN ROCK", 8.0)]
    fr = r.format_report
    assert (fr.records_seen, fr.records_parsed, fr.records_dropped, fr.completion) == (3, 3, 0, "present")
    assert fr.issues == []
    assert r.graph.entities[0].description == "Lighthouse keeper on Ebbrin Rock"


def test_round_is_set() -> None:
    r = parse(CLEAN, round=2)
    assert {e.round for e in r.graph.entities} == {2}
    assert {x.round for x in r.graph.relationships} == {2}


def test_legacy_quoted_values() -> None:
    text = (
        '("entity"<|>"Quillon Ferries"<|>"organization"<|>"Runs boats to the islands")##\n'
        '("relationship"<|>"Quillon Ferries"<|>"Ebbrin Rock"<|>"Serves the rock weekly"<|>6)##\n'
        "<|COMPLETE|>"
    )
    r = parse(text)
    assert names(r) == ["Quillon Ferries"]
    assert r.graph.entities[0].type == "organization"
    assert edges(r) == [("Quillon Ferries", "Ebbrin Rock", 6.0)]
    assert r.format_report.issues == []


def test_think_block() -> None:
    text = "<think>\nThe user wants entities. (\"entity\"<|>DRAFT<|>x<|>y)\n</think>\n" + CLEAN
    r = parse(text)
    assert names(r) == ["MARA OKAFOR", "EBBRIN ROCK"]
    assert "think-block" in codes(r)


def test_think_block_without_opening_tag() -> None:
    r = parse("reasoning about the text...\n</think>\n" + CLEAN)
    assert names(r) == ["MARA OKAFOR", "EBBRIN ROCK"]
    assert "think-block" in codes(r)


def test_unclosed_think_block() -> None:
    r = parse("<think>I will first list the people and then")
    assert r.graph.entities == []
    assert "think-unclosed" in codes(r)


def test_fences() -> None:
    r = parse("```text\n" + CLEAN + "\n```")
    assert len(r.graph.entities) == 2 and len(r.graph.relationships) == 1
    assert "fence-stripped" in codes(r)
    assert r.format_report.completion == "present"


def test_preamble_and_closing_note() -> None:
    text = "Sure! Here are the entities and relationships:\n\n" + CLEAN + "\n\nLet me know if you need more."
    r = parse(text)
    assert len(r.graph.entities) == 2
    assert {"preamble", "closing-note"} <= codes(r)
    assert r.format_report.completion == "present"


def test_markdown_headings_numbering_and_bullets() -> None:
    text = (
        "## Entities\n"
        '1. ("entity"<|>TOMAS REYES<|>person<|>A ferry captain)\n'
        '2. ("entity"<|>QUILLON FERRIES<|>organization<|>His employer)\n'
        "## Relationships\n"
        '- ("relationship"<|>TOMAS REYES<|>QUILLON FERRIES<|>Works for the company<|>7)\n'
        '* **("entity"<|>EBBRIN ROCK<|>geo<|>An island)**\n'
        "<|COMPLETE|>"
    )
    r = parse(text)
    assert names(r) == ["TOMAS REYES", "QUILLON FERRIES", "EBBRIN ROCK"]
    assert edges(r) == [("TOMAS REYES", "QUILLON FERRIES", 7.0)]
    assert "markdown-decoration" in codes(r)
    assert r.format_report.records_dropped == 0


@pytest.mark.parametrize("sep", ["\n", "\n\n", "\n \n"])
def test_newline_separated_records(sep: str) -> None:
    text = sep.join(
        [
            '("entity"<|>A<|>person<|>first)',
            '("entity"<|>B<|>person<|>second)',
            '("relationship"<|>A<|>B<|>knows<|>3)',
            COMPLETE,
        ]
    )
    r = parse(text)
    assert names(r) == ["A", "B"] and edges(r) == [("A", "B", 3.0)]
    assert "newline-separated" in codes(r)


@pytest.mark.parametrize("closer", [">", "）", ""])
def test_records_closed_oddly(closer: str) -> None:
    text = (
        f'("entity"<|>A<|>person<|>first{closer}##\n'
        f'("relationship"<|>A<|>B<|>knows<|>4{closer}##\n{COMPLETE}'
    )
    r = parse(text)
    assert [e.description for e in r.graph.entities] == ["first"]
    assert edges(r) == [("A", "B", 4.0)]
    if closer:
        assert "record-closer" in codes(r)


def test_full_width_parentheses() -> None:
    r = parse('（"entity"<|>张伟<|>person<|>一名工程师）##\n（"relationship"<|>张伟<|>上海<|>住在上海<|>6）\n<|COMPLETE|>')
    assert names(r) == ["张伟"]
    assert edges(r) == [("张伟", "上海", 6.0)]


def test_description_with_parentheses_survives() -> None:
    r = parse('("entity"<|>ETH<|>technology<|>Ether (ETH))##\n<|COMPLETE|>')
    assert r.graph.entities[0].description == "Ether (ETH)"


def test_stray_quotes_and_bold_around_values() -> None:
    text = (
        '("entity"<|>"ALDER BANK<|>organization"<|>**A lender**)##\n'
        '("relationship"<|>**ALDER BANK**<|>"NORA VANCE"<|>"Employs her<|>5)##\n<|COMPLETE|>'
    )
    r = parse(text)
    assert names(r) == ["ALDER BANK"]
    assert r.graph.entities[0].type == "organization"
    assert r.graph.entities[0].description == "A lender"
    assert edges(r) == [("ALDER BANK", "NORA VANCE", 5.0)]
    assert r.graph.relationships[0].description == "Employs her"
    assert "value-quotes" in codes(r)


@pytest.mark.parametrize(
    "tail,expected",
    [
        ("9)\n<|COMPLETE|>", 9.0),
        ("5>", 5.0),
        ('7")', 7.0),
        ("2)**", 2.0),
        ("8/10)", 8.0),
        ("6.5)", 6.5),
        (" 3 )", 3.0),
    ],
)
def test_strength_variants(tail: str, expected: float) -> None:
    r = parse(f'("relationship"<|>A<|>B<|>linked<|>{tail}')
    assert edges(r) == [("A", "B", expected)]
    assert r.graph.relationships[0].description == "linked"
    assert r.format_report.records_dropped == 0


def test_strength_repaired_code() -> None:
    r = parse('("relationship"<|>A<|>B<|>linked<|>8/10)##\n<|COMPLETE|>')
    assert "strength-repaired" in codes(r)


def test_strength_placeholder() -> None:
    r = parse('("relationship"<|>A<|>B<|>linked<|><relationship_strength>)\n<|COMPLETE|>')
    assert edges(r) == [("A", "B", None)]
    assert "strength-placeholder" in codes(r)


def test_placeholder_entity_dropped_with_reason() -> None:
    r = parse('("entity"<|><entity_name><|><entity_type><|><entity_description>)\n<|COMPLETE|>')
    assert r.graph.entities == []
    fr = r.format_report
    assert fr.records_seen == 1 and fr.records_dropped == 1
    assert [i.code for i in fr.issues if i.dropped] == ["placeholder-value"]
    assert fr.issues[0].excerpt


def test_completion_missing() -> None:
    r = parse('("entity"<|>A<|>person<|>first)')
    assert r.format_report.completion == "missing"
    assert "completion-missing" in codes(r)


def test_completion_lowercase() -> None:
    r = parse('("entity"<|>A<|>person<|>first)\n<|complete|>')
    assert r.format_report.completion == "present"
    assert "completion-lowercase" in codes(r)
    assert names(r) == ["A"]


def test_completion_repeated() -> None:
    r = parse('("entity"<|>A<|>person<|>first)\n<|COMPLETE|>\n<|COMPLETE|>')
    assert r.format_report.completion == "misplaced"
    assert "completion-repeated" in codes(r)


def test_completion_first() -> None:
    r = parse('<|COMPLETE|>\n("entity"<|>A<|>person<|>first)##\n("entity"<|>B<|>person<|>second)')
    assert r.format_report.completion == "misplaced"
    assert "completion-not-last" in codes(r)
    assert names(r) == ["A", "B"]


def test_completion_malformed() -> None:
    r = parse('("entity"<|>A<|>person<|>first)\n<COMPLETE>')
    assert r.format_report.completion == "present"
    assert "completion-malformed" in codes(r)


def test_word_complete_in_prose_is_not_a_mark() -> None:
    r = parse('("entity"<|>A<|>person<|>a complete list of things)')
    assert r.format_report.completion == "missing"
    assert r.graph.entities[0].description == "a complete list of things"


def test_gleaning_outputs_glued_together() -> None:
    text = (
        '("entity"<|>A<|>person<|>first)##("relationship"<|>A<|>B<|>knows<|>9)<|COMPLETE|>'
        '("entity"<|>C<|>person<|>third)("entity"<|>D<|>geo<|>fourth)<|COMPLETE|>'
    )
    r = parse(text)
    assert names(r) == ["A", "C", "D"]
    assert edges(r) == [("A", "B", 9.0)]
    assert "glued-records" in codes(r)
    assert r.format_report.completion == "misplaced"


def test_description_containing_the_delimiter() -> None:
    r = parse('("entity"<|>A<|>person<|>uses <|> in text)##\n("relationship"<|>A<|>B<|>x <|> y<|>4)\n<|COMPLETE|>')
    assert r.graph.entities[0].description == "uses <|> in text"
    assert r.graph.relationships[0].description == "x <|> y"
    assert r.graph.relationships[0].strength == 4.0
    assert "delimiter-in-description" in codes(r)


def test_multiline_description() -> None:
    r = parse('("entity"<|>A<|>person<|>first line\nsecond line)##\n<|COMPLETE|>')
    assert r.graph.entities[0].description == "first line\nsecond line"


@pytest.mark.parametrize(
    "name,etype,desc",
    [
        ("孙悟空", "人物", "花果山的美猴王，拜师菩提祖师"),
        ("Müller GmbH", "Organisation", "Ein Maschinenbauer aus Köln"),
        ("Москва", "город", "Столица России"),
        ("東京タワー", "建物", "東京にある電波塔"),
        ("القاهرة", "مدينة", "عاصمة مصر"),
    ],
)
def test_non_latin_text(name: str, etype: str, desc: str) -> None:
    r = parse(f'("entity"<|>{name}<|>{etype}<|>{desc})##\n("relationship"<|>{name}<|>{name}2<|>{desc}<|>5)\n<|COMPLETE|>')
    assert names(r) == [name]
    assert r.graph.entities[0].type == etype and r.graph.entities[0].description == desc
    assert edges(r) == [(name, name + "2", 5.0)]


def test_refusal() -> None:
    r = parse("I'm sorry, but I can't help with extracting information from this document.")
    assert r.graph.entities == []
    assert "refusal" in codes(r)
    assert r.format_report.completion == "missing"


@pytest.mark.parametrize("text", ["", "   ", "\n\n"])
def test_empty_answer(text: str) -> None:
    r = parse(text)
    assert r.graph.entities == [] and r.graph.relationships == []
    assert "empty-output" in codes(r)
    assert r.format_report.records_seen == 0


def test_prose_only_answer() -> None:
    r = parse("The text describes a harbour town and its council.")
    assert "no-records" in codes(r)


def test_custom_delimiters() -> None:
    text = '("entity"|ANA|person|a pilot)\n~~\n("relationship"|ANA|BOB|flies with|6)\n[[DONE]]'
    r = parse(text, tuple_delimiter="|", record_delimiter="~~", completion_delimiter="[[DONE]]")
    assert names(r) == ["ANA"] and edges(r) == [("ANA", "BOB", 6.0)]
    assert r.format_report.completion == "present"


def test_inferred_tuple_delimiter() -> None:
    r = parse('("entity"|ANA|person|a pilot)##\n("relationship"|ANA|BOB|flies with|6)\n<|COMPLETE|>')
    assert names(r) == ["ANA"] and edges(r) == [("ANA", "BOB", 6.0)]
    assert "delimiter-inferred" in codes(r)


def test_unknown_tag_read_as_entity() -> None:
    r = parse('("event"<|>HARVEST FAIR<|>event<|>A yearly fair)##\n<|COMPLETE|>')
    assert names(r) == ["HARVEST FAIR"] and r.graph.entities[0].type == "event"
    assert "record-type-unknown" in codes(r)


def test_untyped_extraction_with_comma_joined_types() -> None:
    r = parse('("entity"<|>ORBIT LABS<|>organization, company<|>A startup)##\n<|COMPLETE|>')
    assert r.graph.entities[0].type == "organization, company"


def test_entity_with_counter_field() -> None:
    r = parse('("entity"<|>"ICO"<|>"event"<|>"A token sale"<|>1)##\n<|COMPLETE|>')
    assert r.graph.entities[0].description == "A token sale"
    assert "extra-field" in codes(r)


def test_comma_separated_record_is_read() -> None:
    r = parse('("entity", "ANA", "person", "a pilot")\n("relationship", "ANA", "BOB", "flies with", 6)')
    assert names(r) == ["ANA"] and edges(r) == [("ANA", "BOB", 6.0)]


def test_dropped_records_are_counted_with_reason() -> None:
    text = '("entity")##\n("relationship"<|>A)##\n("entity"<|>OK<|>person<|>fine)\n<|COMPLETE|>'
    r = parse(text)
    fr = r.format_report
    assert names(r) == ["OK"]
    assert fr.records_seen == 3 and fr.records_parsed == 1 and fr.records_dropped == 2
    dropped = [i for i in fr.issues if i.dropped]
    assert len(dropped) == 2 and all(i.code and i.excerpt for i in dropped)


def test_unknown_format_is_a_caller_error() -> None:
    with pytest.raises(ValueError):
        parse("x", format="yaml")


def test_delimiter_placeholders_copied_from_the_prompt() -> None:
    text = '("entity"{tuple_delimiter}A{tuple_delimiter}person{tuple_delimiter}x){record_delimiter}\n{completion_delimiter}'
    r = parse(text)
    assert names(r) == ["A"]
    assert r.format_report.completion == "present"
    assert "delimiter-inferred" in codes(r)


def test_internal_errors_become_an_issue(monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.formats.answer as parsing

    def boom(*_: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(parsing, "run", boom)
    r = parse('("entity"<|>A<|>person<|>x)', round=3)
    (i,) = r.format_report.issues
    assert i.code == "internal-error" and "kaboom" in i.message and i.round == 3
    assert r.graph.entities == [] and r.format_report.completion == "missing"


def test_empty_tuple_delimiter_is_a_caller_error() -> None:
    with pytest.raises(ValueError):
        parse("x", tuple_delimiter="")
