"""GraphRAG's `input.file_pattern` matched without backtracking (issue 28.10): the matches and
groups `re` finds for the patterns projects use, refusals in one line, and work that grows with
the path (counted in instructions) for patterns that make `re` explode."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.cli import main
from harness.errors import InputError
from harness.importers.file_pattern import MAX_STATES, PatternRefused, compile_file_pattern
from harness.importers.graphrag_chunks import ChunkSettings, input_files
from tests.support.growth import assert_linear

# what GraphRAG's docs and projects use, and what they are tried on
PATTERNS = [
    r".*\.txt$", r".*\.csv$", r".*\.json$", r"(?P<filename>[^\\/]+)\.txt$",
    r".*[\\/](?P<source>[^\\/]+)[\\/](?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})_(?P<author>[^_]+)_\d+\.txt",
    r"(?i).*\.(txt|md)$", r"^input/.+?\.txt\Z", r"(?:a|b)+\.txt", r".*/(?P<name>\w+?)(\.\w+)?$", r"\bnotes\b",
]
PATHS = [
    "input/book.txt", "input/Book.TXT", "input/data.csv", "/tmp/x/input/2024-01-31_ann_1.txt",
    "/srv/input/news/2024-01-31_ann_1.txt", "ab.txt", "input/notes.md", "notes", "a/b/c", "", "x.txt\n",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_matches_and_groups_are_those_of_re(pattern: str) -> None:
    mine, theirs = compile_file_pattern(pattern), re.compile(pattern)
    for path in PATHS:
        for how in ("match", "search"):
            a, b = getattr(theirs, how)(path), getattr(mine, how)(path)
            assert (a is None) == (b is None), (pattern, path, how)
            if a is not None and b is not None:
                assert (a.group(0), a.groupdict()) == (b.group(0), b.groupdict()), (pattern, path, how)


SIMPLE = st.text(alphabet="ab./_1", max_size=12)


@given(st.lists(st.sampled_from(["a", "b", ".", r"\.", "[ab]", "[^/]", r"\w", r"\d", "/", "(a|b)", "(?P<g>a+)",
                                 "a*", "b+?", "[ab]?", "(?:ab)*", "$", "^"]), min_size=1, max_size=6), SIMPLE)
def test_small_patterns_match_where_re_matches(parts: list[str], path: str) -> None:
    pattern = "".join(parts)
    if pattern.count("(?P<g>") > 1:
        pattern = pattern.replace("(?P<g>", "(", pattern.count("(?P<g>") - 1)
    mine, theirs = compile_file_pattern(pattern), re.compile(pattern)
    for how in ("match", "search"):
        a, b = getattr(theirs, how)(path), getattr(mine, how)(path)
        assert (None if a is None else (a.group(0), a.groupdict())) == \
            (None if b is None else (b.group(0), b.groupdict())), (pattern, path, how)


@pytest.mark.parametrize("pattern, why", [
    (r"(a)\1", "refers back to a group"), (r"(?=a)a", "looks ahead or behind"), (r"(?<!b)a", "looks ahead or behind"),
    (r"(?>a+)b", "which the harness does not run"), (r"a++", "which the harness does not run"),
    (r"a{5000}", f"more than {MAX_STATES} steps"), (r"(a", "does not parse at position 0"),
    ("(" * 2000 + ")" * 2000, "nested too deeply"),
])
def test_what_needs_backtracking_or_is_too_large_is_refused(pattern: str, why: str) -> None:
    with pytest.raises(PatternRefused, match=re.escape(why)):
        compile_file_pattern(pattern)


def test_a_refused_pattern_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match=r"input file_pattern '\(a\)\\\\1': it refers back to a group"):
        input_files(tmp_path, r"(a)\1", ChunkSettings(version=(2, 7, 0)))


def test_import_names_a_pattern_it_cannot_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "rag"
    (project / "input").mkdir(parents=True)
    (project / "input" / "a.txt").write_text("Ana Ruiz is the mayor.", encoding="utf-8")
    (project / "settings.yaml").write_text("input:\n  type: file\n  file_type: text\n  base_dir: input\n"
                                           "  file_pattern: '(?=.*)(a+)+\\.txt$'\n", encoding="utf-8")
    assert main(["import", "graphrag", str(project), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("harness: input file_pattern '(?=.*)(a+)+") and "looks ahead" in err
    assert len(err.strip().splitlines()) == 1


def folder_named(unit: str, n: int, tmp: Path) -> Path:
    folder = tmp / f"{ord(unit)}-{n}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / (unit * n + "!")).write_text("x", encoding="utf-8")
    return folder


def files_matching(folder: Path, pattern: str, version: tuple[int, int, int]) -> int:
    return len(input_files(folder, pattern, ChunkSettings(version=version)))


@pytest.mark.slow
@pytest.mark.parametrize("pattern", [r".*/(a|aa)+$", r".*/(a+)+$", r".*/\d*\d*\d*\d*x$"])
@pytest.mark.parametrize("version", [(2, 7, 0), (3, 3, 0)])
def test_patterns_that_explode_in_re_cost_the_length_of_the_path(pattern: str, version: tuple[int, int, int],
                                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    unit = "1" if "\\d" in pattern else "a"
    tmp = tmp_path_factory.mktemp("names")
    assert_linear(functools.partial(files_matching, pattern=pattern, version=version),
                  functools.partial(folder_named, unit, tmp=tmp), 64)


def test_csv_and_json_inputs_fall_back_to_the_default_pattern_saying_why(tmp_path: Path) -> None:
    from harness.importers.graphrag_input import InputSettings, read_documents

    (tmp_path / "rows.csv").write_text("text\nAna Ruiz is the mayor.\n", encoding="utf-8")
    warnings: list[str] = []
    documents = read_documents(tmp_path, InputSettings(file_type="csv", file_pattern=r"(\w)\1\.csv$"), warnings)
    assert len(documents) == 1
    assert len(warnings) == 1 and "refers back to a group" in warnings[0] and "default pattern" in warnings[0]
