"""Hostile YAML: every user YAML file ends as one InputError naming file and line, never a hang or crash."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import yamlfile
from harness.errors import InputError
from harness.yamlfile import MAX_YAML_DEPTH, AliasedLines, line_of, load_yaml, node_limit, parse_yaml
from tests.support.growth import assert_linear


def alias_bomb(levels: int, width: int) -> str:
    """`levels` anchors, each a list of `width` aliases of the one before (billion laughs)."""
    lines = [f"l0: &a0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &a{level} [{', '.join([f'*a{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def nested(depth: int, kind: str = "flow") -> str:
    if kind == "flow":
        return "x: " + "[" * depth + "]" * depth + "\n"
    return "".join(" " * i + f"k{i}:\n" for i in range(depth)) + " " * depth + "v\n"


@pytest.mark.slow
def test_alias_bomb_nine_by_nine_is_refused_with_its_line() -> None:
    with pytest.raises(InputError) as caught:
        parse_yaml(alias_bomb(9, 9), "bomb.yaml")
    message = caught.value.message
    assert message.startswith("bomb.yaml:")
    assert "aliases are expanded" in message
    assert "\n" not in message


def test_a_few_aliases_still_work() -> None:
    data, _ = parse_yaml("base: &b {x: 1}\nuse: *b\nlist: [*b, *b]\n", "ok.yaml")
    assert data == {"base": {"x": 1}, "use": {"x": 1}, "list": [{"x": 1}, {"x": 1}]}


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(InputError, match=r"^r\.yaml:1: alias \*x refers to a node that contains it"):
        parse_yaml("a: &x [1, *x]\n", "r.yaml")


@pytest.mark.parametrize("depth", [1_000, 20_000, 50_000])
def test_deep_flow_nesting_is_refused(depth: int) -> None:
    with pytest.raises(InputError, match=rf"^deep\.yaml:1: nested deeper than {MAX_YAML_DEPTH} levels"):
        parse_yaml(nested(depth), "deep.yaml")


def test_deep_block_nesting_is_refused_at_its_line() -> None:
    with pytest.raises(InputError, match=r"^deep\.yaml:\d+: nested deeper than"):
        parse_yaml(nested(5_000, "block"), "deep.yaml")


def test_nesting_at_the_limit_loads() -> None:
    data, _ = parse_yaml("[" * (MAX_YAML_DEPTH - 1) + "]" * (MAX_YAML_DEPTH - 1), "edge.yaml")
    assert isinstance(data, list)


@pytest.mark.parametrize(
    ("text", "line", "tag"),
    [
        ("a: 1\nb: !!int abc\n", 2, "int"),
        ("a: !!float zz\n", 1, "float"),
        ("a: 1\n\nb: !!timestamp 2020-13-45\n", 3, "timestamp"),
        ("a: !!timestamp yesterday\n", 1, "timestamp"),
        ("a: !!int " + "9" * 5000 + "\n", 1, "int"),
    ],
)
def test_bad_tagged_scalars_name_the_line(text: str, line: int, tag: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_yaml(text, "t.yaml")
    assert caught.value.message.startswith(f"t.yaml:{line}: ")
    assert f"not a valid {tag}" in caught.value.message


def test_unknown_and_python_tags_are_one_line_errors() -> None:
    for text in ("a: !!python/object:os.system x\n", "a: !custom 1\n", "? !!set {a, b}\n: 1\n"):
        with pytest.raises(InputError) as caught:
            parse_yaml(text, "t.yaml")
        assert caught.value.message.startswith("t.yaml")
        assert "\n" not in caught.value.message


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "suite.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        load_yaml(fifo)


def test_device_is_refused() -> None:
    with pytest.raises(InputError, match="not a regular file"):
        load_yaml(Path("/dev/zero"))


def test_non_utf8_and_odd_names_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        load_yaml(bad)
    with pytest.raises(InputError, match="not a valid file name"):
        load_yaml(tmp_path / "a\x00b.yaml")
    with pytest.raises(InputError) as caught:
        load_yaml(tmp_path / ("x" * 5000 + ".yaml"))
    assert len(caught.value.message) < 400


def load_refused_or_not(text: str) -> None:
    """parse_yaml, where an InputError (too many nodes, too deep) is an answer too."""
    try:
        parse_yaml(text, "hostile.yaml")
    except InputError:
        pass


SMALL_NODE_LIMIT = 1000  # MAX_YAML_NODES (a million) costs ~9e9 instructions to reach: too slow to count


def load_with_a_small_node_limit(text: str) -> None:
    """load_refused_or_not with MAX_YAML_NODES lowered: the same refusal, a thousandth of the work."""
    saved, yamlfile.MAX_YAML_NODES = yamlfile.MAX_YAML_NODES, SMALL_NODE_LIMIT
    try:
        load_refused_or_not(text)
    finally:
        yamlfile.MAX_YAML_NODES = saved


def bomb_past_the_small_node_limit(levels: int) -> str:
    """alias_bomb of 2 aliases per level, 10 levels (2**10 > SMALL_NODE_LIMIT) more than asked, so
    every size measured stands for more values than a load may build."""
    return alias_bomb(10 + levels, 2)


@pytest.mark.slow
def test_alias_bomb_work_does_not_grow_with_the_expansion(monkeypatch: pytest.MonkeyPatch) -> None:
    """Levels of two aliases: the text grows linearly, the expansion doubles per level."""
    with monkeypatch.context() as patched:
        patched.setattr(yamlfile, "MAX_YAML_NODES", SMALL_NODE_LIMIT)
        with pytest.raises(InputError):  # every size measured is refused
            parse_yaml(bomb_past_the_small_node_limit(1), "bomb.yaml")
    assert_linear(load_with_a_small_node_limit, bomb_past_the_small_node_limit, 40)


@pytest.mark.slow
def test_deep_nesting_work_is_bounded() -> None:
    assert_linear(load_refused_or_not, nested, 20_000)


# --- the one-pass reader against composing the node tree and constructing it -----------------


def composed_then_constructed(text: str) -> tuple[Any, dict] | str:
    """The straightforward load: PyYAML composes the whole node tree, then every value is built
    from it (an alias a fresh copy); a problem is the one-line message parse_yaml gives."""
    loader = yaml_loader(text)
    lines: dict = {}

    def scalar(node: yaml.Node) -> Any:
        try:
            return loader.construct_object(node, deep=True)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, AttributeError, OverflowError, IndexError, KeyError):
            raise InputError(f"line {node.start_mark.line + 1}: '{node.value[:40]}' is not a valid "
                             f"{node.tag.rsplit(':', 1)[-1]}") from None

    def build(node: yaml.Node, path: tuple) -> Any:
        lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            merge = "tag:yaml.org,2002:merge"  # yaml.org/type/merge.html
            sources: list[yaml.MappingNode] = []
            for key_node, value_node in node.value:
                if key_node.tag == merge:
                    listed = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                    if not listed or not all(isinstance(n, yaml.MappingNode) for n in listed):
                        raise InputError(f"line {key_node.start_mark.line + 1}: a merge (<<) takes a mapping or a "
                                         "list of mappings")
                    sources += listed
            # each merged mapping built at this mapping's place, with lines of its own; a key takes
            # the value and lines of the first mapping giving it, unless it is written here
            result: dict = {}
            for source in sources:
                outer = dict(lines)
                lines.clear()
                merged = build(source, path)
                own = dict(lines)
                lines.clear()
                lines.update(outer)
                for key, value in merged.items():
                    if key not in result:
                        result[key] = value
                        lines.update({loc: n for loc, n in own.items() if loc[:len(path) + 1] == (*path, key)})
            written: dict = {}
            for key_node, value_node in node.value:
                if key_node.tag == merge:
                    continue
                where = f"line {key_node.start_mark.line + 1}"
                if not isinstance(key_node, yaml.ScalarNode):
                    raise InputError(f"{where}: a mapping key must be a plain value")
                key = scalar(key_node)
                if key in written:
                    raise InputError(f"{where}: duplicate key '{key}'")
                for loc in [loc for loc in lines if loc[:len(path) + 1] == (*path, key)]:
                    del lines[loc]  # a merged value it replaces
                written[key] = build(value_node, (*path, key))
            result.update(written)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [build(item, (*path, index)) for index, item in enumerate(node.value)]
        return scalar(node)

    try:
        node = loader.get_single_node()
        return (None, lines) if node is None else (build(node, ()), lines)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return f"t.yaml:{mark.line + 1}: YAML error: {' '.join((exc.problem or exc.context or '').split())}"
    except InputError as exc:
        return f"t.yaml:{exc.message.removeprefix('line ')}"
    finally:
        loader.dispose()


def yaml_loader(text: str) -> Any:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)


def read_in_one_pass(text: str, shared: bool = False) -> tuple[Any, Any] | str:
    try:
        return parse_yaml(text, "t.yaml", shared=shared)
    except InputError as exc:
        return exc.message


ATOMS = ["a", "1", "'q'", "~", "yes", "2020-01-02", "!!int 3", "!!int z", "!!float x", "*x", "*y", "&x v",
         "&y [1, 2]", "{k: v}", "[a, *x]", "&x {z: [1, *y]}", "!!str 2", "!custom 1", "[1]", "? [1]\n: 2"]
KEYS = ["k", "j", "m", "*x", "&x k", "'1'", "1", "[a]", "*y"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from(ATOMS)), min_size=1, max_size=6),
       st.booleans(), st.booleans())
def test_one_pass_reads_what_composing_then_constructing_reads(
        pairs: list[tuple[str, str]], as_list: bool, two_documents: bool) -> None:
    """Values, every location's line, and the first error (composer errors such as an undefined
    alias before values that cannot be built, as composing the whole tree first gives them)."""
    if as_list:
        text = "".join(f"- {value}\n" for _, value in pairs if "\n" not in value)
    else:
        text = "".join(f"{key}: {value}\n" for key, value in pairs if "\n" not in value)
    text += "---\nb: 1\n" if two_documents else ""
    expected = composed_then_constructed(text)
    assert read_in_one_pass(text) == expected
    shared = read_in_one_pass(text, shared=True)
    if isinstance(expected, str):
        assert shared == expected
    else:
        data, lines = shared
        assert data == expected[0]
        for loc, line in expected[1].items():
            assert lines[loc] == line
            assert line_of(lines, (*loc, "below", 0)) == line_of(expected[1], (*loc, "below", 0))


@pytest.mark.parametrize("text", [
    "", "---\n", "a: &x 1\nb: &x 2\n", "a: !!int q\nb: *nowhere\n", "{[1]: 2, b: *nowhere}\n", "a: !!int q\n---\nb: 2\n",
    "a: 1\na: 2\n", "&k a: 1\nb: *k\n", "a: &m {x: 1}\n*m : 2\n", "<<: {a: 1}\nb: 2\n", "- !!map x\n",
    "b: &b {x: 1, y: [2, 3]}\nm:\n  y: 0\n  <<: *b\n", "a: &a {x: 1}\nb: &b {x: 2, z: 3}\nm: {<<: [*a, *b], w: 4}\n",
    "m:\n  <<: {q: 1}\n  <<: {q: 2, r: 3}\n", "m:\n  <<: 5\n", "m:\n  <<: [{a: 1}, 2]\n", "m:\n  <<: []\n",
    "a: &a {x: {deep: [1]}}\nm:\n  <<: *a\n  k: *a\n", "b: &b {<<: {x: 1}, y: 2}\nm: {<<: *b, z: 3}\n",
    "m:\n  <<: &in {x: 1}\nn: *in\n",
    "a: !!timestamp 2020-01-01\nb: !!binary aGk=\nc: 0x1f\nd: 1e3\ne: ! 12\n", "- &a [1, 2]\n- &b [*a, *a]\n- *b\n",
    "a: [1, 2\n", "a: b: c\n",
])
def test_one_pass_reads_these_as_composing_then_constructing_does(text: str) -> None:
    expected = composed_then_constructed(text)
    assert read_in_one_pass(text) == expected
    assert isinstance(expected, tuple) or read_in_one_pass(text, shared=True) == expected


def test_bounds_are_reported_before_composer_errors_anywhere() -> None:
    """The bounds are checked over the whole stream first, as the separate pass before did."""
    text = "a: *nowhere\nb: !!int q\n" + nested(MAX_YAML_DEPTH + 5)
    assert read_in_one_pass(text).startswith(f"t.yaml:3: nested deeper than {MAX_YAML_DEPTH} levels")


def test_shared_aliases_are_their_anchors_value_and_lines_follow_the_anchor() -> None:
    text = "cases:\n- gold: &g\n    - name: A\n    - name: B\n  id: c0\n- gold: *g\n  id: c1\n- gold: *g\n  id: c2\n"
    copied, copied_lines = parse_yaml(text, "t.yaml")
    shared, lines = parse_yaml(text, "t.yaml", shared=True)
    assert shared == copied
    assert shared["cases"][2]["gold"] is shared["cases"][0]["gold"]
    assert copied["cases"][2]["gold"] is not copied["cases"][0]["gold"]
    assert isinstance(lines, AliasedLines) and len(lines.direct) < len(copied_lines)
    for loc, line in copied_lines.items():
        assert lines[loc] == line and loc in lines
    assert ("cases", 2, "gold", 5) not in lines and lines.get(("cases", 2, "gold", 5)) is None
    assert line_of(lines, ("cases", 2, "gold", 1, "type")) == 4  # B's line, under the anchor


def test_a_shared_load_may_stand_for_values_in_proportion_to_its_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shared load (suites) may stand for MAX_YAML_NODES values, or four per character: a suite
    whose many cases refer to one anchored gold loads, an alias bomb of any size does not; a
    copying load keeps the fixed limit."""
    monkeypatch.setattr(yamlfile, "MAX_YAML_NODES", 1_000)
    cases = "".join(f"- id: c{i}\n  gold: *g\n" for i in range(300))
    text = "gold: &g [" + ", ".join(["x"] * 20) + "]\ncases:\n" + cases  # about 6,900 values in 6,500 characters
    assert node_limit(text, shared=True) == 4 * len(text) and node_limit(text) == 1_000
    data, _ = parse_yaml(text, "t.yaml", shared=True)
    assert len(data["cases"]) == 300
    with pytest.raises(InputError, match=r"^t\.yaml:\d+: more than 1000 values once aliases are expanded"):
        parse_yaml(text, "t.yaml")
    bomb = alias_bomb(5, 9)  # 66,000 values in 270 characters
    assert node_limit(bomb, shared=True) == 4 * len(bomb) < 66_000
    with pytest.raises(InputError, match=rf"^bomb\.yaml:\d+: more than {4 * len(bomb)} values once aliases are expanded"):
        parse_yaml(bomb, "bomb.yaml", shared=True)


def test_a_shared_alias_bomb_is_refused_without_building_it() -> None:
    with pytest.raises(InputError, match=r"^bomb\.yaml:\d+: more than 1000000 values once aliases are expanded"):
        parse_yaml(alias_bomb(9, 9), "bomb.yaml", shared=True)


def test_a_twenty_thousand_case_suite_with_full_anchored_gold_reads() -> None:
    """About 100 values a case through one anchor: 2.1 million values, refused before."""
    gold = "".join(f"    - name: Person {i}\n      type: person\n" for i in range(12))
    gold += "".join(f"    - source: Person {i}\n      target: Person {i + 1}\n" for i in range(8))
    text = "cases:\n- id: c0\n  gold: &g\n" + gold
    text += "".join(f"- id: c{i}\n  chunk: chunks/c{i}.txt\n  gold: *g\n" for i in range(1, 20_000))
    data, lines = parse_yaml(text, "big.yaml", shared=True)
    assert len(data["cases"]) == 20_000 and data["cases"][-1]["gold"] is data["cases"][0]["gold"]
    assert lines[("cases", 19_999, "gold", 19, "target")] == 43  # under the anchor, in case c0
