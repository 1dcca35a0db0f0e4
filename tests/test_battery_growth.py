"""Battery (issue 28, items 10 and 15): inputs that made the harness's work grow faster than its
input, each counted in CPU instructions under callgrind at doubling sizes (tests/support/growth.py:
at most 2.6 times the work per doubling), never timed.

Surfaces:
- json-repair: broken JSON answers of many shapes (parsed as `json`).
- fragmentation: a variant's union graph with many similar names, one huge person name, many
  titles of one name, many persons sharing a surname or initials.
- rerecord: the re-record hint of many missing cassettes, whole and case by case.
- yaml-template: prompt templates with many values, or one long one.
- file-pattern: GraphRAG's `input.file_pattern` from a project's settings, patterns that make a
  backtracking matcher explode, against a file whose name grows.
- big-answer: `harness evaluate` end to end on one answer of 40,000 entities or one huge name
  (exit 0, no traceback, within an address-space limit; a guard, not a speed check).

Counts, held/broken, on main before the fix (950810c) and after it:

    surface        variants  before   after
    json-repair           9     5/4     9/0
    fragmentation        10     1/9    10/0
    rerecord              3     0/3     3/0
    yaml-template         6     2/4     6/0
    file-pattern         23    0/23    23/0
    big-answer            6     4/2     6/0   (before: the 32,000-token names were MemoryErrors;
                                               40,000 entities finished, in 63 s instead of 22 s)
    total                57   12/45    57/0
"""

from __future__ import annotations

import functools
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.growth import assert_linear

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- json-repair


def parse_json_answer(text: str) -> int:
    from harness.formats.answer import parse

    return len(parse(text, "json").graph.entities)


def broken_json(shape: str, n: int) -> str:
    item = {
        "unquoted-keys": lambda i: '{name: "A%d", type: "PERSON", description: "d"}' % i,
        "unquoted-keys-and-values": lambda i: "{name: A%d, type: PERSON, description: someone}" % i,
        "single-and-unquoted": lambda i: "{'name': A%d, type: 'PERSON'}" % i,
        "missing-commas-unquoted": lambda i: "{name: A%d type: PERSON}" % i,
        "python-literals-unquoted": lambda i: "{name: 'A%d', known: True, parent: None}" % i,
        "comments-unquoted": lambda i: "{name: A%d /* note */, type: PERSON} // more" % i,
        "relationships-unquoted": lambda i: "{source: A%d, target: B%d, strength: 7}" % (i, i),
        "stray-quote-unquoted": lambda i: '{name: A%d", type: PERSON}' % i,
    }[shape]
    if shape == "relationships-unquoted":
        return '{"entities": [], "relationships": [' + ", ".join(item(i) for i in range(n)) + "]} trailing"
    return "[" + ", ".join(item(i) for i in range(n)) + "]"


JSON_SHAPES = ["unquoted-keys", "unquoted-keys-and-values", "single-and-unquoted", "missing-commas-unquoted",
               "python-literals-unquoted", "comments-unquoted", "relationships-unquoted", "stray-quote-unquoted"]


@pytest.mark.parametrize("shape", JSON_SHAPES)
def test_json_repair_grows_linearly(shape: str) -> None:
    assert_linear(parse_json_answer, functools.partial(broken_json, shape), 1_600)


def one_object_with_many_unquoted_keys(n: int) -> str:
    return "{" + ", ".join(f"key{i}: value{i}" for i in range(n)) + "}"


def test_json_repair_of_one_wide_object_grows_linearly() -> None:
    assert_linear(parse_json_answer, one_object_with_many_unquoted_keys, 1_600)


# --------------------------------------------------------------------------- fragmentation


def rows_of(names: list[tuple[str, str]]) -> list[Any]:
    from harness.model import Entity

    graph = SimpleNamespace(entities=[Entity(name=name, type=kind) for name, kind in names], relationships=[])
    return [SimpleNamespace(graph=graph, case_id="c1", score=None)]


def fragment(rows: list[Any]) -> int:
    from harness.scoring.fragmentation import fragmentation

    return fragmentation(rows).clusters


def similar_names(kind: str, n: int) -> list[Any]:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def word(i: int) -> str:
        out = ""
        while True:
            out += letters[i % 26]
            i //= 26
            if not i:
                return out

    make = {
        "digits-differ": lambda i: (f"PERSON NUMBER {i:06d}", "PERSON"),
        "letters-differ": lambda i: (f"JOHN SMITHSON {word(i)}", "PERSON"),
        "untyped-similar": lambda i: (f"THE GREAT NORTHERN RAILWAY {word(i)}", ""),
        "shared-surname": lambda i: (f"{word(i)} SMITH", "PERSON"),
        "initials-and-full": lambda i: ((f"J {word(i)} SMITH" if i % 2 else f"JOHN {word(i)} SMITH"), "PERSON"),
        "titles-of-one-name": lambda i: (" ".join("MR" if (i >> b) & 1 else "DR" for b in range(i.bit_length() + 1))
                                         + " HOLMES", "PERSON"),
    }[kind]
    names = [make(i) for i in range(n)]
    if kind == "shared-surname":
        names.append(("SMITH", "PERSON"))
    return rows_of(names)


def one_long_name(kind: str, n: int) -> list[Any]:
    name = {
        "tokens": " ".join(f"W{i}" for i in range(n)) + " HOLMES",
        "honorifics": "MR " * n + "HOLMES",
        "ranks": "INSPECTOR CAPTAIN " * (n // 2) + "MARSH",
        "initials": " ".join("J" for _ in range(n)) + " ASHWORTH",
    }[kind]
    return rows_of([(name, "PERSON"), ("HOLMES", "PERSON"), ("MARSH", "PERSON"), ("J ASHWORTH", "PERSON")])


SIMILAR = ["digits-differ", "letters-differ", "untyped-similar", "shared-surname", "initials-and-full",
           "titles-of-one-name"]


@pytest.mark.parametrize("kind", SIMILAR)
def test_fragmentation_of_many_similar_names_grows_linearly(kind: str) -> None:
    assert_linear(fragment, functools.partial(similar_names, kind), 1_600)


@pytest.mark.parametrize("kind", ["tokens", "honorifics", "ranks", "initials"])
def test_fragmentation_of_one_long_name_grows_linearly(kind: str) -> None:
    assert_linear(fragment, functools.partial(one_long_name, kind), 8_000)


# --------------------------------------------------------------------------- rerecord


def suite_of(n: int) -> Any:
    cases = [SimpleNamespace(id=f"case-{i}") for i in range(n)]
    return SimpleNamespace(cases=cases, path=Path("suites/big.yaml"), variant_names=lambda: ["default", "tuned"])


def every_case_missing(n: int) -> tuple[Any, list[tuple[str, str, str]]]:
    suite = suite_of(n)
    return suite, [(v, c.id, "missing") for v in ("default", "tuned") for c in suite.cases if int(c.id[5:]) % 3]


def hint_all(job: tuple[Any, list[tuple[str, str, str]]]) -> int:
    from harness.run.schedule import rerecord_command

    return len(rerecord_command(*job))


def hint_each(job: tuple[Any, list[tuple[str, str, str]]]) -> int:
    """What the pytest plugin does: one hint per missing cassette (with the suite's case order
    computed once, where the harness has a way to)."""
    from harness.run import schedule

    suite, missing = job
    order = schedule.case_order(suite)
    return sum(len(schedule.rerecord_command(suite, [item], order=order)) for item in missing)


def stale_every_other(n: int) -> tuple[Any, list[tuple[str, str, str]]]:
    suite = suite_of(n)
    return suite, [("default", c.id, "stale" if i % 2 else "missing") for i, c in enumerate(suite.cases)]


@pytest.mark.parametrize("hint, make", [(hint_all, every_case_missing), (hint_each, every_case_missing),
                                        (hint_all, stale_every_other)], ids=["whole", "case-by-case", "stale-mixed"])
def test_rerecord_hint_grows_linearly(hint: Any, make: Any) -> None:
    assert_linear(hint, make, 2_000)


# --------------------------------------------------------------------------- yaml-template


def load_template(text: str) -> int:
    from harness.prompts.yaml_template import load_yaml_text

    return len(load_yaml_text(text, "t.yaml", strict=False).user)


def template_with(kind: str, n: int) -> str:
    head = "name: t\nformat: graphrag\n"
    if kind == "variables":
        return head + "variables:\n" + "".join(f"  v{i}: value {i}\n" for i in range(n)) + "user: '{input_text}'\n"
    if kind == "functions":
        return (head + "variables:\n" + "".join(f"  v{i}: a,b\n" for i in range(n)) + "functions:\n"
                + "".join(f"  f{i}: bullets(v{i})\n" for i in range(n)) + "user: '{input_text}'\n")
    if kind == "examples":
        return (head + "user: '{examples} {input_text}'\nexamples:\n"
                + "".join(f"  - text: t{i}\n    entities: [{{name: A{i}, type: person}}]\n" for i in range(n)))
    if kind == "messages":
        turns = "".join(f"  - role: user\n    content: q{i}\n  - role: assistant\n    content: a{i}\n" for i in range(n))
        return "messages:\n" + turns + "  - role: user\n    content: '{input_text}'\n"
    if kind == "long-value":
        return head + "user: |\n" + "".join(f"  line {i}: {{input_text}} - | > : -\n" for i in range(n))
    if kind == "partial":
        return (head + "partial:\n" + "".join(f"  p{i}: x\n" for i in range(n)) + "user: '{input_text} "
                + " ".join(f"{{p{i}}}" for i in range(n)) + "'\n")
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["variables", "functions", "examples", "messages", "long-value", "partial"])
def test_yaml_template_grows_linearly(kind: str) -> None:
    assert_linear(load_template, functools.partial(template_with, kind), 2_000)


# --------------------------------------------------------------------------- file-pattern


def folder_with(name_unit: str, tail: str, n: int) -> Path:
    """A folder holding one file, named `name_unit` n times then `tail` (made once per size)."""
    folder = Path(tempfile.gettempdir()) / f"harness-growth-pattern-{ord(name_unit[0])}-{len(tail)}-{n}"
    folder.mkdir(exist_ok=True)
    (folder / (name_unit * n + tail)).write_text("text", encoding="utf-8")
    return folder


def match_files(folder: Path, pattern: str, version: tuple[int, int, int]) -> int:
    from harness.errors import InputError
    from harness.importers.graphrag_chunks import ChunkSettings, input_files

    try:
        return len(input_files(folder, pattern, ChunkSettings(version=version)))
    except InputError:
        return -1  # refused: no work at all


PATTERNS = {
    "nested-plus": (r".*/(a+)+$", "a", "!"),
    "alternation-overlap": (r".*/(a|aa)+$", "a", "!"),
    "same-alternatives": (r".*/(a|a)*$", "a", "!"),
    "word-space": (r".*/(\w+\s?)+$", "a", "!"),
    "class-star-star": (r".*/([a-z]*)*$", "a", "!"),
    "star-star-b": (r".*/(a*)*b$", "a", "!"),
    "dot-star-group": (r"^(.*)*!x$", "a", "!"),
    "adjacent-plus": (r".*/(?:a+a+)+$", "a", "!"),
    "digits-polynomial": (r".*/\d*\d*\d*\d*\d*x$", "1", "!"),
    "search-nested": (r"(a+)+$", "a", "!"),
}


@pytest.mark.parametrize("version", [(2, 7, 0), (3, 3, 0)], ids=["match-2.x", "search-3.x"])
@pytest.mark.parametrize("case", list(PATTERNS.values()), ids=list(PATTERNS))
def test_file_pattern_grows_linearly(case: tuple[str, str, str], version: tuple[int, int, int]) -> None:
    pattern, unit, tail = case
    assert_linear(functools.partial(match_files, pattern=pattern, version=version),
                  functools.partial(folder_with, unit, tail), 64)


def find_input_files(folder: Path, pattern: str) -> int:
    from harness.importers.graphrag_input import InputSettings, read_documents

    return len(read_documents(folder, InputSettings(file_pattern=pattern), []))


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(a|aa)+\.txt$", r"(\w+\s?)+$"])
def test_file_pattern_of_other_inputs_grows_linearly(pattern: str) -> None:
    assert_linear(functools.partial(find_input_files, pattern=pattern), functools.partial(folder_with, "a", "!.txt"), 64)


# --------------------------------------------------------------------------- big-answer


SUITE = """\
name: big
variants:
  default:
    prompt: builtin:graphrag.extract_graph
cases:
  - id: c1
    text: "Sherlock Holmes met Inspector Marsh."
    entities: [{name: Sherlock Holmes, type: PERSON}, {name: Marsh, type: PERSON}]
"""


def big_answer(kind: str) -> str:
    record = '("entity"<|>{}<|>{}<|>someone)'
    if kind == "40000-distinct":
        return "##".join(record.format(f"ENTITY {i}", "ORGANIZATION") for i in range(40_000))
    if kind == "40000-similar-persons":
        return "##".join(record.format(f"PERSON NUMBER {i:05d}", "PERSON") for i in range(40_000))
    if kind == "40000-with-relationships":
        ents = [record.format(f"E{i}", "PERSON") for i in range(20_000)]
        rels = [f'("relationship"<|>E{i}<|>E{i + 1}<|>knows<|>5)' for i in range(20_000 - 1)]
        return "##".join(ents + rels)
    if kind == "32000-token-person":
        return record.format(" ".join(f"W{i}" for i in range(32_000)) + " HOLMES", "PERSON") + "##" + \
            record.format("HOLMES", "PERSON")
    if kind == "32000-honorifics":
        return record.format("MR " * 32_000 + "MARSH", "PERSON") + "##" + record.format("MARSH", "PERSON")
    if kind == "32000-token-endpoints":
        long = " ".join(f"W{i}" for i in range(32_000))
        return record.format(long, "PERSON") + f'##("relationship"<|>{long}<|>SHERLOCK HOLMES<|>met<|>5)'
    raise ValueError(kind)


def _limits() -> None:
    limit = 3 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CPU, (600, 600))  # a hang guard: the run ends, whatever it does


@pytest.mark.parametrize("kind", ["40000-distinct", "40000-similar-persons", "40000-with-relationships",
                                  "32000-token-person", "32000-honorifics", "32000-token-endpoints"])
def test_big_answer_is_evaluated(kind: str, tmp_path: Path) -> None:
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "big.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "out.jsonl").write_text(json.dumps({"id": "c1", "output": big_answer(kind)}) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harness.cli", "evaluate", "suites/big.yaml", "--outputs", "out.jsonl",
                           "--reports", "reports"], cwd=tmp_path, capture_output=True, text=True, preexec_fn=_limits,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
