"""Hostile YAML: every user YAML file ends as one InputError naming file and line, never a hang or crash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.yamlfile import MAX_YAML_DEPTH, load_yaml, parse_yaml
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


def test_alias_bomb_time_does_not_grow_with_the_expansion() -> None:
    """Levels of two aliases: the text grows linearly, the expansion doubles per level."""

    def load(text: str) -> None:
        try:
            parse_yaml(text, "bomb.yaml")
        except InputError:
            pass

    assert_linear(load, lambda n: alias_bomb(n, 2), 40)


def test_deep_nesting_time_is_bounded() -> None:
    def load(text: str) -> None:
        try:
            parse_yaml(text, "deep.yaml")
        except InputError:
            pass

    assert_linear(load, lambda n: nested(n), 20_000)
