"""YAML loading that remembers where each value came from, so errors can name the line.

Every user YAML file (suites, gold files, prompt templates) is loaded here, and a hostile one
must end as one InputError, never a hang or a crash. Before anything is composed, one linear
pass over the parser's events bounds the nesting depth (PyYAML composes recursively: deep
nesting raises RecursionError, and libyaml's composer can overflow the C stack) and the number
of nodes *after* alias expansion (nine levels of nine aliases expand to 387 million nodes).
Recursive aliases are refused, and a tagged scalar that does not construct (`!!int abc`) is an
error naming its line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import InputError
from .inputfiles import MAX_INPUT_BYTES, read_text

Location = tuple[str | int, ...]

# Deepest nesting of mappings and sequences in a user YAML file (suites nest about 6 levels).
MAX_YAML_DEPTH = 64
# Most nodes a YAML file may stand for, counting every node an alias repeats.
MAX_YAML_NODES = 1_000_000

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LineLoader(_Base):  # type: ignore[misc, valid-type]
    """The safe loader (never constructs Python objects, C-accelerated where libyaml is there);
    we compose nodes ourselves to record the line of every value."""


def _check_shape(text: str) -> None:
    """Refuse, in one pass over the events, documents too deep or too large once aliases expand.

    Raises InputError("line N: ...") at the first event that crosses a limit.
    """
    loader = _LineLoader(text)
    try:
        sizes: dict[str, int] = {}  # anchor -> expanded node count of the finished node
        open_anchors: list[str | None] = []  # anchors of the collections being read
        counts: list[int] = []  # expanded node count so far of each open collection
        total = 0
        while True:
            event = loader.get_event()
            if isinstance(event, yaml.StreamEndEvent):
                return
            line = event.start_mark.line + 1 if event.start_mark else 0
            if isinstance(event, yaml.AliasEvent):
                if event.anchor in open_anchors:
                    raise InputError(f"line {line}: alias *{event.anchor} refers to a node that contains it")
                added = sizes.get(event.anchor, 1)  # an unknown anchor is reported by the composer
            elif isinstance(event, yaml.ScalarEvent):
                added = 1
                if event.anchor:
                    sizes[event.anchor] = 1
            elif isinstance(event, yaml.CollectionStartEvent):
                if len(counts) >= MAX_YAML_DEPTH:
                    raise InputError(f"line {line}: nested deeper than {MAX_YAML_DEPTH} levels")
                open_anchors.append(event.anchor)
                counts.append(1)
                total += 1
                if total > MAX_YAML_NODES:
                    raise InputError(f"line {line}: more than {MAX_YAML_NODES} values once aliases are expanded")
                continue
            elif isinstance(event, yaml.CollectionEndEvent):
                anchor, size = open_anchors.pop(), counts.pop()
                if anchor:
                    sizes[anchor] = size
                if counts:
                    counts[-1] += size
                continue
            else:
                continue
            total += added
            if counts:
                counts[-1] += added
            if total > MAX_YAML_NODES:
                raise InputError(f"line {line}: more than {MAX_YAML_NODES} values once aliases are expanded")
    finally:
        loader.dispose()


def _construct_scalar(loader: _LineLoader, node: yaml.Node) -> Any:
    """A plain value; a tagged scalar that cannot be what its tag says is an InputError."""
    try:
        return loader.construct_object(node, deep=True)
    except yaml.YAMLError:
        raise
    except (ValueError, TypeError, AttributeError, OverflowError, IndexError, KeyError):
        tag = node.tag.rsplit(":", 1)[-1] if isinstance(node.tag, str) else "value"
        shown = str(node.value)[:40] if isinstance(node.value, str) else "this value"
        raise InputError(f"line {node.start_mark.line + 1}: '{shown}' is not a valid {tag}") from None


def _construct(loader: _LineLoader, node: yaml.Node, path: Location, lines: dict[Location, int]) -> Any:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise InputError(f"line {key_node.start_mark.line + 1}: a mapping key must be a plain value")
            key = _construct_scalar(loader, key_node)
            try:
                hash(key)
            except TypeError:
                raise InputError(f"line {key_node.start_mark.line + 1}: a mapping key must be a plain value") from None
            if key in result:
                raise InputError(f"line {key_node.start_mark.line + 1}: duplicate key '{shown_key(key)}'")
            result[key] = _construct(loader, value_node, (*path, key), lines)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_construct(loader, item, (*path, i), lines) for i, item in enumerate(node.value)]
    return _construct_scalar(loader, node)


def load_yaml(path: Path) -> tuple[Any, dict[Location, int]]:
    """Load one YAML document; return the data and a map from location to 1-based line.

    Raises InputError naming the file and line on any syntax error, on a file that is not a
    regular file of at most MAX_INPUT_BYTES, and on documents beyond the depth and size limits.
    """
    text = read_text(path, limit=MAX_INPUT_BYTES, what="YAML file")
    return parse_yaml(text, str(path))


def parse_yaml(text: str, name: str) -> tuple[Any, dict[Location, int]]:
    lines: dict[Location, int] = {}
    loader: _LineLoader | None = None
    try:
        _check_shape(text)
        loader = _LineLoader(text)
        node = loader.get_single_node()
        if node is None:
            return None, lines
        return _construct(loader, node, (), lines), lines
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}" if mark else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(f"{name}{where}: YAML error: {_one_line(problem)}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{name}: YAML error: {_one_line(str(exc))}") from None
    except InputError as exc:
        raise InputError(f"{name}:{exc.message.removeprefix('line ')}") from None
    except RecursionError:  # defence in depth: _check_shape bounds the depth first
        raise InputError(f"{name}: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def line_of(lines: dict[Location, int], loc: Location) -> int | None:
    """The line of the deepest known location on the way to `loc`."""
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def shown_key(key: object) -> str:
    """A key as quoted in a one-line message: short, and without newlines or control characters."""
    text = str(key)
    if len(text) > 60:
        text = text[:40] + "..." + text[-10:]
    return text if text.isprintable() else repr(text)[1:-1]


def format_loc(loc: Location) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{shown_key(part)}" if out else shown_key(part))
    return out
