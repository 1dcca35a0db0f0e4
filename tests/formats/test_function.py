"""Text2KGBench's `predicate(subject, object)` triples: every shape its prompts produce, every
dropped-line reason, the prose around them, detection, and the CLI."""

from __future__ import annotations



from .cli_parse import parse_json
from harness.formats import detect_format
from harness.formats.answer import parse

# As Text2KGBench's prompts ask ("Test Output: " then calls), with the shapes models write:
# several calls on a line, a quoted argument holding a comma, a numbered line.
ANSWER = (
    "Test Output: director(Avatar,James Cameron), starring(Avatar, \"Worthington, Sam\")\n"
    "1. publication_date(Avatar, 2009)\n"
    "director(Titanic, James Cameron)\n"
)


def _codes(answer: str, fmt: str = "function") -> list[str]:
    return [i.code for i in parse(answer, fmt).format_report.issues]


def test_calls_become_typed_relationships_between_their_arguments() -> None:
    result = parse(ANSWER)
    assert result.format == "function"
    rels = [(r.source, r.type, r.target) for r in result.graph.relationships]
    assert rels == [
        ("Avatar", "director", "James Cameron"),
        ("Avatar", "starring", "Worthington, Sam"),  # the quoted comma stays inside the argument
        ("Avatar", "publication_date", "2009"),
        ("Titanic", "director", "James Cameron"),
    ]
    # entities: Avatar, James Cameron, Worthington Sam, 2009, Titanic = 5 distinct names
    assert [e.name for e in result.graph.entities] == ["Avatar", "James Cameron", "Worthington, Sam", "2009", "Titanic"]
    report = result.format_report
    assert (report.records_seen, report.records_parsed, report.records_dropped) == (4, 4, 0)
    assert report.completion == "present"
    assert _codes(ANSWER) == ["markdown-decoration"]  # the "1." numbering


def test_every_unreadable_call_is_dropped_with_its_reason() -> None:
    answer = "director(Avatar)\nauthor(, Tolkien)\ncost(Toy Story, )\ndirector(Up, Pete Docter)\n"
    result = parse(answer, "function")
    dropped = [(i.code, i.excerpt) for i in result.format_report.issues if i.dropped]
    assert dropped == [
        ("triple-parts", "director(Avatar)"),  # one argument
        ("triple-part-empty", "author(, Tolkien)"),
        ("triple-part-empty", "cost(Toy Story, )"),  # as real Text2KGBench answers leave unknown objects
    ]
    # 4 calls seen, 1 kept, 3 dropped
    report = result.format_report
    assert (report.records_seen, report.records_parsed, report.records_dropped) == (4, 1, 3)


def test_unquoted_commas_go_to_the_object_unless_spacing_shows_the_separator() -> None:
    # the first comma separates, as Text2KGBench's own parser reads these calls
    result = parse("deathPlace(John Adams, Quincy, Massachusetts)", "function")
    assert [(r.source, r.target) for r in result.graph.relationships] == [("John Adams", "Quincy, Massachusetts")]
    assert [i.code for i in result.format_report.issues] == ["triple-split-at-first-comma"]
    # one tight comma (as in the prompts' `rel(S,O)`) among spaced ones: it is the separator
    result = parse("narrative_location(Tesla, Inc.,Palo Alto, California)", "function")
    assert [(r.source, r.target) for r in result.graph.relationships] == [("Tesla, Inc.", "Palo Alto, California")]
    assert [i.code for i in result.format_report.issues] == ["triple-split-by-spacing"]
    # markdown-escaped underscores in the predicate, as Vicuna writes them
    escaped = parse("* production\\_company(The First, Paramount Pictures)\n"
                    "triple\\_2: characters(Bird, fictional\\_character)", "function")
    assert [(r.type, r.target) for r in escaped.graph.relationships] == [
        ("production_company", "Paramount Pictures"), ("characters", "fictional_character")]


def test_prose_notes_and_nothing_found_have_their_own_codes() -> None:
    answer = "Here are the triples:\n\ndirector(Up, Pete Docter)\n\nNote: the year is not in the ontology.\nIt was skipped.\n\nDone."
    assert _codes(answer) == ["note-paragraph", "preamble", "closing-note"]
    nothing = parse("No triples can be extracted from this sentence.", "function")
    codes = [i.code for i in nothing.format_report.issues]
    assert codes == ["no-triples"] and nothing.format_report.completion == "present"  # not no-records


def test_a_call_cut_off_at_the_end_is_read_and_the_answer_incomplete() -> None:
    result = parse("director(Up, Pete Docter)\nstarring(Up, Ed Asner", "function")
    assert len(result.graph.relationships) == 2
    assert result.format_report.completion == "missing"
    assert "record-closer" in _codes("director(Up, Pete Docter)\nstarring(Up, Ed Asner")


def test_detection_takes_calls_and_leaves_prose_with_brackets_alone() -> None:
    assert detect_format(ANSWER) == "function"
    assert detect_format("director(Avatar,James Cameron)") == "function"
    assert detect_format("The film (released 2009, in cinemas) was a hit.") == "graphrag"  # prose: default
    assert detect_format('("entity"<|>A<|>person<|>x)\n##\nf(a, b)') == "graphrag"  # delimiter records win


def test_harness_parse_reads_the_fixture(tmp_path) -> None:
    data = parse_json(tmp_path, "answer.txt", ANSWER)
    assert data["format"] == "function"
    assert [r["type"] for r in data["relationships"]] == ["director", "starring", "publication_date", "director"]
