"""Help texts whose lists come from the registries: filled when the help is shown, from what the
registry holds then."""

from __future__ import annotations

import harness.formats
from harness.cli import main
from harness.cli.options import FORMAT_HELP, fill_help, from_registry, one_of


def test_one_of_joins_with_a_final_or():
    assert one_of(["a"]) == "a"
    assert one_of(["a", "b", "c"]) == "a, b or c"


def test_a_placeholder_is_filled_when_the_help_is_read():
    names = ["x"]
    token = from_registry(lambda: one_of(names))
    names.append("y")  # registered after the option was declared
    assert fill_help(f"Pick {token}.") == "Pick x or y."
    assert fill_help("no list {here}") == "no list {here}"
    assert fill_help(None) is None


def test_the_format_help_lists_the_registered_formats(monkeypatch, capsys):
    registered = harness.formats.format_names()
    monkeypatch.setattr(harness.formats, "format_names", lambda: (*registered, "team_format"))
    assert fill_help(FORMAT_HELP) == one_of(["auto", *registered, "team_format"]) + "."
    assert main(["score", "--help"]) == 0
    out = capsys.readouterr().out
    assert "team_format" in out and "\ue000" not in out
