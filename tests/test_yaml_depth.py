"""The harness's own YAML depth bound (harness.yaml_depth), against the depth PyYAML's pure-Python
parser nests the same text to, and parse_yaml's message whatever parser sits below it."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import yaml_depth, yamlfile
from harness.errors import InputError
from harness.yaml_depth import line_deeper_than
from harness.yamlfile import MAX_YAML_DEPTH, parse_yaml
from tests.support.growth import Repeat, assert_linear


def real_depth(text: str) -> tuple[int, int | None]:
    """How deep PyYAML's pure-Python parser nests `text` (no library limit, no lookahead that
    matters), and the line where it first goes deeper than MAX_YAML_DEPTH."""
    depth = deepest = 0
    line = None
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            deepest = max(deepest, depth)
            if depth > MAX_YAML_DEPTH and line is None:
                line = event.start_mark.line + 1
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    return deepest, line


def scanned_depth(text: str) -> int:
    """The depth the scan finds: the least limit it does not refuse."""
    low, high = 0, len(text) + 1
    while low < high:
        middle = (low + high) // 2
        if line_deeper_than(text, middle) is None:
            high = middle
        else:
            low = middle + 1
    return low


# --- generated YAML: a tree rendered in block and flow styles --------------------------------

# scalars with brackets, braces, quotes and comment signs that must not count
FLOW_SCALARS = ["a", "'[['", '"{x]"', "'it''s ['", '"q\\"[{"', "-1", "x:y", "&a1 v", "!!str s", "~", "'# no'"]
BLOCK_SCALARS = [*FLOW_SCALARS, "a[b", "a{b} c]", "x #[ comment [[", "k:v[", "[a, b]"]
KEYS = ["k", "'k['", '"{k"', "a b", "[f, g]", "{h: i}"]
BLOCK_TEXT = ["{{{{ [[[", "- [a: {b", "key: [", "# not a comment [", "  }}} ]]"]

Tree = tuple[Any, ...]  # ("scalar", text) | ("map", block, [(key, Tree)]) | ("seq", block, [Tree]) | ("text", lines)


def trees(spine: int) -> st.SearchStrategy[Tree]:
    """A tree at least `spine` levels deep: one path of `spine` collections (block ones outside,
    flow ones inside), each with a few shallow siblings."""

    @st.composite
    def build(draw: st.DrawFn) -> Tree:
        flow_from = draw(st.integers(0, spine))
        tree: Tree = ("scalar", draw(st.sampled_from(FLOW_SCALARS)))
        for level in reversed(range(spine)):
            block = level < flow_from
            kind = draw(st.sampled_from(["map", "seq", "pair"] if not block else ["map", "seq"]))
            siblings = draw(st.lists(sibling(block), max_size=2))
            position = draw(st.integers(0, len(siblings)))
            if kind == "seq" or kind == "pair":
                items = [*siblings[:position], tree, *siblings[position:]]
                tree = ("seq", block, items, kind == "pair")
            else:
                keys = draw(st.lists(st.sampled_from(KEYS), min_size=len(siblings), max_size=len(siblings)))
                pairs = [(f"{key}{index}" if key[0].isalpha() else key, value)
                         for index, (key, value) in enumerate(zip(keys, siblings))]
                pairs.insert(position, (draw(st.sampled_from(["k", "'[k'"])), tree))
                tree = ("map", block, pairs)
        return tree

    return build()


def sibling(block: bool) -> st.SearchStrategy[Tree]:
    flow_scalars = st.sampled_from(FLOW_SCALARS).map(lambda text: ("scalar", text))
    scalars = st.sampled_from(BLOCK_SCALARS).map(lambda text: ("scalar", text)) if block else flow_scalars
    small = st.one_of(scalars, st.lists(flow_scalars, max_size=2).map(lambda items: ("seq", False, items, False)))
    if block:
        small = st.one_of(small, st.lists(st.sampled_from(BLOCK_TEXT), min_size=1, max_size=3).map(lambda lines: ("text", lines)))
    return small


def render_flow(tree: Tree) -> str:
    kind = tree[0]
    if kind == "scalar":
        return tree[1]
    if kind == "seq":
        items = [render_flow(item) for item in tree[2]]
        if tree[3] and items:  # a single-pair mapping in the sequence: `[k: v]`
            items[0] = f"k: {items[0]}"
        return "[" + ", ".join(items) + "]"
    return "{" + ", ".join(f"{key}: {render_flow(value)}" for key, value in tree[2]) + "}"


def render_block(tree: Tree, indent: int, *, comments: bool) -> list[str]:
    """Lines of a block collection at `indent` (the first line may be used compactly)."""
    space = " " * indent
    lines: list[str] = []
    if tree[0] == "map":
        for key, value in tree[2]:
            if key.startswith("{"):
                key = "[z]"  # block keys stay on one line; `{` would open a flow mapping as the key
            lines += _entry(f"{space}{key}:", value, indent, comments=comments, under_key=True)
    else:
        for item in tree[2]:
            lines += _entry(f"{space}-", item, indent, comments=comments, under_key=False)
    if comments:
        lines.append(f"{space}# {{[ after ]}}")
    return lines


def _entry(head: str, value: Tree, indent: int, *, comments: bool, under_key: bool) -> list[str]:
    kind = value[0]
    if kind == "scalar":
        return [f"{head} {value[1]}" + (" # ]]] {{" if comments else "")]
    if kind == "text":
        return [f"{head} |", " " * (indent + 2) + "{", *(" " * (indent + 2) + line for line in value[1])]
    if not value[1]:  # a flow collection
        return [f"{head} {render_flow(value)}"]
    if kind == "seq" and under_key and comments:  # indentless: `key:` then `- ` at the key's column
        return [head, *render_block(value, indent, comments=comments)]
    inner = render_block(value, indent + 2, comments=False)
    if not under_key and inner:  # compact: `- k: v`, `- - a`
        return [f"{head} {inner[0].lstrip()}", *inner[1:]]
    return [head, *inner]


def render(tree: Tree, comments: bool) -> str:
    if tree[0] in ("map", "seq") and tree[1]:
        body = render_block(tree, 0, comments=comments)
    else:
        body = [render_flow(tree) if tree[0] != "text" else "x"]
    return ("# [[[ {{{\n" if comments else "") + "\n".join(body) + "\n"


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12).flatmap(trees), st.booleans())
def test_the_scan_finds_the_depth_the_parser_nests_to(tree: Tree, comments: bool) -> None:
    text = render(tree, comments)
    depth, _ = real_depth(text)
    assert scanned_depth(text) == depth, text


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(MAX_YAML_DEPTH - 4, MAX_YAML_DEPTH + 4).flatmap(trees), st.booleans())
def test_the_scan_refuses_exactly_what_is_deeper_than_the_limit_at_its_line(tree: Tree, comments: bool) -> None:
    text = render(tree, comments)
    depth, line = real_depth(text)
    assert line_deeper_than(text, MAX_YAML_DEPTH) == line
    assert (line is not None) == (depth > MAX_YAML_DEPTH)


PIECES = ["[", "]", "{", "}", ",", ":", " ", "\n", "\n  ", "\n    ", "- ", "? ", ": ", "k: ", "- - ", "a", "1", "#", '"',
          "'", "''", '\\"', "|", ">", "|2", ">-", "&x ", "*x", "!t ", "\t", "-", ".", "---", "...", "%", "\r\n", "@"]


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_on_any_text_the_scan_is_exact_when_it_parses_and_the_quick_bound_holds(text: str) -> None:
    """Text of YAML's significant characters at random: where PyYAML parses it, the scan finds
    its depth; parsed or not, the quick bound that lets most files skip the scan is never less
    than what the scan counts."""
    scanned = scanned_depth(text)
    assert yaml_depth._depth_bound(text.translate(yaml_depth._BREAKS)) >= scanned
    try:
        depth, _ = real_depth(text)
    except yaml.YAMLError:
        return
    assert scanned == depth


@pytest.mark.parametrize(("text", "depth"), [
    ("k: |\n  [[[[ {{{{\n  - [\nz: 1\n", 1),  # a block scalar holding JSON-ish text
    ("k: >-\n    {{{{\n  \nb: [1]\n", 2),
    ("k: a[b\nj: c{d}\n", 1),  # plain scalars, not flow collections
    ("'[[': x\n\"{{\": y\n", 1),
    ("# [[[[\na: 1 # {{{{\n", 1),
    ("a: 'it''s [['\nb: \"\\\"[[\"\n", 1),
    ("a: \"x\n [[[ y\"\nb: 1\n", 1),  # a quoted scalar over lines
    ("[a]: b\n", 2),  # a flow key: the mapping holds the sequence
    ("[[a]: b]\n", 3),  # a single-pair mapping in a flow sequence
    ("[? a : b]\n", 2),
    ('["a":[1]]\n', 3),
    ("a:\n- b\n- c: [d]\ne: f\n", 4),  # an indentless sequence under `a:`
    ("- - - a\n", 3),
    ("? - a\n  - b\n: c\n", 2),
    ("%YAML 1.1\n---\n[[1]]\n...\n", 2),
    ("a: b\r\nc:\r\n  - [d]\r\n", 3),
    ("\ufeff[[x]]", 2),
])
def test_these_count_as_the_parser_nests_them(text: str, depth: int) -> None:
    assert real_depth(text)[0] == depth
    assert scanned_depth(text) == depth


def test_the_line_is_where_the_level_beyond_the_limit_opens() -> None:
    text = "a: 1\n" + "".join(" " * i + f"k{i}:\n" for i in range(70)) + " " * 70 + "v\n"
    assert line_deeper_than(text, MAX_YAML_DEPTH) == real_depth(text)[1] == 2 + MAX_YAML_DEPTH
    flow = "a: 1\r\nb: 2\r\nc: " + "[" * 70 + "]" * 70 + "\r\n"
    assert line_deeper_than(flow, MAX_YAML_DEPTH) == 3


@pytest.mark.slow
def test_the_scan_is_linear() -> None:
    """Counted under callgrind (tests/support/growth.py): quotes, comments, flow and block scalars."""
    assert_linear(partial(line_deeper_than, limit=10**9),
                  Repeat("- a: '[[' # {{\n  b: [c, {d: \"e\"}]\n  t: |\n    {{ [[\n"), 1_000)


# --- parse_yaml: the harness's message, whatever the parser below would say --------------------

DEEP = [("x: " + "[" * 1001 + "]" * 1001 + "\n", 1), ("[" * 50_000 + "]" * 50_000, 1),
        ("a: 1\nb: " + "{a: " * 2000 + "1" + "}" * 2000 + "\n", 2),
        ("".join(" " * i + f"k{i}:\n" for i in range(2000)) + " " * 2000 + "v\n", MAX_YAML_DEPTH + 1)]


def harness_message(text: str) -> str:
    with pytest.raises(InputError) as caught:
        parse_yaml(text, "deep.yaml")
    return caught.value.message


class _PureLoader(yaml.SafeLoader):
    """PyYAML's pure-Python loader: no libyaml below, so no library depth limit at all."""


class _StrictLoader(yaml.SafeLoader):
    """A parser with a flow-depth limit of its own, worded its own way, hit while reading ahead
    (as libyaml's scanner does) before any event of the deep part is handed over."""

    def get_event(self) -> Any:
        if "[" * 1001 in self.buffer or "{a: " * 1001 in self.buffer:
            raise yaml.scanner.ScannerError("while nesting", None, "the stack is too tall here", self.get_mark())
        return super().get_event()


@pytest.mark.parametrize(("text", "expected"), DEEP)
@pytest.mark.parametrize("loader", [None, _PureLoader, _StrictLoader])
def test_deep_nesting_gets_the_harness_message_whatever_parses_it(
        monkeypatch: pytest.MonkeyPatch, loader: type | None, text: str, expected: int) -> None:
    if loader is not None:
        monkeypatch.setattr(yamlfile, "_LineLoader", loader)
    assert harness_message(text) == f"deep.yaml:{expected}: nested deeper than {MAX_YAML_DEPTH} levels"


def test_the_event_check_still_bounds_the_depth_without_the_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defence in depth: the pass over the parser's events refuses the same nesting."""
    monkeypatch.setattr(yamlfile, "line_deeper_than", lambda text, limit: None)
    monkeypatch.setattr(yamlfile, "_LineLoader", _PureLoader)
    text = DEEP[0][0]
    assert harness_message(text) == f"deep.yaml:1: nested deeper than {MAX_YAML_DEPTH} levels"


def test_nesting_at_the_limit_still_loads() -> None:
    text = "".join(" " * (2 * i) + "- k:\n" for i in range(31)) + " " * 62 + "- [v]\n"  # indentless sequences
    assert real_depth(text)[0] == MAX_YAML_DEPTH
    data, _ = parse_yaml(text, "edge.yaml")
    assert isinstance(data, list)
