"""The output-format registry: lookup, detection by rule priority, example writers that parse back,
issue codes that docs/format-codes.md lists, and the one order of delimiter defaults."""

from __future__ import annotations

import pytest

from harness.formats import DEFAULT_FORMAT, detect_format, format_names, get_format
from harness.formats.base import Delimiters, resolve_delimiters
from harness.formats.answer import parse
from harness.parsing.codes import CITATION_CODES, FORMAT_CODES, QUERY_CODES
from harness.prompts.examples import Example, ExampleClaim, ExampleEntity, ExampleRelationship

EXAMPLE = Example(
    text="Alder Bank employs Nora Vance.",
    entities=[ExampleEntity("ALDER BANK", "organization", "A bank"), ExampleEntity("NORA VANCE", "person", "A clerk")],
    relationships=[ExampleRelationship("ALDER BANK", "NORA VANCE", "Employs her", 7.0, "employment")],
    claims=[ExampleClaim("ALDER BANK", "NORA VANCE", "EMPLOYMENT", "TRUE", "2020-01-01", "NONE", "Employs her", "employs")],
    report={"title": "T", "summary": "S", "rating": 5, "rating_explanation": "R",
            "findings": [{"summary": f"s{i}", "explanation": f"e{i}"} for i in range(5)]},
)


def test_names_and_lookup() -> None:
    assert format_names()[:5] == ("graphrag", "lightrag", "json", "claims", "report")  # later formats follow
    assert DEFAULT_FORMAT in format_names() and len(set(format_names())) == len(format_names())
    assert all(get_format(name).name == name for name in format_names())
    with pytest.raises(ValueError, match="expected one of graphrag, lightrag, json, claims, report"):
        get_format("no-such-format")


@pytest.mark.parametrize("name", [name for name in format_names() if get_format(name).detection_rules])
def test_every_registered_format_recognises_what_it_writes(name: str) -> None:
    fmt = get_format(name)
    answer = fmt.write_example(EXAMPLE, fmt.default_delimiters())
    assert detect_format(answer) == name
    assert set(fmt.variables) >= {"input_text"} and fmt.codes


def test_every_code_a_format_may_emit_is_documented_and_every_code_belongs_somewhere() -> None:
    emitted = set().union(*(get_format(name).codes for name in format_names()))
    assert emitted <= set(FORMAT_CODES)
    assert emitted | CITATION_CODES | QUERY_CODES == set(FORMAT_CODES)


@pytest.mark.parametrize("name", ["graphrag", "lightrag", "json", "claims", "report",
                                  "llamaindex", "function", "json_triples", "triple_table"])
def test_written_examples_are_recognised_and_parse_back_clean(name: str) -> None:
    fmt = get_format(name)
    delimiters = fmt.default_delimiters()
    answer = fmt.write_example(EXAMPLE, delimiters)
    assert detect_format(answer) == name  # as `parse(answer, "auto")` guesses it
    result = parse(answer, name, tuple_delimiter=delimiters.tuple, record_delimiter=delimiters.record,
                   completion_delimiter=delimiters.completion)
    report = result.format_report
    assert report.records_dropped == 0 and fmt.is_complete(report.completion)
    assert {i.code for i in report.issues} <= fmt.codes
    graph = result.graph
    found = {"claims": len(graph.claims), "report": int(graph.report is not None)}.get(
        name, len(graph.entities) + len(graph.relationships))
    assert found == {"claims": 1, "report": 1}.get(name, 3)


@pytest.mark.parametrize(
    ("name", "answer"),
    [
        ("graphrag", '## ("entity"<|>"A"<|>person) ("relationship"<|>A<|>B<|>x<|>12/10)\n<|complete|> done'),
        ("lightrag", "entity<#>A<|#|>person\nrelation<|#|>A<|#|>B\n<|COMPLETE|><|COMPLETE|>"),
        ("json", '```json\n{"entities": [{"name": "<entity_name>"}, {"name": "A",}], "relationships": [{"source": "A"}'),
        ("claims", "(A<|>B<|>T<|>MAYBE<|>yesterday<|>NONE<|>d)\n<|COMPLETE|>"),
        ("report", 'Here: {"title": 3, "rating": "11", "findings": {"1": "x"}, "extra": 1}'),
        ("llamaindex", "Triplets:\n1. (A, \"b, c\", D)\n(A, B)\n(A, , C)\n(A, x, B\nNote: done\n<|COMPLETE|>"),
        ("function", "Test Output: p(A, B), q(A)\nr(, B)\ns(A, B\nNote: done"),
        ("json_triples", '```json\n[["A", "p", "B"], ["A"], {"x": 1}, {"subject": "A", "predicate": "", "object": "B"}, [1, [2]]'),
        ("triple_table", "Here:\n| subject | predicate | object |\n|---|---|---|\n| A | p |\n| A | | B |\nNote: done"),
    ],
)
def test_messy_answers_emit_only_the_formats_codes(name: str, answer: str) -> None:
    codes = {i.code for i in parse(answer, name).format_report.issues}
    assert codes and codes <= get_format(name).codes


def test_detection_rules_keep_their_priority() -> None:
    # tuple records win over JSON in a preamble; report keys win over a generic JSON object
    assert detect_format('{"entities": []}\n("entity"<|>A<|>person<|>x)') == "graphrag"
    assert detect_format('{"title": "T", "findings": []}') == "report"
    assert detect_format('prose {"x": 1}') == "json"
    assert detect_format("nothing recognisable") == DEFAULT_FORMAT


def test_delimiters_first_layer_that_sets_them_wins_then_the_formats_default() -> None:
    graphrag, lightrag = get_format("graphrag"), get_format("lightrag")
    assert resolve_delimiters(graphrag) == Delimiters("<|>", "##", "<|COMPLETE|>")
    explicit, given, declared = {"tuple_delimiter": "|"}, {"tuple_delimiter": ";", "record_delimiter": "@@"}, {"completion_delimiter": "DONE"}
    assert resolve_delimiters(graphrag, explicit, given, declared) == Delimiters("|", "@@", "DONE")
    assert resolve_delimiters(graphrag, {"tuple_delimiter": "", "record_delimiter": None}) == Delimiters()  # empty: unset
    # LightRAG's own defaults, unless another tuple delimiter is chosen (an old LightRAG prompt)
    assert resolve_delimiters(lightrag) == Delimiters("<|#|>", "\n", "<|COMPLETE|>")
    assert resolve_delimiters(lightrag, {"tuple_delimiter": "<|>"}) == Delimiters("<|>", "##", "<|COMPLETE|>")


def test_help_texts_and_docs_that_list_the_formats_name_every_registered_one() -> None:
    # `--help` cannot ask the registry without importing every format at start-up, so the lists
    # are written out; this keeps them true when a format is registered
    from pathlib import Path

    from typer.testing import CliRunner

    from harness.cli import app

    root = Path(__file__).resolve().parents[2]
    runner = CliRunner()
    places = {
        "harness parse --help": runner.invoke(app, ["parse", "--help"], terminal_width=400).output,
        "harness prompts lint --help": runner.invoke(app, ["prompts", "lint", "--help"], terminal_width=400).output,
        "harness/prompts/yaml_template.py": (root / "harness" / "prompts" / "yaml_template.py").read_text(),
        "README.md": (root / "README.md").read_text(),
        "docs/prompts.md": (root / "docs" / "prompts.md").read_text(),
    }
    missing = {where: [name for name in format_names() if name not in text] for where, text in places.items()}
    assert not any(missing.values()), {where: names for where, names in missing.items() if names}


def test_a_plugin_formats_detection_rules_come_after_every_built_in_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin's rule, however low its priority, never takes an answer a built-in format
    recognises; it decides only what no built-in rule matches."""
    from typing import ClassVar

    import harness.formats as formats
    from harness import plugins
    from harness.formats.base import DetectionRule
    from harness.formats.summary import SummaryFormat

    monkeypatch.setattr(plugins, "_loaded", {"formats"})  # as while a plugin registers: no metadata scan
    monkeypatch.setattr(formats, "_BY_NAME", dict(formats._BY_NAME))
    monkeypatch.setattr(formats, "_PLUGIN_RULES", [])

    class Shouting(SummaryFormat):
        name: ClassVar[str] = "shouting"
        detection_rules: ClassVar[tuple[DetectionRule, ...]] = (DetectionRule(1, lambda ctx: ctx.text.isupper()),)

    formats.register_format(Shouting)
    assert detect_format("ANA RUIZ WINS") == "shouting"
    assert detect_format('("ENTITY"<|>ANA RUIZ<|>PERSON<|>MAYOR)') == "graphrag"  # upper case, and a tuple record
    assert "shouting" in format_names() and get_format("shouting").name == "shouting"
